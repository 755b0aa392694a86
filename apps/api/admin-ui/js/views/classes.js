import { get, tenantPath } from '../api.js';
import { h, show, takeNotice } from '../dom.js';
import { classLabel } from '../format.js';

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
        h('tr', {}, h('th', {}, 'Class'), h('th', {}, 'Model name'), h('th', {}, 'Extends'), h('th', {}, '')),
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
              h(
                'a',
                { href: `#/list/${encodeURIComponent(cls.name)}`, 'data-class': cls.name },
                classLabel(cls.name),
              ),
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
