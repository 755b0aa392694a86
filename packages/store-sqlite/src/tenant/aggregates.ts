/**
 * Counters and sums per indexed value (table `ixagg`), so distinct and aggregations over a large
 * share of a class read a few rows per distinct value instead of every object of the selection.
 *
 * For each class `c` and each *group field* `f` of it (indexed, single-valued, of a type with few
 * distinct values: DATE, LIST, BOOLEAN), one row `(c, f, v, 0)` counts the objects of `c` whose `f`
 * has index key `v` (the empty key included), and for each *sum field* `g` (indexed, single-valued,
 * numeric) one row `(c, f, v, g)` holds the count of those objects with a value of `g` and its sum.
 *
 * The rows are derived from the `ix` rows of each object: `apply(n, +1)` after its index rows are
 * written, `apply(n, -1)` before they are removed, in the same transaction; the changes of a
 * transaction's writes are merged per counter and written before it commits (`flush`). A rebuild
 * of the derived data (a new index signature) recomputes the table from `ix` in the transaction
 * that records the signature, so the counters are read only while the stored signature is the
 * model's (`TenantAggregates.ready`). Answers are used for unrestricted readers only: a record-level
 * access filter or a hidden derived value needs the per-object scan.
 *
 * Sums are maintained in double precision by additions and subtractions; like any floating sum,
 * the last digits of a sum of non-integers depend on the order of the additions.
 */
import type Database from 'better-sqlite3';
import { NUMERIC_TYPES } from '@odp/core';
import type {
  AccessFilter,
  AggregatePlan,
  AggregateResult,
  DataType,
  DistinctBucket,
  DistinctPlan,
  FieldDef,
  IndexKey,
  Model,
} from '@odp/core';
import { fromIndexKey, indexedField } from './index-keys.js';
import { compileValueRange } from './query/filters.js';
import { EMPTY_KEY } from './query/sql.js';
import type { ValueRange } from './query/filters.js';

/** Types whose values are few per class (days, list entries, booleans): worth a counter per value. */
const GROUP_TYPES: ReadonlySet<DataType> = new Set(['DATE', 'LIST', 'BOOLEAN']);

export interface TenantAggregatesContext {
  /** Prepared-statement cache of the owning store. */
  readonly statement: (sql: string) => Database.Statement;
  /** The interned key of a name, or null when it was never stored. */
  readonly key: (name: string) => number | null;
}

interface ClassRules {
  /** Interned field keys of the group fields. */
  readonly groups: ReadonlySet<number>;
  /** Interned field keys of the sum fields. */
  readonly sums: ReadonlySet<number>;
}

/** An `ix` row of one object: class key, field key, index key. */
export type IxRow = [c: number, f: number, v: IndexKey];

/** A counter's change: class, group field, index key, sum field (0: the count), count and sum. */
type CounterDelta = [c: number, f: number, v: IndexKey, g: number, cnt: number, sum: number];

export class TenantAggregates {
  private model: Model | null = null;
  /**
   * The counter changes of the writes of the open transaction, merged by counter and written by
   * {@link flush} before it commits: the writes of a commit group mostly move the same counters
   * (a class's status values, a day), one upsert each instead of one per write.
   */
  private readonly pending = new Map<string, CounterDelta>();
  /** Rules per interned class key, for the current model (interned keys never change). */
  private rules = new Map<number, ClassRules | null>();
  /** Interned key -> qualified name without its prefix, for classes. */
  private readonly names = new Map<number, string | null>();

  constructor(private readonly context: TenantAggregatesContext) {}

  /** The model whose rules `apply` follows from now on. */
  setModel(model: Model): void {
    this.model = model;
    this.rules = new Map();
  }

  /** Forgets what was learnt about interned keys (a rolled-back write may have created them). */
  forgetKeys(): void {
    this.names.clear();
    this.rules = new Map();
  }

  /** Adds (`sign` 1) or removes (-1) the contributions of object `n`, read from its `ix` rows. */
  apply(n: number, sign: 1 | -1): void {
    const rows = this.context.statement('SELECT c, f, v FROM ix WHERE n = ?').raw(true).all(n) as IxRow[];
    if (sign === 1) this.change([], rows);
    else this.change(rows, []);
  }

  /**
   * Moves an object's contributions from those of its `ix` rows `before` to those of `after`,
   * writing only the counters that change (an update leaving a group value and its sums as they
   * were writes nothing).
   */
  change(before: readonly IxRow[], after: readonly IxRow[]): void {
    const add = (c: number, f: number, v: IndexKey, g: number, sign: number, value: number) => {
      const key = `${c}\u0000${f}\u0000${typeof v}\u0000${v}\u0000${g}`;
      const entry = this.pending.get(key);
      if (entry === undefined) this.pending.set(key, [c, f, v, g, sign, value]);
      else {
        entry[4] += sign;
        entry[5] += value;
      }
    };
    this.contributions(before, (c, f, v, g, value) => add(c, f, v, g, -1, -value));
    this.contributions(after, (c, f, v, g, value) => add(c, f, v, g, 1, value));
  }

  /**
   * Writes the counter changes of the transaction's writes so far (before it commits, and before
   * the counters are read in it); only the counters that change (an update leaving a group value
   * and its sums as they were writes nothing).
   */
  flush(): void {
    if (this.pending.size === 0) return;
    const upsert = this.context.statement(
      `INSERT INTO ixagg (c, f, v, g, cnt, sum) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (c, f, v, g) DO UPDATE SET cnt = cnt + excluded.cnt,
         sum = CASE WHEN cnt + excluded.cnt = 0 THEN 0 ELSE sum + excluded.sum END`,
    );
    for (const [c, f, v, g, cnt, sum] of this.pending.values()) {
      if (cnt !== 0 || sum !== 0) upsert.run(c, f, v, g, cnt, sum);
    }
    this.pending.clear();
  }

  /** Forgets the counter changes of rolled-back writes. */
  discard(): void {
    this.pending.clear();
  }

  /** Calls `visit` with each counter an object's `ix` rows contribute to (g = 0: the count). */
  private contributions(
    rows: readonly IxRow[],
    visit: (c: number, f: number, v: IndexKey, g: number, value: number) => void,
  ): void {
    const byClass = new Map<number, IxRow[]>();
    for (const row of rows) {
      const list = byClass.get(row[0]);
      if (list === undefined) byClass.set(row[0], [row]);
      else list.push(row);
    }
    for (const [c, classRows] of byClass) {
      const rules = this.rulesOf(c);
      if (rules === null) continue;
      const sums = classRows.filter(
        ([, f, v]) => rules.sums.has(f) && typeof v === 'number' && v !== -Infinity,
      );
      for (const [, f, v] of classRows) {
        if (!rules.groups.has(f)) continue;
        visit(c, f, v, 0, 0);
        for (const [, g, value] of sums) visit(c, f, v, g, value as number);
      }
    }
  }

  /** Recomputes every row from `ix` (after a rebuild of the derived data). */
  recompute(): void {
    // The transaction's writes so far are in `ix`, which the counters are recomputed from.
    this.pending.clear();
    this.context.statement('DELETE FROM ixagg').run();
    const classes = this.context
      .statement("SELECT k FROM dict WHERE name >= 'c:' AND name < 'c;'")
      .pluck()
      .all() as number[];
    for (const c of classes) {
      const rules = this.rulesOf(c);
      if (rules === null) continue;
      const sums = JSON.stringify([...rules.sums]);
      for (const f of rules.groups) {
        this.context
          .statement(
            `INSERT INTO ixagg (c, f, v, g, cnt, sum)
             SELECT a.c, a.f, a.v, 0, count(*), 0 FROM ix a WHERE a.c = ? AND a.f = ? GROUP BY a.v`,
          )
          .run(c, f);
        this.context
          .statement(
            `INSERT INTO ixagg (c, f, v, g, cnt, sum)
             SELECT a.c, a.f, a.v, s.f, count(*), total(s.v) FROM ix a
             JOIN ix s ON s.n = a.n AND s.c = a.c AND s.f IN (SELECT value FROM json_each(?)) AND s.v > ${EMPTY_KEY}
             WHERE a.c = ? AND a.f = ? GROUP BY a.v, s.f`,
          )
          .run(sums, c, f);
      }
    }
  }

  /**
   * The answer of an aggregation from the counters, or null when they cannot give it: a restricted
   * reader, a related list, or filters other than at most one equality or range on a group field.
   */
  aggregate(plan: AggregatePlan, access: AccessFilter, ready: boolean): AggregateResult | null {
    const scope = this.scopeOf(plan, access, ready);
    if (scope === null || this.model === null) return null;
    this.flush();
    const { c, f, range, rules } = scope;
    const where = `c = ? AND f = ? AND g = ? AND ${range.text('v')}`;
    const stats = new Map<string, { sum: number; cnt: number }>();
    for (const name of new Set([...plan.sum, ...plan.avg, ...plan.count])) {
      const field = indexedField(this.model, plan.className, name);
      if (field === undefined || !NUMERIC_TYPES.has(field.type)) continue;
      const g = this.context.key(`f:${name}`);
      if (g === null) {
        stats.set(name, { sum: 0, cnt: 0 });
        continue;
      }
      // A numeric field that is not a sum field (multi-valued): only the scan answers it.
      if (!rules.sums.has(g)) return null;
      stats.set(
        name,
        this.context
          .statement(`SELECT total(sum) AS sum, total(cnt) AS cnt FROM ixagg WHERE ${where}`)
          .get(c, f, g, ...range.params) as { sum: number; cnt: number },
      );
    }
    const total = this.context
      .statement(`SELECT total(cnt) FROM ixagg WHERE ${where}`)
      .pluck()
      .get(c, f, 0, ...range.params) as number;
    const result = {
      total,
      sum: {} as Record<string, number>,
      avg: {} as Record<string, number>,
      count: {} as Record<string, number>,
    };
    for (const [name, { sum, cnt }] of stats) {
      if (plan.sum.includes(name)) result.sum[name] = sum;
      if (plan.count.includes(name)) result.count[name] = cnt;
      if (plan.avg.includes(name) && cnt > 0) result.avg[name] = sum / cnt;
    }
    return result;
  }

  /** Value buckets of a group field over a whole class for an unrestricted reader, else null. */
  distinct(
    plan: DistinctPlan,
    access: AccessFilter,
    ready: boolean,
    field: FieldDef,
  ): DistinctBucket[] | null {
    if (!ready || access.kind !== 'all' || plan.related !== undefined || plan.filters.length > 0) return null;
    const c = this.context.key(`c:${plan.className}`);
    const f = this.context.key(`f:${field.name}`);
    if (c === null || f === null || !this.rulesOf(c)?.groups.has(f)) return null;
    this.flush();
    const order = { value: 'v', count: 'cnt, v', countDesc: 'cnt DESC, v' }[plan.order];
    const rows = this.context
      .statement(
        `SELECT v, cnt FROM ixagg WHERE c = ? AND f = ? AND g = 0 AND v > ${EMPTY_KEY} AND cnt > 0 ORDER BY ${order}`,
      )
      .raw(true)
      .all(c, f) as [IndexKey, number][];
    return rows.map(([v, count]) => ({ value: fromIndexKey(field.type, v), count }));
  }

  /** The class, group field and value range an aggregation reads, or null when the counters cannot answer. */
  private scopeOf(
    plan: AggregatePlan,
    access: AccessFilter,
    ready: boolean,
  ): { c: number; f: number; range: ValueRange; rules: ClassRules } | null {
    if (!ready || access.kind !== 'all' || plan.related !== undefined || plan.filters.length > 1) return null;
    const c = this.context.key(`c:${plan.className}`);
    const rules = c === null ? null : this.rulesOf(c);
    if (c === null || rules === null || this.model === null) return null;
    const filter = plan.filters[0];
    if (filter === undefined) {
      // No filter: every object of the class has one row per group field (the empty key included).
      const [f] = rules.groups;
      return f === undefined ? null : { c, f, range: { text: () => '1', params: [] }, rules };
    }
    if (!('field' in filter)) return null;
    const field = indexedField(this.model, plan.className, filter.field);
    const f = field === undefined ? null : this.context.key(`f:${field.name}`);
    if (field === undefined || f === null || !rules.groups.has(f)) return null;
    const range = compileValueRange(field, filter);
    return range === null ? null : { c, f, range, rules };
  }

  private rulesOf(c: number): ClassRules | null {
    if (this.rules.has(c)) return this.rules.get(c) ?? null;
    const className = this.classNameOf(c);
    const classDef = className === null ? undefined : this.model?.classes.get(className);
    let rules: ClassRules | null = null;
    if (classDef !== undefined) {
      const keysOf = (test: (field: FieldDef) => boolean) =>
        new Set(
          [...classDef.fields.values()]
            .filter((field) => !field.multiple && test(field))
            .map((field) => this.context.key(`f:${field.name}`))
            .filter((key): key is number => key !== null),
        );
      const groups = keysOf((field) => GROUP_TYPES.has(field.type));
      rules = groups.size === 0 ? null : { groups, sums: keysOf((field) => NUMERIC_TYPES.has(field.type)) };
    }
    this.rules.set(c, rules);
    return rules;
  }

  private classNameOf(c: number): string | null {
    let name = this.names.get(c);
    if (name === undefined) {
      const stored = this.context.statement('SELECT name FROM dict WHERE k = ?').pluck().get(c) as
        string | undefined;
      name = stored?.startsWith('c:') ? stored.slice(2) : null;
      this.names.set(c, name);
    }
    return name;
  }
}
