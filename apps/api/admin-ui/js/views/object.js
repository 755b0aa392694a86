import { call, get, tenantPath } from '../api.js';
import { alertBox, h, notice, show, takeNotice, viewOf } from '../dom.js';
import { classLabel, fieldLabel, formatTimestamp, objectName } from '../format.js';
import { fieldContent } from './field-display.js';
import { followObject } from './live-refresh.js';
import { objectActions } from './object-actions.js';

/** `_links` members the platform adds; every other member is a relation. */
const PLATFORM_LINKS = new Set(['_self', '_scripts', '_metadata', '_relatedDataObject', '_form']);

/** A relation's links: one related object (`{href, name}`), or a related list with its current values. */
function relationItem(name, link) {
  const label = fieldLabel({ name });
  if (!('values' in link) && 'name' in link) {
    return [
      h('dt', {}, label),
      h('dd', {}, h('a', { href: viewOf(link.href), 'data-relation': name }, link.name ?? link.href)),
    ];
  }
  const values = link.values ?? [];
  return [
    h('dt', {}, label),
    h(
      'dd',
      {},
      values.length === 0
        ? h('span', { class: 'muted' }, 'none ')
        : values.map((value, index) => [
            index === 0 ? null : ', ',
            h('a', { href: viewOf(value.href), 'data-relation': name }, value.name ?? value.href),
          ]),
      ' ',
      h('a', { href: viewOf(link.href), class: 'muted', 'data-related-list': name }, '(open list)'),
    ),
  ];
}

/**
 * One object (`GET /data/{tenant}/{class}/{id}`): its fields with the labels of its classes'
 * metadata, its relations as links to follow, and, as its capabilities allow, edit and delete; the
 * audit of who can reach it; shown again live when it changes elsewhere (live-refresh.js).
 */
export async function objectView(typeName, id) {
  const object = await get(tenantPath('data', typeName, id));
  const [metadata, capabilities] = await Promise.all([
    get(object._links._metadata.href),
    get(tenantPath('data', typeName, id, 'capabilities')).catch(() => ({
      mayModify: false,
      mayDelete: false,
    })),
  ]);
  const fields = metadata.fields.filter((field) => object[field.name] !== undefined);
  const relations = Object.entries(object._links).filter(([name]) => !PLATFORM_LINKS.has(name));
  const name = objectName(metadata.fields, object);
  const actions = await objectActions({ typeName, id, object, metadata, capabilities });
  document.title = `${name ?? id} · ${classLabel(typeName)} · ODP admin`;

  const status = h('div');
  followObject(id, status);
  const confirm = h(
    'button',
    {
      type: 'button',
      class: 'danger',
      id: 'confirm-delete',
      hidden: true,
      onclick: async () => {
        confirm.disabled = true;
        try {
          await call('DELETE', tenantPath('data', typeName, id));
          notice(`Deleted ${typeName} ${id}.`);
          location.hash = `#/list/${encodeURIComponent(typeName)}`;
        } catch (error) {
          status.replaceChildren(alertBox(`${error.status ?? ''} ${error.message}`));
          confirm.disabled = false;
        }
      },
    },
    'Delete permanently',
  );
  const remove = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      id: 'delete',
      disabled: !capabilities.mayDelete,
      onclick: () => {
        confirm.hidden = false;
        remove.hidden = true;
      },
    },
    'Delete',
  );

  show(
    takeNotice(),
    h(
      'h1',
      {},
      h('span', { id: 'object-name' }, name ?? classLabel(object._class)),
      ' ',
      h('span', { class: 'muted kind' }, classLabel(object._class)),
    ),
    h(
      'div',
      { class: 'toolbar' },
      capabilities.mayModify
        ? h(
            'a',
            {
              class: 'button',
              id: 'edit',
              href: `#/edit/${encodeURIComponent(typeName)}/${encodeURIComponent(id)}`,
            },
            'Edit',
          )
        : null,
      remove,
      confirm,
      h(
        'a',
        {
          class: 'button secondary',
          id: 'audit',
          href: `#/audit/${encodeURIComponent(typeName)}/${encodeURIComponent(id)}`,
        },
        'Who can see it',
      ),
      h('a', { href: `#/list/${encodeURIComponent(typeName)}` }, `All ${classLabel(typeName).toLowerCase()}`),
    ),
    status,
    h(
      'p',
      { class: 'muted' },
      `Classes: ${object._classes.map(classLabel).join(', ')}. Created ${formatTimestamp(object._creationDate)}, modified ${formatTimestamp(object._modificationDate)}. Id `,
      h('span', { id: 'object-id' }, id),
    ),
    h('h2', {}, 'Fields'),
    h(
      'dl',
      { class: 'props', id: 'fields' },
      fields.map((field) => [
        h('dt', {}, fieldLabel(field)),
        h('dd', { 'data-field': field.name }, fieldContent(field, id, object[field.name])),
      ]),
    ),
    h('h2', {}, 'Relations'),
    relations.length === 0
      ? h('p', { class: 'muted' }, 'No relations.')
      : h(
          'dl',
          { class: 'props', id: 'relations' },
          relations.map(([name, link]) => relationItem(name, link)),
        ),
    actions,
  );
}
