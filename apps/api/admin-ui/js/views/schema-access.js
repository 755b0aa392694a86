/**
 * The access-control definitions of the model (`GET /audit/{tenant}/access-control`, admins only):
 * per definition its anchor, who receives it (the grantToUsers path) and its nodes: which class a
 * node reaches, through which relations, with what operations and how many stored links. For one
 * class, only the definitions with a node on it. Without the admin role the section says so
 * instead of failing the view.
 */
import { get, tenantPath } from '../api.js';
import { h } from '../dom.js';

function nodeClass(node) {
  return node.relatedClass ?? node.class;
}

function nodeItem(node) {
  const path = node.path && node.path.length > 0 ? ` through ${node.path.join(' → ')}` : '';
  const links =
    node.relations.length > 0
      ? ` (${node.relations.map((r) => `${r.count} ${r.relation} links`).join(', ')})`
      : '';
  return h(
    'li',
    {},
    h('code', {}, nodeClass(node)),
    path,
    ': ',
    h('strong', {}, node.operations.map((o) => o.toLowerCase()).join(', ')),
    h('span', { class: 'muted' }, links),
  );
}

function definitionItem(definition) {
  const receivers =
    definition.grantToUsers.length === 0
      ? 'granted through roles only'
      : `held by ${definition.grantToUsers.map((step) => `${step.from} → ${step.relation} → ${step.to}`).join(', then ')}`;
  return h(
    'section',
    { class: 'definition', 'data-definition': definition.name },
    h('h3', {}, definition.name),
    h(
      'p',
      { class: 'muted' },
      definition.anchor ? `Anchored on ${definition.anchor}, ${receivers}.` : `Not anchored: ${receivers}.`,
    ),
    h('ul', {}, definition.nodes.map(nodeItem)),
  );
}

/** The section for the whole model (`qualifiedName` null) or for one class. */
export async function accessControlSection(qualifiedName) {
  const heading = h('h2', {}, 'Access-control definitions');
  let report;
  try {
    report = await get(tenantPath('audit', 'access-control'));
  } catch (error) {
    if (error.status !== 403) throw error;
    return h(
      'section',
      { id: 'schema-access' },
      heading,
      h('p', { class: 'muted' }, 'Reading the access-control definitions needs the admin role.'),
    );
  }
  const definitions =
    qualifiedName === null
      ? report.definitions
      : report.definitions.filter((d) => d.nodes.some((node) => nodeClass(node) === qualifiedName));
  return h(
    'section',
    { id: 'schema-access' },
    heading,
    definitions.length === 0
      ? h('p', { class: 'muted' }, 'No definition reaches this class.')
      : definitions.map(definitionItem),
    report.orphanedNodeIds.length + report.orphanedStepIds.length === 0
      ? null
      : h(
          'p',
          { class: 'alert' },
          'Stored access rows name nodes the current model no longer has: a rebuild is due.',
        ),
  );
}
