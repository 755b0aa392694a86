/**
 * The model, read-only (`#/schema` and `#/schema/<class>`): its classes, and for one class its
 * fields (type, label, flags, formula, default, LIST values), relations (direction, target,
 * multiplicity, cascade), reports and the access-control definitions whose nodes reach it. Built
 * from `GET /metadata/{tenant}/classes` and `.../dataObject` (every role may read them) and
 * `GET /audit/{tenant}/access-control` (admins only: others see that it needs the admin role).
 */
import { get, tenantPath } from '../api.js';
import { dataTable, h, show } from '../dom.js';
import { classLabel } from '../format.js';
import { accessControlSection } from './schema-access.js';

function flags(field) {
  return [
    field.required && 'required',
    field.unique && 'unique',
    field.multiple && 'multiple',
    field.history && 'history',
    field.hidden && 'hidden',
    field.readOnly && 'computed',
    field.writeOnly && !field.hidden && 'write-only',
  ]
    .filter(Boolean)
    .join(', ');
}

function defaultText(field) {
  if (!field.default) return '';
  return 'formula' in field.default ? `= ${field.default.formula}` : JSON.stringify(field.default.value);
}

function fieldRow(field) {
  return h(
    'tr',
    { 'data-schema-field': field.name },
    h(
      'td',
      {},
      h('code', {}, field.name),
      field.label !== field.name ? h('div', { class: 'muted' }, field.label) : null,
    ),
    h(
      'td',
      {},
      field.type,
      field.list ? h('div', { class: 'muted' }, field.list.values.map((v) => v.label).join(', ')) : null,
    ),
    h('td', {}, flags(field)),
    h('td', { 'data-formula': field.name }, field.formula ? h('code', {}, field.formula) : ''),
    h('td', {}, defaultText(field)),
    h('td', {}, field.declaredOn),
  );
}

function relationRow(relation) {
  return h(
    'tr',
    { 'data-schema-relation': relation.name },
    h('td', {}, h('code', {}, relation.name)),
    h('td', {}, relation.direction === 'forward' ? 'forward' : 'inverse (read-only)'),
    h(
      'td',
      {},
      h('a', { href: `#/schema/${encodeURIComponent(relation.target)}` }, classLabel(relation.target)),
    ),
    h('td', {}, relation.multiple ? 'many' : 'one'),
    h(
      'td',
      {},
      [relation.required && 'required', relation.cascadeDelete && 'deletes with its object']
        .filter(Boolean)
        .join(', '),
    ),
  );
}

async function classesIndex() {
  const { classes } = await get(tenantPath('metadata', 'classes'));
  show(
    h('h1', {}, 'The model'),
    h('p', { class: 'muted' }, 'The classes of this tenant as its model defines them; read-only.'),
    dataTable(
      'schema-classes',
      ['Class', 'Model name', 'Extends', 'Kind'],
      classes.map((cls) =>
        h(
          'tr',
          {},
          h(
            'td',
            {},
            h(
              'a',
              { href: `#/schema/${encodeURIComponent(cls.name)}`, 'data-schema-class': cls.name },
              classLabel(cls.name),
            ),
          ),
          h('td', {}, h('code', {}, cls.qualifiedName)),
          h('td', {}, cls.extends.map(classLabel).join(', ')),
          h(
            'td',
            {},
            cls.abstract
              ? 'abstract'
              : cls.attachableTo
                ? `role of ${cls.attachableTo.map(classLabel).join(', ')}`
                : 'concrete',
          ),
        ),
      ),
    ),
    await accessControlSection(null),
  );
}

async function classDetail(plural) {
  const [{ classes }, metadata] = await Promise.all([
    get(tenantPath('metadata', 'classes')),
    get(`${tenantPath('metadata', 'dataObject')}?classes=${encodeURIComponent(plural)}`),
  ]);
  const cls = classes.find((c) => c.name === plural);
  document.title = `${classLabel(plural)} · The model · ODP admin`;
  show(
    h('p', {}, h('a', { href: '#/schema' }, 'The model')),
    h('h1', {}, classLabel(plural), ' ', h('span', { class: 'muted kind' }, cls?.qualifiedName ?? '')),
    h(
      'p',
      { class: 'muted' },
      cls?.extends.length ? `Extends ${cls.extends.map(classLabel).join(', ')}. ` : '',
      metadata.nameFormula ? ['Named by ', h('code', {}, metadata.nameFormula), '. '] : '',
      h('a', { href: `#/list/${encodeURIComponent(plural)}` }, 'Open the list'),
    ),
    h('h2', {}, 'Fields'),
    dataTable(
      'schema-fields',
      ['Field', 'Type', 'Flags', 'Formula', 'Default', 'Declared on'],
      metadata.fields.map(fieldRow),
    ),
    h('h2', {}, 'Relations'),
    metadata.relations.length === 0
      ? h('p', { class: 'muted' }, 'No relations.')
      : dataTable(
          'schema-relations',
          ['Relation', 'Direction', 'Target', 'Links', 'Rules'],
          metadata.relations.map(relationRow),
        ),
    h('h2', {}, 'Reports'),
    (metadata.reports ?? []).length === 0
      ? h('p', { class: 'muted' }, 'No reports.')
      : h(
          'ul',
          { id: 'schema-reports' },
          metadata.reports.map((r) =>
            h('li', {}, `${r.name}: ${r.format.toUpperCase()} in ${r.languages.join(', ')}`),
          ),
        ),
    await accessControlSection(cls?.qualifiedName ?? null),
  );
}

export function schemaView([plural]) {
  return plural === undefined ? classesIndex() : classDetail(plural);
}
