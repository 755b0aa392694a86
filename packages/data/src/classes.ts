/**
 * Class-level rules of the object model: which fields and relations an object has given its
 * classes, gained role classes, structural eligibility and the resolution of related paths.
 */
import { NotFoundError, ValidationError } from '@odp/core';
import type { ClassDef, FieldDef, Model, RelationEnd } from '@odp/core';

/**
 * The classes a route branch reaches: `data` (`/data/...`, and everything built on the data
 * service: search, capabilities, audit) the model's own classes, `system` (`/system/...`) the
 * built-in system classes only. Whatever the credential, a system class is never reachable
 * through `/data/...`: its plural is an unknown class there (404), as is its objects' id.
 */
export type ClassReach = 'data' | 'system';

/** Whether objects of `cls` belong to `reach`. */
export function inReach(cls: ClassDef | undefined, reach: ClassReach): cls is ClassDef {
  return cls !== undefined && cls.system === (reach === 'system');
}

/** The class a plural REST name denotes within `reach`; 404 for every other name. */
export function classByPlural(model: Model, plural: string, reach: ClassReach): ClassDef {
  const cls = model.byPlural.get(plural);
  if (!cls || !inReach(cls, reach)) throw new NotFoundError('Unknown class.');
  return cls;
}

/** `names` and all their ancestors, in first-seen order. */
export function withAncestors(model: Model, names: readonly string[]): string[] {
  const result = new Set<string>();
  for (const name of names)
    for (const ancestor of model.classes.get(name)?.ancestors ?? [name]) result.add(ancestor);
  return [...result];
}

/**
 * Combinations of classes remembered per model (a model never changes: a new version is a new
 * object). Every write and render asks for its object's fields and relations several times; a
 * tenant's objects have few combinations, and past this many the memory starts over.
 */
const MAX_COMBINATIONS = 1000;

interface ClassesMembers {
  readonly fields: ReadonlyMap<string, FieldDef>;
  readonly relations: ReadonlyMap<string, RelationEnd>;
}

const membersByModel = new WeakMap<Model, Map<string, ClassesMembers>>();

function membersOf(model: Model, classes: readonly string[]): ClassesMembers {
  let byClasses = membersByModel.get(model);
  if (byClasses === undefined) {
    byClasses = new Map();
    membersByModel.set(model, byClasses);
  }
  const key = classes.length === 1 ? classes[0]! : classes.join('\n');
  let members = byClasses.get(key);
  if (members === undefined) {
    const fields = new Map<string, FieldDef>();
    const relations = new Map<string, RelationEnd>();
    for (const name of classes) {
      const cls = model.classes.get(name);
      for (const [fieldName, field] of cls?.fields ?? []) fields.set(fieldName, field);
      for (const [endName, end] of cls?.relations ?? []) relations.set(endName, end);
    }
    members = { fields, relations };
    if (byClasses.size >= MAX_COMBINATIONS) byClasses.clear();
    byClasses.set(key, members);
  }
  return members;
}

/** The fields of an object with these classes (own, inherited and gained), by name. */
export function fieldsOf(model: Model, classes: readonly string[]): ReadonlyMap<string, FieldDef> {
  return membersOf(model, classes).fields;
}

/** The relation ends of an object with these classes, by name. */
export function relationsOf(model: Model, classes: readonly string[]): ReadonlyMap<string, RelationEnd> {
  return membersOf(model, classes).relations;
}

/** A class an object can be created as: not abstract, not a role class. */
export function isConcrete(cls: ClassDef): boolean {
  return !cls.abstract && cls.attachableTo === null;
}

/** 400 unless objects can be created as `cls` directly (it is concrete). */
export function assertConcrete(cls: ClassDef): void {
  if (!isConcrete(cls)) {
    throw new ValidationError(
      `${cls.plural} cannot be created directly; choose a concrete class with ?class=.`,
      [{ field: 'class', message: 'is required for an abstract class' }],
    );
  }
}

/** Whether an object whose classes are `classes` is (or inherits from) one of `targets`. */
export function isAny(classes: readonly string[], targets: readonly string[]): boolean {
  return targets.some((target) => classes.includes(target));
}

/**
 * Structural eligibility (Get one rule 2): an object of BASIC class `basicClass` may be addressed
 * under `cls` when some role class at or below `cls` is attachable to the BASIC class or an ancestor.
 */
export function isEligible(model: Model, basicClass: string, cls: ClassDef): boolean {
  const lineage = model.classes.get(basicClass)?.ancestors ?? [basicClass];
  return cls.descendants.some((name) => {
    const attachable = model.classes.get(name)?.attachableTo;
    return attachable ? isAny(lineage, attachable) : false;
  });
}

/**
 * Resolves `typeName` of a related path under `refCls` (model-format section 4): a relation or
 * inverse name of the class, else the plural of a class connected to it by exactly one relation.
 * An unknown name is a 404; no connecting relation, or several, is a 400 (the latter naming the
 * relation names to use).
 */
export function relatedEnd(model: Model, refCls: ClassDef, typeName: string): RelationEnd {
  const named = refCls.relations.get(typeName);
  if (named) return named;
  const target = model.byPlural.get(typeName);
  const candidates = target
    ? [...refCls.relations.values()].filter((end) => {
        const other = model.classes.get(end.otherClass);
        return (
          other !== undefined &&
          (other.descendants.includes(target.name) || target.descendants.includes(other.name))
        );
      })
    : [];
  if (candidates.length === 1 && candidates[0]) return candidates[0];
  if (candidates.length > 1) {
    const names = candidates.map((end) => end.name).join(', ');
    throw new ValidationError(
      `Several relations connect ${refCls.plural} and ${typeName}; use one of: ${names}.`,
      [{ field: typeName, message: `ambiguous; use one of: ${names}` }],
    );
  }
  if (!target) throw new NotFoundError('Unknown class.');
  throw new ValidationError(`No relation connects ${refCls.plural} and ${typeName}.`, [
    { field: typeName, message: 'is not a relation of ' + refCls.plural },
  ]);
}
