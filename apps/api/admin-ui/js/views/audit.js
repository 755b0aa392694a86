/**
 * Who can reach one object (`GET /audit/{tenant}/{class}/{id}/access`; the admin role or a system
 * key), under the object's name: one row per access-control row the object carries, with what it
 * allows in words, the roles that hold it and the people it resolves to (whether they can sign in).
 */
import { get, tenantPath } from '../api.js';
import { h, show } from '../dom.js';
import { classLabel, objectName } from '../format.js';

/** `READ` reads "read"; the operations as one phrase. */
function operations(list) {
  return list.map((operation) => operation.toLowerCase()).join(', ');
}

function rolesCell(roles) {
  if (roles.length === 0) return h('span', { class: 'muted' }, 'no role');
  return roles.map((r) =>
    h(
      'div',
      {},
      r.role,
      r.roleGrants ? h('span', { class: 'muted' }, ` (only ${operations(r.roleGrants)})`) : null,
    ),
  );
}

function holdersCell(holders) {
  if (holders === undefined) return h('span', { class: 'muted' }, 'anyone holding one of the roles');
  if (holders.length === 0) return h('span', { class: 'muted' }, 'nobody yet');
  return holders.map((holder) =>
    h(
      'div',
      { 'data-holder': holder.holderName ?? holder.holderId },
      holder.holderName ?? holder.holderId,
      h('span', { class: 'muted' }, holder.accountId ? ' (can sign in)' : ' (no account)'),
    ),
  );
}

export async function auditView(typeName, id) {
  const [report, object] = await Promise.all([
    get(tenantPath('audit', typeName, id, 'access')),
    get(tenantPath('data', typeName, id)),
  ]);
  const metadata = await get(object._links._metadata.href);
  const name = objectName(metadata.fields, object) ?? id;
  document.title = `Who can see ${name} · ODP admin`;
  const objectHash = `#/object/${encodeURIComponent(typeName)}/${encodeURIComponent(id)}`;
  show(
    h(
      'h1',
      {},
      'Who can see ',
      h('a', { href: objectHash, id: 'audit-object' }, name),
      ' ',
      h('span', { class: 'muted kind' }, classLabel(typeName)),
    ),
    h(
      'p',
      { class: 'muted' },
      'Each row is an access-control definition that reaches this object: what it allows, the roles that use it and the people it resolves to. System keys reach every object.',
    ),
    report.grants.length === 0
      ? h(
          'p',
          { id: 'audit-empty' },
          'No access-control row grants access to this object; only system keys reach it.',
        )
      : h(
          'div',
          { class: 'table-scroll' },
          h(
            'table',
            { id: 'audit-grants' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Definition', 'Through', 'Allows', 'Roles', 'People'].map((t) => h('th', {}, t)),
              ),
            ),
            h(
              'tbody',
              {},
              report.grants.map((grant) =>
                h(
                  'tr',
                  { 'data-grant': grant.definition },
                  h('td', {}, grant.definition),
                  h('td', {}, grant.nodeClass),
                  h('td', { 'data-allows': grant.definition }, operations(grant.objectAllows)),
                  h('td', {}, rolesCell(grant.roles)),
                  h('td', {}, holdersCell(grant.holders)),
                ),
              ),
            ),
          ),
        ),
    report.unresolved.length === 0
      ? null
      : h(
          'p',
          { class: 'alert' },
          `${report.unresolved.length} row(s) match no node of the current model: a rebuild is due.`,
        ),
  );
}
