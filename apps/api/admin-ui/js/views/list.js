/**
 * A list or related list (`segments` is the path after `/data/{tenant}/`, `query` the API's list
 * query, unchanged in the hash): the chosen columns with formatted values and relation names as
 * links, sortable headers, the search box, filters as chips, LIST facets, an export of the current
 * filters (the page's `excel` link) and the API's own `first`/`prev`/`next` links (keyset cursors);
 * redrawn live when an object of its class changes (live-refresh.js).
 */
import { download, get, tenantPath } from '../api.js';
import { alertBox, h, navigate, show, takeNotice, viewOf } from '../dom.js';
import { classLabel, fieldLabel, formatValue } from '../format.js';
import {
  chosenColumns,
  columnChooser,
  facets,
  filterControls,
  listHash,
  searchBox,
} from './list-controls.js';
import { followList } from './live-refresh.js';

/** Types a list shows no column for and cannot filter or sort on (not indexed, or bulky). */
const NO_COLUMN = new Set(['LONGTEXT', 'TEXTBLOCK', 'JSON', 'SECRET', 'ARRAY', 'FILE', 'IMAGE']);
const DEFAULT_COLUMNS = 6;
const PAGE_SIZES = ['10', '20', '50', '100'];
const ALIGN_END = new Set(['INTEGER', 'DECIMAL', 'CURRENCY', 'PERCENTAGE']);

/** The next sort of a column: ascending, then descending, then ascending again. */
function nextSort(current, name) {
  return current === name ? `${name},desc` : name;
}

/** The columns a list can show: indexed fields, then forward relations (shown by their names). */
function candidateColumns(metadata) {
  const fields = metadata.fields
    .filter((f) => f.indexed && !f.hidden && !NO_COLUMN.has(f.type))
    .map((field) => ({ name: field.name, label: fieldLabel(field), field, sortable: !field.multiple }));
  const relations = (metadata.relations ?? [])
    .filter((r) => r.direction === 'forward')
    .map((relation) => ({
      name: relation.name,
      label: fieldLabel(relation),
      relation,
      sortable: !relation.multiple,
    }));
  return [...fields, ...relations];
}

/** A relation cell: the linked objects' names as links to them. */
function relationCell(link) {
  if (link === undefined) return '';
  const values = 'values' in link ? (link.values ?? []) : 'name' in link ? [link] : [];
  return values.map((value, index) => [
    index === 0 ? null : ', ',
    h('a', { href: viewOf(value.href) }, value.name ?? '(unnamed)'),
  ]);
}

function cell(column, row, index) {
  if (column.relation) return h('td', {}, relationCell(row._links[column.name]));
  const text = formatValue(column.field, row[column.name]);
  const content = index === 0 ? h('a', { href: viewOf(row._links._self.href) }, text || '(no value)') : text;
  return h('td', { class: ALIGN_END.has(column.field.type) ? 'number' : null }, content);
}

export async function listView(segments, query) {
  const typeName = segments[segments.length - 1];
  const related = segments.length === 3;
  const listPath = tenantPath('data', ...segments);
  const [page, capabilities] = await Promise.all([
    get(`${listPath}?${query}`),
    get(`${listPath}/capabilities`).catch(() => ({ mayCreate: false })),
  ]);
  // A related list's last segment is the relation's name; its rows are listed under their class.
  const className = related ? (Object.keys(page._embedded ?? {})[0] ?? null) : typeName;
  const metadata =
    className === null
      ? { fields: [], relations: [] }
      : await get(`${tenantPath('metadata', 'dataObject')}?classes=${encodeURIComponent(className)}`);
  const rows = Object.values(page._embedded ?? {}).flat();
  const candidates = candidateColumns(metadata);
  const chosen = chosenColumns(className ?? typeName);
  const columns =
    chosen === null
      ? candidates.slice(0, DEFAULT_COLUMNS)
      : candidates.filter((c) => chosen.includes(c.name));
  const filterable = candidates.filter((c) => c.field).map((c) => c.field);
  const sort = query.get('sort') ?? '';
  const searching = query.has('q');

  const header = columns.map((column) => {
    const direction = sort === column.name ? ' ▲' : sort === `${column.name},desc` ? ' ▼' : '';
    const ariaSort = direction === ' ▲' ? 'ascending' : direction === ' ▼' ? 'descending' : null;
    return h(
      'th',
      { 'aria-sort': ariaSort, scope: 'col' },
      column.sortable && !searching
        ? h(
            'a',
            {
              href: listHash(segments, query, { sort: nextSort(sort, column.name), page: null, after: null }),
              'data-sort': column.name,
              title: `Sort by ${column.label}`,
            },
            column.label,
            direction,
          )
        : column.label,
    );
  });
  const body = rows.map((row) =>
    h(
      'tr',
      { 'data-href': row._links._self.href },
      columns.map((column, index) => cell(column, row, index)),
    ),
  );

  const sizeSelect = h(
    'select',
    { id: 'page-size', 'aria-label': 'Page size' },
    PAGE_SIZES.map((size) =>
      h('option', { value: size, selected: (query.get('size') ?? '20') === size }, size),
    ),
  );
  sizeSelect.addEventListener('change', () => {
    location.hash = listHash(segments, query, { size: sizeSelect.value, page: null, after: null });
  });
  const link = (name, label) => {
    const href = page._links?.[name]?.href;
    return href
      ? h('a', { class: 'button secondary', href: viewOf(href), 'data-page': name }, label)
      : h('button', { type: 'button', class: 'secondary', disabled: true }, label);
  };
  const pageNumber = Number(query.get('page') ?? '0') + 1;
  const message = h('div');
  const excel = page._links?.excel?.href;
  const exportButton = excel
    ? h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          id: 'export',
          onclick: async () => {
            message.replaceChildren();
            try {
              await download(excel, `${typeName}.xlsx`);
            } catch (error) {
              message.replaceChildren(alertBox(`${error.status ?? ''} ${error.message}`));
            }
          },
        },
        'Export to Excel',
      )
    : null;
  if (className !== null) followList(className, message);
  const facetPanel = related ? null : await facets(listPath, segments, query, metadata.fields);
  const title = related
    ? h(
        'span',
        {},
        h('a', { href: `#/object/${segments[0]}/${segments[1]}` }, classLabel(segments[0])),
        ' / ',
        classLabel(typeName),
      )
    : classLabel(typeName);

  show(
    takeNotice(),
    h('h1', {}, title),
    h(
      'div',
      { class: 'toolbar' },
      capabilities.mayCreate && !related
        ? h('a', { class: 'button', id: 'create', href: `#/new/${encodeURIComponent(typeName)}` }, 'New')
        : null,
      exportButton,
      columnChooser(
        className ?? typeName,
        candidates,
        columns.map((c) => c.name),
        () => navigate(location.hash),
      ),
      h('a', { href: '#/classes' }, 'All classes'),
    ),
    message,
    related ? null : searchBox(segments, query),
    searching ? null : filterControls(segments, query, filterable),
    h(
      'div',
      { class: 'list-layout' },
      h(
        'div',
        { class: 'table-scroll' },
        h(
          'table',
          { id: 'rows' },
          h('thead', {}, h('tr', {}, header)),
          h(
            'tbody',
            {},
            body.length === 0
              ? h('tr', {}, h('td', { colspan: Math.max(columns.length, 1) }, 'No objects.'))
              : body,
          ),
        ),
      ),
      facetPanel,
    ),
    h(
      'div',
      { class: 'toolbar' },
      searching ? null : link('first', 'First'),
      searching ? null : link('prev', 'Previous'),
      searching ? null : h('span', { id: 'page-number' }, `Page ${pageNumber}`),
      link('next', 'Next'),
      h('label', {}, 'Per page ', sizeSelect),
    ),
  );
}
