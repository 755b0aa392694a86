/**
 * The controls above a list: the full-text search box (`q`), the filter form and its chips (one
 * chip per filter of the API's list query), the LIST facets (`GET .../distinct?distinct=<field>`:
 * each value with its count, a click filters on it) and the column choice (kept per class in this
 * browser's localStorage). Each control changes the view's hash; the list view renders from it.
 */
import { get } from '../api.js';
import { h } from '../dom.js';
import { fieldLabel, formatValue } from '../format.js';

/** Filter operators of the list API, as parameter suffixes (docs/data-api.md). */
export const OPERATORS = [
  { suffix: '', label: 'equals' },
  { suffix: '_startswith', label: 'starts with' },
  { suffix: '_from', label: 'from (>=)' },
  { suffix: '_to', label: 'to (<=)' },
  { suffix: '_notempty', label: 'has a value', noValue: true },
];
/** Query parameters that page or order a list rather than filter it. */
export const PAGING = new Set(['page', 'size', 'sort', 'after', '_offset', 'cursor', 'q']);
const FACET_VALUES = 8;

/** The hash of a list with `changes` applied to its query (null deletes a parameter). */
export function listHash(segments, query, changes) {
  const next = new URLSearchParams(query);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) next.delete(name);
    else next.set(name, value);
  }
  const search = next.toString();
  return `#/list/${segments.map(encodeURIComponent).join('/')}${search === '' ? '' : `?${search}`}`;
}

/** A filter parameter as a person reads it: `companyType=bv` is "Legal form is Private limited company". */
function chipText(fields, name, value) {
  const operator = [...OPERATORS].reverse().find((o) => o.suffix !== '' && name.endsWith(o.suffix));
  const fieldName = operator ? name.slice(0, -operator.suffix.length) : name;
  const field = fields.find((f) => f.name === fieldName);
  const label = field ? fieldLabel(field) : fieldName;
  if (operator?.noValue) return `${label} has a value`;
  return `${label} ${operator ? operator.label : 'is'} ${formatValue(field, value)}`;
}

/** The search box: a full-text query over this class (`q`), which replaces filters and sort. */
export function searchBox(segments, query) {
  const input = h('input', {
    id: 'list-search',
    type: 'search',
    'aria-label': 'Search this list',
    placeholder: 'Search this list',
    value: query.get('q') ?? '',
  });
  const form = h(
    'form',
    { class: 'toolbar', id: 'list-search-form', role: 'search' },
    input,
    h('button', { type: 'submit', class: 'secondary' }, 'Search'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const q = input.value.trim();
    location.hash =
      q === ''
        ? listHash(segments, new URLSearchParams(), {})
        : listHash(segments, new URLSearchParams(), { q });
  });
  return form;
}

/** The filter form (field, operator, value) and one removable chip per active filter. */
export function filterControls(segments, query, fields) {
  const fieldSelect = h(
    'select',
    { id: 'filter-field', 'aria-label': 'Filter field' },
    fields.map((f) => h('option', { value: f.name }, fieldLabel(f))),
  );
  const operatorSelect = h(
    'select',
    { id: 'filter-operator', 'aria-label': 'Operator' },
    OPERATORS.map((o) => h('option', { value: o.suffix }, o.label)),
  );
  const valueInput = h('input', { id: 'filter-value', 'aria-label': 'Filter value', placeholder: 'value' });
  const form = h(
    'form',
    { class: 'toolbar', id: 'filter-form' },
    h('span', {}, 'Filter:'),
    fieldSelect,
    operatorSelect,
    valueInput,
    h('button', { type: 'submit', class: 'secondary' }, 'Add filter'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const operator = OPERATORS.find((o) => o.suffix === operatorSelect.value);
    location.hash = listHash(segments, query, {
      [`${fieldSelect.value}${operator.suffix}`]: operator.noValue ? '' : valueInput.value,
      page: null,
      after: null,
    });
  });
  const chips = [...query.entries()]
    .filter(([name]) => !PAGING.has(name))
    .map(([name, value]) =>
      h(
        'span',
        { class: 'chip', 'data-filter': name },
        chipText(fields, name, value),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            'aria-label': `Remove filter ${chipText(fields, name, value)}`,
            onclick: () => {
              const next = new URLSearchParams(query);
              next.delete(name);
              location.hash = listHash(segments, next, { page: null, after: null });
            },
          },
          '×',
        ),
      ),
    );
  return [form, chips.length === 0 ? null : h('div', { class: 'toolbar', id: 'active-filters' }, chips)];
}

/**
 * Facets of the list's LIST fields: each value's label and count under the current filters
 * (`distinct` answers `{values: [{value, count}]}`); clicking a value filters on it.
 */
export async function facets(listPath, segments, query, fields) {
  const lists = fields.filter((f) => f.type === 'LIST' && !f.multiple);
  if (lists.length === 0 || query.has('q')) return null;
  const filters = new URLSearchParams([...query.entries()].filter(([name]) => !PAGING.has(name)));
  const answers = await Promise.all(
    lists.map((field) => {
      const params = new URLSearchParams(filters);
      params.set('distinct', field.name);
      params.set('sort', 'count,desc');
      return get(`${listPath}/distinct?${params}`).catch(() => ({ values: [] }));
    }),
  );
  return h(
    'aside',
    { class: 'facets', id: 'facets', 'aria-label': 'Facets' },
    lists.map((field, index) =>
      h(
        'section',
        { 'data-facet': field.name },
        h('h2', {}, fieldLabel(field)),
        h(
          'ul',
          {},
          answers[index].values.slice(0, FACET_VALUES).map(({ value, count }) =>
            h(
              'li',
              {},
              value === null
                ? h('span', { class: 'muted' }, `(none) ${count}`)
                : h(
                    'a',
                    {
                      href: listHash(segments, query, { [field.name]: value, page: null, after: null }),
                      'data-facet-value': value,
                    },
                    formatValue(field, value),
                    ' ',
                    h('span', { class: 'count' }, String(count)),
                  ),
            ),
          ),
        ),
      ),
    ),
  );
}

const COLUMNS_KEY = 'odp.admin.columns.';

/** The chosen columns of a class (names), or null for the default. */
export function chosenColumns(className) {
  try {
    const names = JSON.parse(localStorage.getItem(COLUMNS_KEY + className) ?? 'null');
    return Array.isArray(names) ? names : null;
  } catch {
    return null;
  }
}

/** A disclosure with one checkbox per column; a change is kept for the class and re-renders. */
export function columnChooser(className, candidates, shown, rerender) {
  const boxes = candidates.map((column) =>
    h(
      'label',
      { class: 'choice' },
      h('input', {
        type: 'checkbox',
        value: column.name,
        checked: shown.includes(column.name),
        'data-column': column.name,
      }),
      ' ',
      column.label,
    ),
  );
  const details = h(
    'details',
    { class: 'columns', id: 'column-chooser' },
    h('summary', {}, 'Columns'),
    h('div', {}, boxes),
  );
  details.addEventListener('change', () => {
    const names = boxes
      .map((b) => b.querySelector('input'))
      .filter((i) => i.checked)
      .map((i) => i.value);
    localStorage.setItem(COLUMNS_KEY + className, JSON.stringify(names));
    rerender();
  });
  return details;
}
