/**
 * Compiles the backend-neutral selections of `@odp/core` (class, related anchor, filters, access
 * filter) to one MongoDB filter on the `objects` collection. Conditions on the object's own fields
 * are plain predicates on its document (multikey `classes`, `x_<field>`, `lk`, `ac`). A condition on
 * *other* objects (a relation-name filter, an inverse relation, a related list's anchor) is resolved
 * first by one query on those objects, under the same access filter, into a set of ids or link
 * entries: no `$lookup`, which neither FerretDB nor a sharded collection serves well.
 */
import { derivedSources, indexKey, indexedField } from '@odp/core';
import type { AccessFilter, Filter, Model, RelationRef, Selection } from '@odp/core';
import type { Collection, Filter as MongoFilter } from 'mongodb';
import { comparable, fieldPath, fold, linkEntry, linkPrefix, targetsOf } from './documents.js';
import type { ObjectDoc } from './documents.js';
import { hiddenAmong, restricts } from './derived.js';

export type ObjectFilter = MongoFilter<ObjectDoc>;

/** The greatest code point: `prefix <= v < prefix + MAX_CHAR` is the prefix range of `prefix`. */
const MAX_CHAR = '\u{10FFFF}';

/** The access filter on an object's document, or null when it restricts nothing. */
export function accessCondition(access: AccessFilter): ObjectFilter | null {
  if (access.kind === 'all' || access.protectedClasses.length === 0) return null;
  const unprotected: ObjectFilter = { classes: { $nin: [...access.protectedClasses] } };
  if (access.acIds.length === 0) return unprotected;
  return { $or: [unprotected, { ac: { $in: [...access.acIds] } }] };
}

/** `conditions` AND-combined. */
export function and(conditions: readonly (ObjectFilter | null)[]): ObjectFilter {
  const present = conditions.filter((condition): condition is ObjectFilter => condition !== null);
  if (present.length === 0) return {};
  return present.length === 1 ? present[0]! : { $and: present };
}

export class SelectionCompiler {
  constructor(
    private readonly model: Model,
    private readonly objects: Collection<ObjectDoc>,
  ) {}

  /** The filter of a selection under `access`, or null when it is empty by construction. */
  async compile(selection: Selection, access: AccessFilter): Promise<ObjectFilter | null> {
    const conditions: ObjectFilter[] = [{ classes: selection.className }];
    if (selection.related !== undefined) {
      const related = await this.relatedCondition(selection.related.anchorId, selection.related.relation);
      if (related === null) return null;
      conditions.push(related);
    }
    for (const filter of selection.filters) {
      const compiled = await this.filterCondition(selection.className, filter, access);
      if (compiled === undefined) continue;
      if (compiled === null) return null;
      // A derived value the reader may not see counts as empty (see derived.ts).
      const hidden =
        'field' in filter ? await this.hiddenValues(selection.className, filter.field, access) : [];
      if (hidden.length === 0) conditions.push(compiled);
      else if (filter.kind === 'empty') conditions.push({ $or: [compiled, { _id: { $in: hidden } }] });
      else conditions.push(compiled, { _id: { $nin: hidden } });
    }
    const visible = accessCondition(access);
    if (visible !== null) conditions.push(visible);
    return and(conditions);
  }

  /**
   * The objects of `className` holding a value of field `field` that `access` hides (computed from
   * an object it does not let through; see derived.ts): none when the field is not derived or the
   * access filter restricts nothing.
   */
  async hiddenValues(className: string, field: string, access: AccessFilter): Promise<string[]> {
    const paths = derivedSources(this.model, className).get(field);
    const indexed = indexedField(this.model, className, field);
    if (paths === undefined || !restricts(access)) return [];
    const holders = await this.objects
      .find(
        { classes: className, ...(indexed === undefined ? {} : { [fieldPath(indexed)]: { $exists: true } }) },
        { projection: { _id: 1 } },
      )
      .toArray();
    return [
      ...(await hiddenAmong(
        this.objects,
        holders.map((doc) => doc._id),
        paths,
        access,
      )),
    ];
  }

  /** Objects linked with the anchor through `relation`, seen from the anchor (regardless of access, as the anchor was read). */
  private async relatedCondition(anchorId: string, relation: RelationRef): Promise<ObjectFilter | null> {
    if (relation.direction === 'inverse') return { lk: linkEntry(relation.key, anchorId) };
    const anchor = await this.objects.findOne({ _id: anchorId }, { projection: { lk: 1 } });
    return anchor === null ? null : { _id: { $in: targetsOf(anchor.lk, relation.key) } };
  }

  /**
   * One filter as a condition: undefined when the filter is ignored (a field the class does not
   * index), null when it matches nothing.
   */
  private async filterCondition(
    className: string,
    filter: Filter,
    access: AccessFilter,
  ): Promise<ObjectFilter | null | undefined> {
    switch (filter.kind) {
      case 'hasClasses':
        return { classes: { $all: [...filter.classes] } };
      case 'relationId':
        return this.relationIdCondition(filter.relation, filter.id, access);
      case 'relationName':
        return this.relationNameCondition(filter.relation, filter.match, filter.value, access);
      default:
        break;
    }
    const field = indexedField(this.model, className, filter.field);
    if (field === undefined) return undefined;
    const path = fieldPath(field);
    switch (filter.kind) {
      case 'empty':
        return { [path]: { $exists: false } };
      case 'notEmpty':
        return { [path]: { $exists: true } };
      case 'equals': {
        const key = indexKey(field.type, filter.value);
        return key === null ? null : { [path]: comparable(key) };
      }
      case 'startsWith':
        // An anchored expression, not an $elemMatch range: FerretDB v1 lets the two bounds of an
        // $elemMatch match different elements of a multi-valued field.
        return { [path]: { $regex: `^${escapeRegex(fold(filter.value))}` } };
      case 'range': {
        const from = filter.from === undefined ? undefined : indexKey(field.type, filter.from);
        const to = filter.to === undefined ? undefined : indexKey(field.type, filter.to);
        if (from === null || to === null) return null;
        if (from === undefined && to === undefined) return { [path]: { $exists: true } };
        return {
          [path]: {
            $elemMatch: {
              ...(from === undefined ? {} : { $gte: comparable(from) }),
              ...(to === undefined ? {} : { $lte: comparable(to) }),
            },
          },
        };
      }
    }
  }

  /** Some linked object, readable under `access`, has this id. */
  private async relationIdCondition(
    relation: RelationRef,
    id: string,
    access: AccessFilter,
  ): Promise<ObjectFilter | null> {
    const other = await this.objects.findOne(and([{ _id: id }, accessCondition(access)]), {
      projection: { lk: 1 },
    });
    if (other === null) return null;
    return relation.direction === 'forward'
      ? { lk: linkEntry(relation.key, id) }
      : { _id: { $in: targetsOf(other.lk, relation.key) } };
  }

  /** Some linked object, readable under `access`, has a name equal to (or starting with) the value, ignoring case. */
  private async relationNameCondition(
    relation: RelationRef,
    match: 'equals' | 'startsWith',
    value: string,
    access: AccessFilter,
  ): Promise<ObjectFilter | null> {
    const folded = fold(value);
    const name: ObjectFilter =
      match === 'equals' ? { nk: folded } : { nk: { $gte: folded, $lt: folded + MAX_CHAR } };
    if (relation.direction === 'forward') {
      const targets = await this.objects
        .find(and([name, accessCondition(access)]), { projection: { _id: 1 } })
        .toArray();
      return { lk: { $in: targets.map((target) => linkEntry(relation.key, target._id)) } };
    }
    const sources = await this.objects
      .find(
        and([name, { lk: { $regex: `^${escapeRegex(linkPrefix(relation.key))}` } }, accessCondition(access)]),
        {
          projection: { lk: 1 },
        },
      )
      .toArray();
    return { _id: { $in: [...new Set(sources.flatMap((source) => targetsOf(source.lk, relation.key)))] } };
  }
}

export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
