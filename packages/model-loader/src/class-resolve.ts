/**
 * Resolving one class once every class file has been read: its inherited fields (a field inherited
 * with two types is an issue), its forward and inverse relation ends (a name taken twice is an
 * issue), its scripts and reports.
 */
import type { ClassDef, FieldDef, RelationEnd, ReportDef } from '@odp/core';
import type { ParseAt } from './class-fields.js';
import type { ClassInput, Hierarchy } from './class-hierarchy.js';
import type { OwnRelations, RelationOrigin } from './class-members.js';
import { scriptDef } from './class-scripts.js';
import type { IssueList } from './issues.js';
import { derivePlural } from './plural.js';

/** What the earlier phases found, read to resolve each class. */
export interface Resolution {
  readonly byName: ReadonlyMap<string, ClassInput>;
  readonly hierarchy: Hierarchy;
  readonly pluralOf: ReadonlyMap<string, string>;
  readonly ownFields: ReadonlyMap<string, ReadonlyMap<string, FieldDef>>;
  readonly relations: OwnRelations;
  readonly templates: ReadonlySet<string>;
  readonly parseAt: ParseAt;
  readonly issues: IssueList;
}

/** The ClassDef of class `name`, as far as its problems allow. */
export function resolveClass(name: string, resolution: Resolution): ClassDef {
  const { byName, hierarchy, pluralOf, templates, parseAt, issues } = resolution;
  const { descendantsOf } = hierarchy;
  const { file, doc, system } = byName.get(name) as ClassInput;
  const ancestors = hierarchy.ancestorsOf.get(name) ?? [name];
  const fields = inheritFields(name, ancestors, resolution);
  const relations = relationEnds(name, ancestors, fields, resolution);
  return {
    name,
    plural: pluralOf.get(name) ?? derivePlural(name),
    extends: doc.extends ?? [],
    ancestors,
    descendants: descendantsOf.get(name) ?? [name],
    abstract: doc.abstract ?? false,
    attachableTo: doc.attachableTo ?? null,
    nameFormula:
      doc.nameFormula === undefined ? undefined : parseAt(doc.nameFormula, file, '/nameFormula', name),
    fields,
    relations,
    scripts: (doc.scripts ?? []).flatMap((script, i) =>
      scriptDef(script, name, file, `/scripts/${i}`, templates, issues, parseAt),
    ),
    reports: (doc.reports ?? []).map((report, i): ReportDef => {
      if (!templates.has(report.template)) {
        issues.error(
          file,
          `/reports/${i}/template`,
          `Template '${report.template}' is not in the repository`,
        );
      }
      return { ...report, languages: report.languages ?? ['en'] };
    }),
    system,
  };
}

/** The fields of class `name`: its ancestors' first, overridden by nearer ones. */
function inheritFields(
  name: string,
  ancestors: readonly string[],
  { byName, ownFields, issues }: Resolution,
): Map<string, FieldDef> {
  const { file, doc } = byName.get(name) as ClassInput;
  const fields = new Map<string, FieldDef>();
  for (const a of [...ancestors].reverse()) {
    for (const [fieldName, field] of ownFields.get(a) ?? []) {
      const existing = fields.get(fieldName);
      if (existing && existing.type !== field.type && existing.declaredOn !== field.declaredOn) {
        const own = a === name;
        const index = (doc.fields ?? []).findIndex((f) => f.name === fieldName);
        issues.error(
          file,
          own ? `/fields/${index}/type` : '/extends',
          own
            ? `Field '${fieldName}' redefines the ${existing.type} field of ${existing.declaredOn} as ${field.type}`
            : `Field '${fieldName}' is inherited as ${existing.type} from ${existing.declaredOn} and as ${field.type} from ${a}`,
        );
      }
      fields.set(fieldName, field);
    }
  }
  return fields;
}

/** The relation ends of class `name`: forward ends of its and its ancestors' relations, then inverse ends. */
function relationEnds(
  name: string,
  ancestors: readonly string[],
  fields: ReadonlyMap<string, FieldDef>,
  { relations: { ownRelations, originOf, inverseByTarget }, issues }: Resolution,
): Map<string, RelationEnd> {
  const relations = new Map<string, RelationEnd>();
  const claim = (end: RelationEnd) => {
    const clash = fields.has(end.name) ? `field '${end.name}'` : describeEnd(relations.get(end.name));
    const same = relations.get(end.name)?.relation.key === end.relation.key;
    if (clash !== undefined && !same) {
      const origin = originOf.get(end.relation.key);
      if (origin) {
        const path = endPath(origin, end);
        const side = end.direction === 'forward' ? 'Relation' : 'Inverse side';
        issues.error(origin.file, path, `${side} '${end.name}' collides with ${clash} on class ${name}`);
      }
      return;
    }
    relations.set(end.name, end);
  };
  for (const a of [...ancestors].reverse()) {
    for (const def of ownRelations.get(a) ?? []) {
      claim({
        name: def.name,
        direction: 'forward',
        relation: def,
        otherClass: def.target,
        multiple: def.multiple,
      });
    }
  }
  for (const a of ancestors) {
    for (const def of inverseByTarget.get(a) ?? []) {
      claim({
        name: def.inverse,
        direction: 'inverse',
        relation: def,
        otherClass: def.declaredOn,
        multiple: true,
      });
    }
  }
  return relations;
}

/** Pointer to the member that names a relation end: its `name`, its `inverse`, or the relation when the inverse is defaulted. */
export function endPath(origin: RelationOrigin, end: RelationEnd): string {
  if (end.direction === 'forward') return `/relations/${origin.index}/name`;
  return `/relations/${origin.index}${origin.inverseGiven ? '/inverse' : ''}`;
}

function describeEnd(end: RelationEnd | undefined): string | undefined {
  if (!end) return undefined;
  return end.direction === 'forward'
    ? `relation '${end.name}' of ${end.relation.declaredOn}`
    : `the inverse side of ${end.relation.key}`;
}
