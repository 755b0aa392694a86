import { get, tenantPath } from '../api.js';
import { displayValue, h, show, takeNotice, viewOf } from '../dom.js';

/** Types a list shows no column for and cannot filter or sort on (not indexed, or bulky). */
const NO_COLUMN = new Set(['LONGTEXT', 'TEXTBLOCK', 'JSON', 'SECRET', 'ARRAY', 'FILE', 'IMAGE']);
const MAX_COLUMNS = 6;
const PAGE_SIZES = ['10', '20', '50', '100'];

/** Filter operators of the list API, as parameter suffixes (docs/data-api.md). */
const OPERATORS = [
  { suffix: '', label: 'equals' },
  { suffix: '_startswith', label: 'starts with' },
  { suffix: '_from', label: 'from (>=)' },
  { suffix: '_to', label: 'to (<=)' },
  { suffix: '_notempty', label: 'has a value', noValue: true },
];
const PAGING = new Set(['page', 'size', 'sort']);

/** The model's classes (`GET /metadata/{tenant}/classes`), each linking to its list. */
export async function classesView() {
  const { classes } = await get(tenantPath('metadata', 'classes'));
  show(
    takeNotice(),
    h('h1', {}, 'Classes'),
    h(
      'table',
      { id: 'classes' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, 'Class'),
          h('th', {}, 'Qualified name'),
          h('th', {}, 'Extends'),
          h('th', {}, ''),
        ),
      ),
      h(
        'tbody',
        {},
        classes.map((cls) =>
          h(
            'tr',
            {},
            h(
              'td',
              {},
              h('a', { href: `#/list/${encodeURIComponent(cls.name)}`, 'data-class': cls.name }, cls.name),
            ),
            h('td', {}, cls.qualifiedName),
            h('td', {}, cls.extends.join(', ')),
            h(
              'td',
              { class: 'muted' },
              cls.abstract ? 'abstract' : cls.creatable ? '' : 'attached to other classes',
            ),
          ),
        ),
      ),
    ),
  );
}

/** The hash of this list with `changes` applied to its query (null deletes a parameter). */
function listHash(segments, query, changes) {
  const next = new URLSearchParams(query);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) next.delete(name);
    else next.set(name, value);
  }
  const search = next.toString();
  return `#/list/${segments.map(encodeURIComponent).join('/')}${search === '' ? '' : `?${search}`}`;
}

/** The next sort of a column: ascending, then descending, then ascending again. */
function nextSort(current, field) {
  return current === field ? `${field},desc` : field;
}

/**
 * A list or related list (`segments` is the path after `/data/{tenant}/`, `query` the API's list
 * query): columns from the class's metadata, sortable headers, filters, page size and the API's own
 * `first`/`prev`/`next` links.
 */
export async function listView(segments, query) {
  const typeName = segments[segments.length - 1];
  const related = segments.length === 3;
  const [page, capabilities] = await Promise.all([
    get(`${tenantPath('data', ...segments)}?${query}`),
    get(tenantPath('data', ...segments, 'capabilities')).catch(() => ({ mayCreate: false })),
  ]);
  // A related list's last segment is the relation's name; its rows are listed under their class.
  const className = related ? (Object.keys(page._embedded ?? {})[0] ?? null) : typeName;
  const metadata =
    className === null
      ? { fields: [] }
      : await get(`${tenantPath('metadata', 'dataObject')}?classes=${encodeURIComponent(className)}`);
  const rows = Object.values(page._embedded ?? {}).flat();
  const indexed = metadata.fields.filter((f) => f.indexed && !f.hidden && !NO_COLUMN.has(f.type));
  const columns = indexed.slice(0, MAX_COLUMNS);
  const sort = query.get('sort') ?? '';

  const header = columns.map((field) => {
    const direction = sort === field.name ? ' ▲' : sort === `${field.name},desc` ? ' ▼' : '';
    return h(
      'th',
      {},
      h(
        'a',
        {
          href: listHash(segments, query, { sort: nextSort(sort, field.name), page: null }),
          'data-sort': field.name,
          title: 'Sort',
        },
        field.label,
        direction,
      ),
    );
  });
  const body = rows.map((row) => {
    const self = row._links._self.href;
    return h(
      'tr',
      { 'data-href': self },
      columns.map((field, index) =>
        h(
          'td',
          {},
          index === 0
            ? h('a', { href: viewOf(self) }, displayValue(row[field.name]) || '(no value)')
            : displayValue(row[field.name]),
        ),
      ),
    );
  });

  const filters = [...query.entries()].filter(([name]) => !PAGING.has(name));
  const chips = filters.map(([name, value]) =>
    h(
      'span',
      { class: 'chip', 'data-filter': name },
      value === '' && name.endsWith('_notempty') ? name : `${name} = ${value}`,
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          title: 'Remove filter',
          onclick: () => {
            const next = new URLSearchParams(query);
            next.delete(name);
            next.delete('page');
            location.hash = listHash(segments, next, {});
          },
        },
        '×',
      ),
    ),
  );

  const fieldSelect = h(
    'select',
    { id: 'filter-field', 'aria-label': 'Filter field' },
    indexed.map((f) => h('option', { value: f.name }, f.label)),
  );
  const operatorSelect = h(
    'select',
    { id: 'filter-operator', 'aria-label': 'Operator' },
    OPERATORS.map((o) => h('option', { value: o.suffix }, o.label)),
  );
  const valueInput = h('input', { id: 'filter-value', 'aria-label': 'Filter value', placeholder: 'value' });
  const filterForm = h(
    'form',
    { class: 'toolbar', id: 'filter-form' },
    'Filter:',
    fieldSelect,
    operatorSelect,
    valueInput,
    h('button', { type: 'submit', class: 'secondary' }, 'Add filter'),
  );
  filterForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const operator = OPERATORS.find((o) => o.suffix === operatorSelect.value);
    location.hash = listHash(segments, query, {
      [`${fieldSelect.value}${operator.suffix}`]: operator.noValue ? '' : valueInput.value,
      page: null,
    });
  });

  const sizeSelect = h(
    'select',
    { id: 'page-size', 'aria-label': 'Page size' },
    PAGE_SIZES.map((size) =>
      h('option', { value: size, selected: (query.get('size') ?? '20') === size }, size),
    ),
  );
  sizeSelect.addEventListener('change', () => {
    location.hash = listHash(segments, query, { size: sizeSelect.value, page: null });
  });

  const link = (name, label) => {
    const href = page._links?.[name]?.href;
    return href
      ? h('a', { class: 'button secondary', href: viewOf(href), 'data-page': name }, label)
      : h('button', { type: 'button', class: 'secondary', disabled: true }, label);
  };
  const pageNumber = Number(query.get('page') ?? '0') + 1;

  show(
    takeNotice(),
    h(
      'h1',
      {},
      related
        ? h(
            'span',
            {},
            h('a', { href: `#/object/${segments[0]}/${segments[1]}` }, segments[0]),
            ' / ',
            typeName,
          )
        : typeName,
    ),
    h(
      'div',
      { class: 'toolbar' },
      capabilities.mayCreate && !related
        ? h(
            'a',
            { class: 'button', id: 'create', href: `#/new/${encodeURIComponent(typeName)}` },
            `New ${typeName}`,
          )
        : null,
      h('a', { href: '#/classes' }, 'All classes'),
    ),
    filterForm,
    chips.length === 0 ? null : h('div', { class: 'toolbar', id: 'active-filters' }, chips),
    h(
      'table',
      { id: 'rows' },
      h('thead', {}, h('tr', {}, header)),
      h(
        'tbody',
        {},
        body.length === 0 ? h('tr', {}, h('td', { colspan: columns.length }, 'No objects.')) : body,
      ),
    ),
    h(
      'div',
      { class: 'toolbar' },
      link('first', 'First'),
      link('prev', 'Previous'),
      h('span', { id: 'page-number' }, `Page ${pageNumber}`),
      link('next', 'Next'),
      h('label', {}, 'Per page ', sizeSelect),
    ),
  );
}
