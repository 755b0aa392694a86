/**
 * The global search (`#/search?q=...`): `GET /data/{tenant}/search?q=` over the tenant's search
 * classes, the hits grouped by class, each named (format.js `objectName`) and linked to its object.
 * The header's search box leads here from every view.
 */
import { get, tenantPath } from '../api.js';
import { h, show, viewOf } from '../dom.js';
import { classLabel, objectName } from '../format.js';

/** The header's search box: submits to the search view. */
export function wireGlobalSearch() {
  const form = document.getElementById('global-search');
  const input = document.getElementById('global-search-q');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const q = input.value.trim();
    if (q !== '') location.hash = `#/search?q=${encodeURIComponent(q)}`;
  });
  return input;
}

export async function searchView(query) {
  const q = query.get('q') ?? '';
  const input = document.getElementById('global-search-q');
  if (input && document.activeElement !== input) input.value = q;
  if (q.trim() === '') {
    show(h('h1', {}, 'Search'), h('p', { class: 'muted' }, 'Type in the search box above.'));
    return;
  }
  const page = await get(`${tenantPath('data', 'search')}?q=${encodeURIComponent(q)}&size=50`);
  // Hits are grouped by their class (`_class`), whatever member of `_embedded` carries them.
  const byClass = new Map();
  for (const row of Object.values(page._embedded ?? {}).flat()) {
    byClass.set(row._class, [...(byClass.get(row._class) ?? []), row]);
  }
  const groups = [...byClass.entries()];
  const metadata = await Promise.all(
    groups.map(([plural]) =>
      get(`${tenantPath('metadata', 'dataObject')}?classes=${encodeURIComponent(plural)}`),
    ),
  );
  show(
    h('h1', {}, 'Search results for “', h('span', { id: 'search-query' }, q), '”'),
    groups.length === 0
      ? h('p', { id: 'search-empty' }, 'Nothing found.')
      : groups.map(([plural, rows], index) =>
          h(
            'section',
            { class: 'search-group', 'data-search-class': plural },
            h('h2', {}, classLabel(plural), ' ', h('span', { class: 'count' }, String(rows.length))),
            h(
              'ul',
              { class: 'search-hits' },
              rows.map((row) =>
                h(
                  'li',
                  {},
                  h(
                    'a',
                    { href: viewOf(row._links._self.href), 'data-hit': plural },
                    objectName(metadata[index].fields, row) ?? row._links._self.href.split('/').pop(),
                  ),
                ),
              ),
            ),
          ),
        ),
  );
}
