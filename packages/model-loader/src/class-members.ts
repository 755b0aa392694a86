/**
 * What each class file declares itself: its plural, its own fields and its own relations, with the
 * formulas they hold parsed and kept for type-checking once every class is resolved.
 */
import type { FieldDef, Formula, ListDef, RelationDef } from '@odp/core';
import { FormulaSyntaxError, parseFormula } from '@odp/formulas';
import type { ParseAt } from './class-fields.js';
import { checkField, fieldDef } from './class-fields.js';
import type { ClassInput } from './class-hierarchy.js';
import type { IssueList } from './issues.js';
import { derivePlural } from './plural.js';

/** Plurals that name routes of their own under `/data/{tenant}/`. */
export const RESERVED_PLURALS: ReadonlySet<string> = new Set([
  'items',
  'download',
  'loadDefaultData',
  'import',
  'batch',
]);

/** A parsed formula waiting for the resolved classes to be type-checked against. */
export interface PendingFormula {
  readonly file: string;
  readonly path: string;
  readonly formula: Formula;
  readonly className: string;
}

/** Where a relation is declared, to point issues about it (its inverse side included) at the file. */
export interface RelationOrigin {
  readonly file: string;
  readonly index: number;
  readonly def: RelationDef;
  readonly inverseGiven: boolean;
}

export interface OwnRelations {
  /** The relations each class declares itself. */
  readonly ownRelations: ReadonlyMap<string, readonly RelationDef[]>;
  readonly originOf: ReadonlyMap<string, RelationOrigin>;
  /** Inverse sides by the class they appear on (the relation's target). */
  readonly inverseByTarget: ReadonlyMap<string, readonly RelationDef[]>;
}

/** The plural of every class; a reserved plural or one taken by another class is an issue. */
export function assignPlurals(
  byName: ReadonlyMap<string, ClassInput>,
  issues: IssueList,
): Map<string, string> {
  const pluralOf = new Map<string, string>();
  const pluralOwner = new Map<string, string>();
  for (const [name, { file, doc }] of byName) {
    const plural = doc.plural ?? derivePlural(name);
    const path = doc.plural === undefined ? '/class' : '/plural';
    pluralOf.set(name, plural);
    if (RESERVED_PLURALS.has(plural)) {
      issues.error(file, path, `The plural '${plural}' is reserved`);
      continue;
    }
    const other = pluralOwner.get(plural);
    if (other !== undefined) {
      issues.error(file, path, `Class ${name} has the plural '${plural}' of class ${other}`);
      continue;
    }
    pluralOwner.set(plural, name);
  }
  return pluralOf;
}

/** A parser of formulas that reports those that do not parse and keeps the others in `pending`. */
export function formulaParser(issues: IssueList): { parseAt: ParseAt; pending: readonly PendingFormula[] } {
  const pending: PendingFormula[] = [];
  const parseAt = (source: string, file: string, path: string, className: string): Formula | undefined => {
    try {
      const formula = parseFormula(source);
      pending.push({ file, path, formula, className });
      return formula;
    } catch (error) {
      if (!(error instanceof FormulaSyntaxError)) throw error;
      issues.error(file, path, `Formula does not parse: ${error.message} (at character ${error.position})`);
      return undefined;
    }
  };
  return { parseAt, pending };
}

/** The fields each class declares itself, checked; a field defined twice is an issue. */
export function collectOwnFields(
  byName: ReadonlyMap<string, ClassInput>,
  lists: ReadonlyMap<string, ListDef>,
  brokenListNames: ReadonlySet<string>,
  parseAt: ParseAt,
  issues: IssueList,
): Map<string, Map<string, FieldDef>> {
  const ownFields = new Map<string, Map<string, FieldDef>>();
  for (const [name, { file, doc }] of byName) {
    const fields = new Map<string, FieldDef>();
    (doc.fields ?? []).forEach((field, i) => {
      const at = `/fields/${i}`;
      if (fields.has(field.name)) {
        issues.error(file, `${at}/name`, `Field '${field.name}' is defined twice`);
        return;
      }
      checkField(field, file, at, lists, brokenListNames, issues);
      fields.set(field.name, fieldDef(field, name, file, at, parseAt));
    });
    ownFields.set(name, fields);
  }
  return ownFields;
}

/** The relations each class declares itself, with their origin kept for issues about inverse sides. */
export function collectOwnRelations(
  byName: ReadonlyMap<string, ClassInput>,
  known: (name: string) => boolean,
  pluralOf: ReadonlyMap<string, string>,
  issues: IssueList,
): OwnRelations {
  const ownRelations = new Map<string, RelationDef[]>();
  const origins: RelationOrigin[] = [];
  for (const [name, { file, doc }] of byName) {
    const relations: RelationDef[] = [];
    const seen = new Set<string>();
    (doc.relations ?? []).forEach((relation, index) => {
      const at = `/relations/${index}`;
      if (!known(relation.target)) issues.error(file, `${at}/target`, `Unknown class '${relation.target}'`);
      if (seen.has(relation.name)) {
        issues.error(file, `${at}/name`, `Relation '${relation.name}' is defined twice`);
        return;
      }
      seen.add(relation.name);
      const def: RelationDef = {
        name: relation.name,
        target: relation.target,
        multiple: relation.multiple ?? false,
        required: relation.required ?? false,
        cascadeDelete: relation.cascadeDelete ?? false,
        inverse: relation.inverse ?? pluralOf.get(name) ?? derivePlural(name),
        declaredOn: name,
        key: `${name}#${relation.name}`,
      };
      relations.push(def);
      origins.push({ file, index, def, inverseGiven: relation.inverse !== undefined });
    });
    ownRelations.set(name, relations);
  }
  const originOf = new Map(origins.map((o) => [o.def.key, o]));
  /** Inverse sides by the class they appear on (the relation's target). */
  const inverseByTarget = new Map<string, RelationDef[]>();
  for (const { def } of origins) {
    const list = inverseByTarget.get(def.target) ?? [];
    list.push(def);
    inverseByTarget.set(def.target, list);
  }
  return { ownRelations, originOf, inverseByTarget };
}
