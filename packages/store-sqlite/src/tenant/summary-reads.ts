/**
 * The tenant store's reads over a whole selection: the distinct values of a field or relation
 * with their counts, a field's values, and aggregates (total, sums, averages, counts). Answered
 * from the counters of `aggregates.ts` when they hold the selection, else from the index rows.
 */
import { NUMERIC_TYPES, foldCase } from '@odp/core';
import type {
  AccessFilter,
  AggregatePlan,
  AggregateResult,
  DistinctBucket,
  DistinctPlan,
  FieldDef,
  IndexKey,
  Selection,
} from '@odp/core';
import type { TenantAggregates } from './aggregates.js';
import type { AppliedModel } from './applied-model.js';
import type { TenantDatabase } from './database.js';
import { fromIndexKey, indexKeysOf, indexedField } from './index-keys.js';
import type { ListPlanner } from './list-planner.js';
import { hiddenSource, visibleLinked } from './query/access.js';
import { compileSelection } from './query/selection.js';
import { whereClause } from './query/sql.js';

export class SummaryReads {
  constructor(
    private readonly database: TenantDatabase,
    private readonly model: AppliedModel,
    private readonly planner: ListPlanner,
    private readonly aggregates: TenantAggregates,
  ) {}

  async distinct(plan: DistinctPlan, access: AccessFilter): Promise<DistinctBucket[]> {
    this.model.require();
    const selection = compileSelection(this.model.current, this.database.keys, plan, access);
    if (!selection.satisfiable) return [];
    if (plan.target.kind === 'field') {
      const field = indexedField(this.model.current, plan.className, plan.target.field);
      if (field === undefined) return [];
      const counted = this.aggregates.distinct(plan, access, this.model.derivedCurrent(), field);
      if (counted !== null) return counted;
      const rows = this.planner.fieldValueRows(selection, plan.className, field.name, access);
      if (rows === null) return [];
      const order = { value: 's.v', count: 'count(*), s.v', countDesc: 'count(*) DESC, s.v' }[plan.order];
      // `s.n`: some object of the bucket (each holds a key that folds like the bucket's). Not min():
      // that aggregate costs as much as the grouping itself.
      const buckets = this.database
        .statement(
          `SELECT s.v AS v, s.n AS first, count(*) AS count ${rows.text} GROUP BY s.v ORDER BY ${order}`,
        )
        .all(...rows.params) as { v: unknown; first: number; count: number }[];
      const written = this.writtenTextKeys(field, buckets);
      return buckets.map((row) => ({
        value: fromIndexKey(field.type, written.get(row) ?? row.v),
        count: row.count,
      }));
    }
    // A relation never linked has no key: every object of the selection is in the null bucket.
    const rel = this.database.lookupKey(`r:${plan.target.relation.key}`) ?? -1;
    const [own, other] = plan.target.relation.direction === 'forward' ? ['src', 'dst'] : ['dst', 'src'];
    const driver =
      this.planner.smallestCandidate(selection, this.planner.driverLimit) ?? selection.classDriver;
    const where = whereClause(selection, driver);
    const visible = visibleLinked(this.database.keys, access, `l.${other}`);
    const nullsLast = 'b.t IS NULL, t.name, t.id';
    const order = {
      value: nullsLast,
      count: `b.count, ${nullsLast}`,
      countDesc: `b.count DESC, ${nullsLast}`,
    }[plan.order];
    const rows = this.database
      .statement(
        `WITH sel(n) AS MATERIALIZED (SELECT ${driver.n} FROM ${driver.from} WHERE ${where.text}),
       b(t, count) AS (
         SELECT l.${other}, count(*) FROM sel JOIN links l ON l.${own} = sel.n AND l.rel = ?
           WHERE ${visible.text} GROUP BY l.${other}
         UNION ALL
         SELECT NULL, count(*) FROM sel
           WHERE NOT EXISTS (SELECT 1 FROM links l WHERE l.${own} = sel.n AND l.rel = ? AND ${visible.text})
           HAVING count(*) > 0)
       SELECT t.id AS id, t.name AS name, t.basic AS basic, b.count AS count
       FROM b LEFT JOIN objects t ON t.n = b.t ORDER BY ${order}`,
      )
      .all(...where.params, rel, ...visible.params, rel, ...visible.params) as {
      id: string | null;
      name: string | null;
      basic: string | null;
      count: number;
    }[];
    return rows.map((row) =>
      row.id === null
        ? { value: null, name: null, count: row.count }
        : { value: row.id, name: row.name, basicClass: row.basic ?? '', count: row.count },
    );
  }

  async values(
    selection: Selection,
    field: string,
    access: AccessFilter,
  ): Promise<{ value: unknown; objectId: string; basicClass: string }[]> {
    this.model.require();
    const compiled = compileSelection(this.model.current, this.database.keys, selection, access);
    if (!compiled.satisfiable) return [];
    const driver = this.planner.smallestCandidate(compiled, this.planner.driverLimit) ?? compiled.classDriver;
    const where = whereClause(compiled, driver);
    const path = `$.${JSON.stringify(field)}`;
    const hidden = hiddenSource(
      this.model.current,
      this.database.keys,
      selection.className,
      field,
      access,
    )?.('o.n');
    const rows = this.database
      .statement(
        `SELECT o.id AS id, o.basic AS basic, o.vals -> ? AS value FROM ${driver.from}
       JOIN objects o ON o.n = ${driver.n}
       WHERE ${where.text} AND o.vals -> ? IS NOT NULL${hidden === undefined ? '' : ` AND NOT ${hidden.text}`}
       ORDER BY o.n`,
      )
      .all(path, ...where.params, path, ...(hidden?.params ?? [])) as {
      id: string;
      basic: string;
      value: string;
    }[];
    return rows.map((row) => ({
      value: JSON.parse(row.value) as unknown,
      objectId: row.id,
      basicClass: row.basic,
    }));
  }

  async aggregate(plan: AggregatePlan, access: AccessFilter): Promise<AggregateResult> {
    this.model.require();
    const selection = compileSelection(this.model.current, this.database.keys, plan, access);
    const result = {
      total: 0,
      sum: {} as Record<string, number>,
      avg: {} as Record<string, number>,
      count: {} as Record<string, number>,
    };
    if (!selection.satisfiable) return result;
    const counted = this.aggregates.aggregate(plan, access, this.model.derivedCurrent());
    if (counted !== null) return counted;
    const selective = this.planner.smallestCandidate(selection, this.planner.driverLimit);
    const driver = selective ?? selection.classDriver;
    const where = whereClause(selection, driver);
    result.total = this.database
      .statement(`SELECT count(*) FROM ${driver.from} WHERE ${where.text}`)
      .pluck()
      .get(...where.params) as number;
    const stats = new Map<string, { sum: number; avg: number | null; count: number }>();
    for (const name of new Set([...plan.sum, ...plan.avg, ...plan.count])) {
      const field = indexedField(this.model.current, plan.className, name);
      if (field === undefined || !NUMERIC_TYPES.has(field.type)) continue;
      const rows = this.planner.fieldValueRows(selection, plan.className, field.name, access, selective);
      stats.set(
        name,
        rows === null
          ? { sum: 0, avg: null, count: 0 }
          : (this.database
              .statement(
                `SELECT total(s.v) AS sum, avg(s.v) AS avg, count(DISTINCT s.n) AS count ${rows.text}`,
              )
              .get(...rows.params) as { sum: number; avg: number | null; count: number }),
      );
    }
    for (const name of plan.sum) {
      const value = stats.get(name);
      if (value !== undefined) result.sum[name] = value.sum;
    }
    for (const name of plan.avg) {
      const value = stats.get(name)?.avg;
      if (value !== undefined && value !== null) result.avg[name] = value;
    }
    for (const name of plan.count) {
      const value = stats.get(name);
      if (value !== undefined) result.count[name] = value.count;
    }
    return result;
  }

  /**
   * The value as written behind each text bucket whose key may be case-folded (`ixKey`: any key
   * without an ASCII capital), read from one object of the bucket: the key of its value that folds
   * like the bucket's. So a bucket shows "Straße" or "École" (or another case variant it counts, as
   * written), never the folded "strasse" or "école". One point lookup per such bucket.
   */
  private writtenTextKeys<B extends { v: unknown; first: number }>(
    field: FieldDef,
    buckets: readonly B[],
  ): Map<B, IndexKey> {
    const written = new Map<B, IndexKey>();
    const folded = buckets.filter((row) => typeof row.v === 'string' && !/[A-Z]/.test(row.v));
    if (folded.length === 0) return written;
    const valuesOf = this.database.statement('SELECT vals FROM objects WHERE n = ?').pluck();
    for (const row of folded) {
      const vals = valuesOf.get(row.first) as string | undefined;
      const stored =
        vals === undefined ? undefined : (JSON.parse(vals) as Record<string, unknown>)[field.name];
      const bucket = foldCase(row.v as string);
      const key = indexKeysOf(field, stored).find(
        (candidate) => typeof candidate === 'string' && foldCase(candidate) === bucket,
      );
      if (key !== undefined) written.set(row, key);
    }
    return written;
  }
}
