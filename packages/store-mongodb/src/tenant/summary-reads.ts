/**
 * The MongoDB tenant store's reads over a whole selection: the distinct values of a field or
 * relation with their counts, a field's values, and aggregates (counted and summed by the server,
 * one accumulator per pipeline).
 */
import { NUMERIC_TYPES, fromIndexKey, indexedField } from '@odp/core';
import type {
  AccessFilter,
  AggregatePlan,
  AggregateResult,
  DistinctBucket,
  DistinctPlan,
  IndexKey,
  Selection,
} from '@odp/core';
import type { AppliedModel } from './applied-model.js';
import type { TenantCollections } from './collections.js';
import { comparable, compareText, fieldPath } from './documents.js';
import { compareKeys, compareNullableText, orderBuckets } from './keyed-order.js';
import type { ListReads } from './list-reads.js';
import { and } from './query.js';
import type { ObjectFilter } from './query.js';

export class SummaryReads {
  constructor(
    private readonly c: TenantCollections,
    private readonly model: AppliedModel,
    private readonly lists: ListReads,
  ) {}

  async distinct(plan: DistinctPlan, access: AccessFilter): Promise<DistinctBucket[]> {
    this.model.require();
    const filter = await this.model.compiler.compile(plan, access);
    if (filter === null) return [];
    if (plan.target.kind === 'field') {
      const field = indexedField(this.model.current, plan.className, plan.target.field);
      if (field === undefined) return [];
      const hidden = await this.model.compiler.hiddenValues(plan.className, field.name, access);
      const visible = hidden.length === 0 ? filter : and([filter, { _id: { $nin: hidden } }]);
      return orderBuckets(await this.fieldBuckets(visible, field), plan.order, (a, b) =>
        compareKeys(comparable(a.value as IndexKey), comparable(b.value as IndexKey)),
      ).map((bucket) => ({ value: fromIndexKey(field.type, bucket.value), count: bucket.count }));
    }
    const selected = await this.c.objects.find(filter, { projection: { _id: 1, lk: 1 } }).toArray();
    const linked = await this.lists.linkedObjects(selected, plan.target.relation, access);
    const buckets = new Map<
      string,
      { value: string; name: string | null; basicClass: string; count: number }
    >();
    let without = 0;
    for (const doc of selected) {
      const others = linked.get(doc._id) ?? [];
      if (others.length === 0) without += 1;
      for (const other of others) {
        const bucket = buckets.get(other._id) ?? {
          value: other._id,
          name: other.name,
          basicClass: other.basic,
          count: 0,
        };
        bucket.count += 1;
        buckets.set(other._id, bucket);
      }
    }
    const byName = (a: { name: string | null; value: unknown }, b: { name: string | null; value: unknown }) =>
      (a.value === null ? 1 : 0) - (b.value === null ? 1 : 0) ||
      compareNullableText(a.name, b.name) ||
      compareText(String(a.value), String(b.value));
    const all: DistinctBucket[] = [...buckets.values()];
    if (without > 0) all.push({ value: null, name: null, count: without });
    return orderBuckets(all, plan.order, (a, b) =>
      byName({ name: a.name ?? null, value: a.value }, { name: b.name ?? null, value: b.value }),
    );
  }

  /**
   * Value buckets of one field over a selection, grouped by the server. Text keys are grouped by
   * their unfolded form (`d_`) and merged here when they differ only in case (an object holds each
   * folded key once, so no object is counted twice).
   */
  private async fieldBuckets(
    filter: ObjectFilter,
    field: NonNullable<ReturnType<typeof indexedField>>,
  ): Promise<{ value: unknown; count: number }[]> {
    // Numbers and booleans are keyed as they are; every other type by text (see `indexKey`).
    const textual = !NUMERIC_TYPES.has(field.type) && field.type !== 'BOOLEAN';
    const path = fieldPath(field, textual ? 'd' : 'x');
    const groups = (await this.c.objects
      .aggregate([
        { $match: and([filter, { [path]: { $exists: true } }]) },
        { $unwind: `$${path}` },
        { $group: { _id: `$${path}`, count: { $sum: 1 } } },
      ])
      .toArray()) as { _id: IndexKey; count: number }[];
    const merged = new Map<IndexKey, { value: IndexKey; count: number }>();
    for (const group of groups) {
      const key = comparable(group._id);
      const bucket = merged.get(key);
      if (bucket === undefined) merged.set(key, { value: group._id, count: group.count });
      else {
        bucket.count += group.count;
        if (compareKeys(group._id, bucket.value) < 0) bucket.value = group._id;
      }
    }
    return [...merged.values()];
  }

  async values(
    selection: Selection,
    field: string,
    access: AccessFilter,
  ): Promise<{ value: unknown; objectId: string; basicClass: string }[]> {
    this.model.require();
    const filter = await this.model.compiler.compile(selection, access);
    if (filter === null) return [];
    const docs = await this.c.objects
      .find(filter, { projection: { _id: 1, basic: 1, vals: 1 } })
      .sort({ seq: 1 })
      .toArray();
    const hidden = new Set(await this.model.compiler.hiddenValues(selection.className, field, access));
    return docs.flatMap((doc) => {
      const values = JSON.parse(doc.vals) as Record<string, unknown>;
      return field in values && !hidden.has(doc._id)
        ? [{ value: values[field], objectId: doc._id, basicClass: doc.basic }]
        : [];
    });
  }

  /**
   * `total` by counting; per numeric field the objects with a value, the sum and the number of
   * values (the average is their quotient: FerretDB has no `$avg`). One accumulator per pipeline.
   */
  async aggregate(plan: AggregatePlan, access: AccessFilter): Promise<AggregateResult> {
    this.model.require();
    const result = {
      total: 0,
      sum: {} as Record<string, number>,
      avg: {} as Record<string, number>,
      count: {} as Record<string, number>,
    };
    const filter = await this.model.compiler.compile(plan, access);
    if (filter === null) return result;
    result.total = await this.c.objects.countDocuments(filter);
    for (const name of new Set([...plan.sum, ...plan.avg, ...plan.count])) {
      const field = indexedField(this.model.current, plan.className, name);
      if (field === undefined || !NUMERIC_TYPES.has(field.type)) continue;
      const path = fieldPath(field);
      const hidden = await this.model.compiler.hiddenValues(plan.className, name, access);
      const withValue = and([
        filter,
        { [path]: { $exists: true } },
        hidden.length === 0 ? null : { _id: { $nin: hidden } },
      ]);
      const accumulate = async (accumulator: 1 | string): Promise<number> => {
        const [row] = (await this.c.objects
          .aggregate([
            { $match: withValue },
            { $unwind: `$${path}` },
            { $group: { _id: null, v: { $sum: accumulator } } },
          ])
          .toArray()) as { v: number }[];
        return row?.v ?? 0;
      };
      const count = await this.c.objects.countDocuments(withValue);
      const sum = count === 0 ? 0 : await accumulate(`$${path}`);
      if (plan.sum.includes(name)) result.sum[name] = sum;
      if (plan.count.includes(name)) result.count[name] = count;
      if (plan.avg.includes(name) && count > 0) result.avg[name] = sum / (await accumulate(1));
    }
    return result;
  }
}
