import type { AccessControlDef, AclNodeDef, AclOperation, ClassDef, RelationEnd, RoleDef } from '@odp/core';
import type { AccessControlFile, RolesFile, Sourced } from './files.js';
import type { IssueList } from './issues.js';

/**
 * Walks relation names from a class; each name must be a relation end (forward or inverse) of the
 * class reached so far. Returns the steps, or undefined after reporting the first unresolved name.
 */
function walk(
  start: string,
  names: readonly string[],
  classes: ReadonlyMap<string, ClassDef>,
  report: (index: number, message: string) => void,
): RelationEnd[] | undefined {
  const steps: RelationEnd[] = [];
  let current = start;
  for (const [index, name] of names.entries()) {
    const end = classes.get(current)?.relations.get(name);
    if (!end) {
      report(index, `Class ${current} has no relation '${name}'`);
      return undefined;
    }
    steps.push(end);
    current = end.otherClass;
  }
  return steps;
}

function reportDuplicates(ids: readonly string[], report: (index: number, id: string) => void): void {
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    if (seen.has(id)) report(index, id);
    seen.add(id);
  });
}

/**
 * Resolves access-control definitions (model-format section 10): anchors, holder steps
 * (`grantToUsers`) and node paths to relation ends and the classes they reach; path-less nodes to their
 * class.
 */
export function buildAccessControl(
  sources: readonly Sourced<AccessControlFile>[],
  classes: ReadonlyMap<string, ClassDef>,
  brokenClassNames: ReadonlySet<string>,
  issues: IssueList,
): AccessControlDef[] {
  const definitions: AccessControlDef[] = [];
  const fileOf = new Map<string, string>();
  for (const { file, doc } of sources) {
    const earlier = fileOf.get(doc.name);
    if (earlier !== undefined) {
      issues.error(file, '/name', `Access-control definition '${doc.name}' is already defined in ${earlier}`);
      continue;
    }
    fileOf.set(doc.name, file);
    const unknownClass = (name: string, path: string): boolean => {
      if (classes.has(name)) return false;
      if (!brokenClassNames.has(name)) issues.error(file, path, `Unknown class '${name}'`);
      return true;
    };
    reportDuplicates(
      doc.nodes.map((n) => n.id),
      (i, id) => issues.error(file, `/nodes/${i}/id`, `Node id '${id}' is used twice`),
    );
    reportDuplicates(
      (doc.grantToUsers ?? []).map((s) => s.id),
      (i, id) => issues.error(file, `/grantToUsers/${i}/id`, `Step id '${id}' is used twice`),
    );
    const nodes: AclNodeDef[] = [];
    if (doc.anchor === undefined) {
      if ((doc.grantToUsers ?? []).length > 0) {
        issues.error(
          file,
          '/grantToUsers',
          'A definition without anchor has no holders; it is granted through roles',
        );
      }
      doc.nodes.forEach((node, i) => {
        if (node.path !== undefined) {
          issues.error(
            file,
            `/nodes/${i}/path`,
            `A node of a definition without anchor names a 'class', not a path`,
          );
        }
        if (node.class === undefined) {
          issues.error(file, `/nodes/${i}`, `A node of a definition without anchor needs a 'class'`);
          return;
        }
        if (unknownClass(node.class, `/nodes/${i}/class`)) return;
        nodes.push({ id: node.id, appliesTo: node.class, operations: node.operations });
      });
      definitions.push({ name: doc.name, grantToUsers: [], nodes });
      continue;
    }
    const anchor = doc.anchor;
    if (unknownClass(anchor, '/anchor')) continue;
    const holderSteps = walk(
      anchor,
      (doc.grantToUsers ?? []).map((s) => s.relation),
      classes,
      (index, message) => issues.error(file, `/grantToUsers/${index}/relation`, message),
    );
    doc.nodes.forEach((node, i) => {
      if (node.class !== undefined) {
        issues.error(
          file,
          `/nodes/${i}/class`,
          `A node of an anchored definition uses a 'path', not a 'class'`,
        );
        return;
      }
      if (node.path === undefined) {
        issues.error(
          file,
          `/nodes/${i}`,
          `A node of an anchored definition needs a 'path' ([] for the anchor)`,
        );
        return;
      }
      const steps = walk(anchor, node.path, classes, (index, message) =>
        issues.error(file, `/nodes/${i}/path/${index}`, message),
      );
      if (!steps) return;
      nodes.push({
        id: node.id,
        path: node.path,
        steps,
        appliesTo: steps.at(-1)?.otherClass ?? anchor,
        operations: node.operations,
      });
    });
    definitions.push({
      name: doc.name,
      anchor,
      grantToUsers: (doc.grantToUsers ?? []).flatMap((step, i) => {
        const relation = holderSteps?.[i];
        return relation ? [{ id: step.id, relation }] : [];
      }),
      nodes,
    });
  }
  return definitions;
}

/** Resolves roles; every grant must name a definition, and narrowing operations should be ones it grants. */
export function buildRoles(
  sources: readonly Sourced<RolesFile>[],
  definitions: readonly AccessControlDef[],
  brokenDefinitionNames: ReadonlySet<string>,
  issues: IssueList,
): RoleDef[] {
  const roles: RoleDef[] = [];
  const fileOf = new Map<string, string>();
  for (const { file, doc } of sources) {
    doc.roles.forEach((role, i) => {
      const earlier = fileOf.get(role.name);
      if (earlier !== undefined) {
        issues.error(file, `/roles/${i}/name`, `Role '${role.name}' is already defined in ${earlier}`);
        return;
      }
      fileOf.set(role.name, file);
      role.grants.forEach((grant, j) => {
        const definition = definitions.find((d) => d.name === grant.definition);
        if (!definition) {
          if (!brokenDefinitionNames.has(grant.definition)) {
            issues.error(
              file,
              `/roles/${i}/grants/${j}/definition`,
              `Unknown access-control definition '${grant.definition}'`,
            );
          }
          return;
        }
        const offered = new Set<AclOperation>(definition.nodes.flatMap((n) => n.operations));
        const missing = (grant.operations ?? []).filter((op) => !offered.has(op));
        if (missing.length > 0) {
          issues.warning(
            file,
            `/roles/${i}/grants/${j}/operations`,
            `Definition '${definition.name}' grants ${missing.join(', ')} on no node`,
          );
        }
      });
      roles.push({ name: role.name, grants: role.grants });
    });
  }
  return roles;
}
