/**
 * The list reads of the MongoDB tenant store: one page of a list plan, sorted by the server on
 * the sort field's index, or here when the order depends on the reader (hidden values) or lives
 * on other documents (relation names); and the readable objects on the other end of a relation.
 */
import { indexedField } from '@odp/core';
import type { AccessFilter, IndexKey, ListPage, ListPlan, ListPosition, StoredObject } from '@odp/core';
import type { AppliedModel } from './applied-model.js';
import type { TenantCollections } from './collections.js';
import { compareText, fieldPath, fromDocument, linkEntry, targetsOf } from './documents.js';
import type { ObjectDoc } from './documents.js';
import { compareKeyed, compareKeys, orderKeyed, seekCondition, sortKeyOf } from './keyed-order.js';
import type { Keyed } from './keyed-order.js';
import { accessCondition, and } from './query.js';
import type { ObjectFilter } from './query.js';

export class ListReads {
  constructor(
    private readonly c: TenantCollections,
    private readonly model: AppliedModel,
  ) {}

  async page(plan: ListPlan, access: AccessFilter): Promise<ListPage> {
    this.model.require();
    const filter = await this.model.compiler.compile(plan, access);
    if (filter === null) return { rows: [], positions: [] };
    const skip = plan.after === undefined ? (plan.offset ?? plan.page * plan.size) : 0;
    const limit = plan.size + 1;
    const sort = plan.sort;
    if (sort?.key.kind === 'relationName') {
      const keyed = await this.keyedByRelationName(filter, sort.key.relation, sort.direction, access);
      return this.pageOfKeyed(keyed, sort.direction, compareText, plan.after, skip, limit);
    }
    const direction = sort?.direction === 'desc' ? -1 : 1;
    const field =
      sort === undefined ? undefined : indexedField(this.model.current, plan.className, sort.key.field);
    const hidden =
      field === undefined ? [] : await this.model.compiler.hiddenValues(plan.className, field.name, access);
    if (field !== undefined && sort !== undefined && hidden.length > 0) {
      // Values the reader may not see sort as empty: ordered here, the key depends on the reader.
      const path = fieldPath(field);
      const masked = new Set(hidden);
      const selected = await this.c.objects
        .find(filter, { projection: { _id: 1, seq: 1, [path]: 1 } })
        .toArray();
      const keyed = selected.map((doc) => ({
        id: doc._id,
        seq: doc.seq,
        key: masked.has(doc._id) ? null : sortKeyOf(doc[path], sort.direction),
      }));
      return this.pageOfKeyed(keyed, sort.direction, compareKeys, plan.after, skip, limit);
    }
    const path = field === undefined || sort === undefined ? undefined : fieldPath(field);
    const order: Record<string, 1 | -1> =
      path === undefined ? { seq: 1 } : { [path]: direction, seq: direction };
    const seek =
      plan.after === undefined
        ? null
        : path === undefined
          ? { seq: { $gt: plan.after.seq } }
          : seekCondition(path, field?.multiple === true, sort?.direction ?? 'asc', plan.after);
    const docs = await this.c.objects
      .find(and([filter, seek]))
      .sort(order)
      .skip(skip)
      .limit(limit)
      .toArray();
    return {
      rows: docs.map(fromDocument),
      positions: docs.map((doc) => ({
        key: path === undefined ? null : sortKeyOf(doc[path], sort?.direction ?? 'asc'),
        seq: doc.seq,
      })),
    };
  }

  /** One page of a selection ordered here (see {@link orderKeyed}): after the position, or from `skip`. */
  private async pageOfKeyed<K extends IndexKey>(
    keyed: readonly Keyed<K>[],
    direction: 'asc' | 'desc',
    compare: (a: K, b: K) => number,
    after: ListPosition | undefined,
    skip: number,
    limit: number,
  ): Promise<ListPage> {
    const ordered = orderKeyed(keyed, direction, compare);
    // A position of this order holds a key of this order's kind (the cursor is bound to the sort).
    const boundary = after as Pick<Keyed<K>, 'seq' | 'key'> | undefined;
    const firstAfter =
      boundary === undefined
        ? skip
        : ordered.findIndex((entry) => compareKeyed(entry, boundary, direction, compare) > 0);
    const start = firstAfter === -1 ? ordered.length : firstAfter;
    const slice = ordered.slice(start, start + limit);
    const rows = await this.objectsOf(slice.map((entry) => entry.id));
    const byId = new Map(slice.map((entry) => [entry.id, entry]));
    return {
      rows,
      positions: rows.map((row) => {
        const entry = byId.get(row.id);
        return { key: entry?.key ?? null, seq: entry?.seq ?? 0 };
      }),
    };
  }

  /**
   * The selection keyed by the smallest (ascending) or largest (descending) folded name of their
   * readable linked objects (null without one). Keyed here: the key lives on other documents.
   */
  private async keyedByRelationName(
    filter: ObjectFilter,
    relation: { key: string; direction: 'forward' | 'inverse' },
    direction: 'asc' | 'desc',
    access: AccessFilter,
  ): Promise<Keyed<string>[]> {
    const selected = await this.c.objects.find(filter, { projection: { _id: 1, seq: 1, lk: 1 } }).toArray();
    const linked = await this.linkedObjects(selected, relation, access);
    return selected.map((doc) => {
      const names = (linked.get(doc._id) ?? [])
        .map((other) => other.nk)
        .filter((nk): nk is string => nk !== null);
      names.sort(compareText);
      return { id: doc._id, seq: doc.seq, key: (direction === 'asc' ? names[0] : names.at(-1)) ?? null };
    });
  }

  /** The documents of `ids` as objects, in the order of `ids` (ids no longer stored left out). */
  private async objectsOf(ids: readonly string[]): Promise<StoredObject[]> {
    const docs = new Map(
      (await this.c.objects.find({ _id: { $in: [...ids] } }).toArray()).map((doc) => [doc._id, doc]),
    );
    return ids.flatMap((id) => {
      const doc = docs.get(id);
      return doc === undefined ? [] : [fromDocument(doc)];
    });
  }

  /**
   * For each object of `selected`, the readable objects on the other end of `relation`: its
   * targets (forward) or the objects linking to it (inverse), each with its ref and folded name.
   */
  async linkedObjects(
    selected: readonly Pick<ObjectDoc, '_id' | 'lk'>[],
    relation: { key: string; direction: 'forward' | 'inverse' },
    access: AccessFilter,
  ): Promise<Map<string, Pick<ObjectDoc, '_id' | 'basic' | 'name' | 'nk'>[]>> {
    const result = new Map<string, Pick<ObjectDoc, '_id' | 'basic' | 'name' | 'nk'>[]>();
    const projection = { _id: 1, basic: 1, name: 1, nk: 1, lk: 1 };
    if (relation.direction === 'forward') {
      const targetsBySource = new Map(selected.map((doc) => [doc._id, targetsOf(doc.lk, relation.key)]));
      const all = [...new Set([...targetsBySource.values()].flat())];
      const readable = new Map(
        (
          await this.c.objects
            .find(and([{ _id: { $in: all } }, accessCondition(access)]), { projection })
            .toArray()
        ).map((doc) => [doc._id, doc]),
      );
      for (const [id, targets] of targetsBySource) {
        result.set(
          id,
          [...new Set(targets)].flatMap((target) => readable.get(target) ?? []),
        );
      }
      return result;
    }
    const ids = new Set(selected.map((doc) => doc._id));
    const sources = await this.c.objects
      .find(
        and([{ lk: { $in: [...ids].map((id) => linkEntry(relation.key, id)) } }, accessCondition(access)]),
        {
          projection,
        },
      )
      .sort({ seq: 1 })
      .toArray();
    for (const source of sources) {
      for (const target of new Set(targetsOf(source.lk, relation.key))) {
        if (ids.has(target)) result.set(target, [...(result.get(target) ?? []), source]);
      }
    }
    return result;
  }
}
