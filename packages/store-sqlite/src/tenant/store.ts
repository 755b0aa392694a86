/**
 * The embedded tenant store: one SQLite database file per tenant (isolation by construction),
 * implementing the `TenantStore` port of `@odp/core` and keeping its full-text index
 * (search.ts) in the same file and the same transactions. See docs/storage.md.
 */
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import {
  ConflictError,
  NUMERIC_TYPES,
  NotFoundError,
  derivedSourcesOf,
  foldCase,
  integerEventLog,
  searchTextOf,
  WriteConflictError,
} from '@odp/core';
import type {
  AccessFilter,
  AclRow,
  AggregatePlan,
  AggregateResult,
  ChangeEvent,
  DistinctBucket,
  EventLog,
  FieldDef,
  DistinctPlan,
  Holding,
  IncomingBound,
  IncomingRef,
  IndexKey,
  ListPage,
  ListPlan,
  NewJob,
  Model,
  ObjectRef,
  Selection,
  StoredObject,
  TenantStore,
  WriteBatch,
} from '@odp/core';
import {
  FOLD_FUNCTION,
  foldForNocase,
  fromIndexKey,
  indexKeysOf,
  indexSignature,
  indexedField,
  indexedFields,
  ixKey,
} from './index-keys.js';
import { compileAccess, hiddenAlongAny, hiddenSource, visibleLinked } from './query/access.js';
import { compileSelection } from './query/selection.js';
import { compileSort } from './query/sort.js';
import { EMPTY_KEY, whereClause } from './query/sql.js';
import type { CompiledSelection, Driver, KeyLookup, Sql } from './query/sql.js';
import { migrateTenantDatabase } from './schema.js';
import { SqliteSearchIndex } from './search.js';
import { TenantAggregates } from './aggregates.js';
import { TenantNames } from './names.js';

export interface TenantStoreOptions {
  /** Path of the tenant's database file (created when missing). */
  readonly file: string;
  /**
   * A filter whose index range holds fewer rows than this drives a list (its rows are then sorted);
   * otherwise the sort field's index is walked in order. Default 5000.
   */
  readonly driverLimit?: number;
  /**
   * Bytes of the database file read through memory mapping (no read syscall per page, which halves
   * index-probe-heavy queries on a large tenant). Default and maximum: SQLite's compiled limit (2 GiB).
   */
  readonly mmapBytes?: number;
  /** Search matches up to this count are ranked by bm25; broader queries list newest first. Default 1000. */
  readonly searchRankLimit?: number;
  /** How long a bm25 search paging can be continued (its frozen ranking is kept). Default 15 minutes. */
  readonly searchCursorTtlMs?: number;
  /** Objects re-derived per transaction by a rebuild (the event loop runs between). Default 500. */
  readonly rebuildBatchSize?: number;
}

/** Opens (creating and migrating when needed) the database of one tenant. */
export function openTenantStore(options: TenantStoreOptions): SqliteTenantStore {
  return new SqliteTenantStore(options);
}

interface ObjectRow {
  n: number;
  id: string;
  basic: string;
  classes: string;
  name: string | null;
  vals: string;
  created: string;
  modified: string;
}

const OBJECT_COLUMNS = 'o.n, o.id, o.basic, o.classes, o.name, o.vals, o.created, o.modified';
const EMPTY_MODEL: Model = {
  classes: new Map(),
  byPlural: new Map(),
  lists: new Map(),
  accessControl: [],
  roles: [],
  settings: {},
  defaultData: [],
  templates: new Map(),
};
const STATEMENT_CACHE_SIZE = 256;
/** better-sqlite3's SQLITE_MAX_MMAP_SIZE. */
const MAX_MMAP_BYTES = 0x7fff0000;
/** How long a remembered driver count may serve plans (writes through the store forget it at once). */
const DRIVER_COUNT_TTL_MS = 2000;
/** Remembered driver counts at most (the distinct filter ranges of recent lists). */
const MAX_DRIVER_COUNTS = 1000;

export class SqliteTenantStore implements TenantStore {
  /** The tenant's full-text index, maintained by `write` in the same transaction. */
  readonly search: SqliteSearchIndex;
  /**
   * The change events `write` appends, at AUTOINCREMENT row ids: writes commit one at a time, so
   * positions follow the commit order and a reader never sees an event before the ones below it.
   */
  readonly events: EventLog = integerEventLog({
    newest: async () => (this.statement('SELECT max(seq) FROM events').pluck().get() as number | null) ?? 0,
    after: async (position, limit) => {
      const rows = this.statement(
        'SELECT seq, type, object_id, classes, loser_id, at, changed FROM events WHERE seq > ? ORDER BY seq LIMIT ?',
      ).all(position, limit) as {
        seq: number;
        type: ChangeEvent['type'];
        object_id: string;
        classes: string;
        loser_id: string | null;
        at: string;
        changed: string | null;
      }[];
      return rows.map((row) => ({
        position: row.seq,
        event: {
          type: row.type,
          objectId: row.object_id,
          classes: JSON.parse(row.classes) as string[],
          ...(row.loser_id === null ? {} : { loserId: row.loser_id }),
          at: row.at,
          ...(row.changed === null ? {} : { changed: JSON.parse(row.changed) as string[] }),
        },
      }));
    },
  });

  private readonly db: Database.Database;
  private readonly driverLimit: number;
  private model: Model = EMPTY_MODEL;
  private modelApplied = false;
  private readonly dictCache = new Map<string, number>();
  /**
   * Bounded counts of candidate drivers (see `smallestCandidate`), remembered for a moment. A count
   * only chooses the plan, never the rows, so a stale one costs at most a slower plan; remembering
   * it spares a page asked for again (the same list polled by many clients) from counting up to
   * `driverLimit` index entries every time. Forgotten on every write through this store, and
   * after {@link DRIVER_COUNT_TTL_MS} (writes by other processes).
   */
  private readonly driverCounts = new Map<string, { readonly count: number; readonly at: number }>();
  private readonly statements = new Map<string, Database.Statement>();
  private readonly keys: KeyLookup;
  private readonly rebuildBatchSize: number;
  /** Incremented by each rebuild; a rebuild whose generation is no longer current stops. */
  private rebuildGeneration = 0;
  private readonly names: TenantNames;
  private readonly aggregates: TenantAggregates;
  /** The index signature of `model`, computed once per applied model. */
  private signature = '';
  /** One transaction wrapper for every write (better-sqlite3 builds one per `transaction` call). */
  private readonly transaction: Database.Transaction<(work: () => unknown) => unknown>;

  constructor(options: TenantStoreOptions) {
    this.db = new Database(options.file);
    this.db.pragma('journal_mode = WAL');
    // An acknowledged write survives a killed process: under WAL the commit has written the
    // transaction to the WAL file (the OS holds it) before `write` resolves; NORMAL only skips the
    // fsync, so an OS crash or power loss may lose the last transactions (docs/storage.md).
    this.db.pragma('synchronous = NORMAL');
    // A checkpoint (copying WAL pages into the database, with an fsync) every 10,000 pages instead
    // of 1,000: a create dirties some 40 scattered index pages, and pages rewritten between two
    // checkpoints are copied once. Measured: 0.68-0.81 -> 0.54-0.62 ms per create.
    this.db.pragma('wal_autocheckpoint = 10000');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('cache_size = -65536');
    this.db.pragma(`mmap_size = ${Math.trunc(options.mmapBytes ?? MAX_MMAP_BYTES)}`);
    this.db.function(FOLD_FUNCTION, { deterministic: true }, foldForNocase);
    migrateTenantDatabase(this.db);
    this.transaction = this.db.transaction((work: () => unknown) => work());
    this.driverLimit = options.driverLimit ?? 5000;
    this.rebuildBatchSize = Math.max(1, Math.trunc(options.rebuildBatchSize ?? 500));
    this.keys = {
      key: (name) => this.lookupKey(name),
      objectKey: (id) => this.objectKey(id),
    };
    this.search = new SqliteSearchIndex({
      db: this.db,
      keys: this.keys,
      secret: this.cursorSecret(),
      rankLimit: options.searchRankLimit ?? 1000,
      cursorTtlMs: options.searchCursorTtlMs ?? 15 * 60_000,
      statement: (sql) => this.statement(sql),
      rebuild: (model) => this.rebuildDerived(model),
    });
    this.names = new TenantNames({ keys: this.keys, statement: (sql) => this.statement(sql) });
    this.aggregates = new TenantAggregates({
      statement: (sql) => this.statement(sql),
      key: (name) => this.lookupKey(name),
    });
  }

  /**
   * Remembers the model (writes derive index rows, unique checks and search text from it). When the
   * model's index signature differs from the one the stored derived data was built with, every
   * object's index rows and search text are rebuilt, in batches (see `rebuildDerived`).
   */
  async applyModel(model: Model): Promise<void> {
    this.useModel(model);
    this.modelApplied = true;
    if (!this.derivedCurrent()) await this.rebuildDerived(model);
  }

  private useModel(model: Model): void {
    this.model = model;
    this.signature = indexSignature(model);
    this.aggregates.setModel(model);
  }

  /**
   * Whether the stored derived data (index rows, counters, search text) was built for the current
   * model: false while a rebuild runs (in this process or another).
   */
  private derivedCurrent(): boolean {
    return this.statement("SELECT v FROM meta WHERE k = 'index_signature'").pluck().get() === this.signature;
  }

  async get(id: string, access: AccessFilter): Promise<StoredObject | null> {
    return this.fetchWhere('o.id = ?', [id], access)[0] ?? null;
  }

  async getMany(ids: readonly string[], access: AccessFilter): Promise<StoredObject[]> {
    if (ids.length === 0) return [];
    return this.fetchWhere('o.id IN (SELECT value FROM json_each(?))', [JSON.stringify(ids)], access);
  }

  async list(plan: ListPlan, access: AccessFilter): Promise<StoredObject[]> {
    return this.hydrate(this.objectsByKey(this.listKeys(plan, access)));
  }

  async page(plan: ListPlan, access: AccessFilter): Promise<ListPage> {
    const keys = this.listKeys(plan, access);
    const rows = this.objectsByKey(keys);
    const key = compileSort(this.model, this.keys, plan.className, plan.sort, access).key('o.n');
    // The keys of the page's rows (at most size + 1 index probes), read apart from the page query
    // so that its plan and order stay exactly those of a list.
    const sortKeys = new Map<number, unknown>();
    if (key !== null && keys.length > 0) {
      const query = this.statement(
        `SELECT o.n AS n, ${key.text} AS k FROM objects o WHERE o.n IN (SELECT value FROM json_each(?))`,
      );
      for (const row of query.all(...key.params, JSON.stringify(keys)) as { n: number; k: unknown }[]) {
        sortKeys.set(row.n, row.k);
      }
    }
    return {
      rows: this.hydrate(rows),
      positions: rows.map((row) => ({ key: positionKey(sortKeys.get(row.n)), seq: row.n })),
    };
  }

  /**
   * The object keys of one page (`size + 1` rows at most), in order: the bounded walk in order when
   * the plan has one and it finds the whole page, else the page query.
   */
  private listKeys(plan: ListPlan, access: AccessFilter): number[] {
    const queries = this.listQueries(plan, access);
    if (queries === null) return [];
    const keysOf = (query: Sql) =>
      this.statement(query.text)
        .pluck()
        .all(...query.params) as number[];
    if (queries.walk !== undefined) {
      const walked = keysOf(queries.walk);
      if (walked.length === plan.size + 1) return walked;
    }
    return keysOf(queries.page);
  }

  /** The SQL of a list plan's page query (null when the selection is empty by construction). */
  private listQuery(plan: ListPlan, access: AccessFilter): Sql | null {
    return this.listQueries(plan, access)?.page ?? null;
  }

  /**
   * A list plan's page query, and beside it, when a selective filter range drives the page query
   * while an index range yields the rows in the list's order, a *walk* of that ordered range bounded
   * to as many entries as the selective range holds. The page query reads every row of the
   * selective range and sorts them; the walk stops at the page's last row, so it wins when the
   * selection is a large share of the class (2,500 paid invoices of 10,000: some 80 entries walked
   * for a first page instead of 2,500 read and sorted). When the walk ends without a full page, the
   * page query answers, so a page costs at most twice the selective range. Null when the selection
   * is empty by construction.
   */
  private listQueries(plan: ListPlan, access: AccessFilter): { page: Sql; walk?: Sql } | null {
    this.requireModel();
    const selection = compileSelection(this.model, this.keys, plan, access);
    if (!selection.satisfiable) return null;
    const sort = compileSort(this.model, this.keys, plan.className, plan.sort, access);
    const limit = plan.size + 1;
    const offset = plan.after === undefined ? (plan.offset ?? plan.page * plan.size) : 0;
    const measured = this.smallestMeasured(selection, this.driverLimit);
    const rangeOfSortField =
      sort.field === undefined
        ? undefined
        : selection.candidates.find((candidate) => candidate.sortedField === sort.field);
    const ordered =
      rangeOfSortField ??
      sort.driver ??
      (plan.sort === undefined
        ? (selection.candidates.find((candidate) => candidate.orderedByN) ?? selection.classDriver)
        : undefined);
    const query = (driver: Driver, walked?: number): Sql => {
      const where = whereClause(selection, driver);
      const seek = plan.after === undefined ? null : sort.after(driver, plan.after);
      const order = sort.orderBy(driver);
      if (walked === undefined) {
        return {
          text:
            `SELECT ${driver.n} FROM ${driver.from} WHERE ${where.text}${seek === null ? '' : ` AND ${seek.text}`} ` +
            `ORDER BY ${order.text} LIMIT ? OFFSET ?`,
          params: [...where.params, ...(seek?.params ?? []), ...order.params, limit, offset],
        };
      }
      // The driver's first `walked` entries in order (its own range and the seek), then the other
      // conditions on those. Every driver is aliased `d`; the walked rows keep its key as `d.n`
      // and, on a value index range, its value as `d.v`, so the outer order is the driver's.
      const range = [driver.where, ...(seek === null ? [] : [seek])];
      const columns = driver.sortedField === undefined ? `${driver.n} AS n` : `${driver.n} AS n, d.v AS v`;
      const walkedRows: Driver = { ...driver, n: 'd.n', where: { text: '1', params: [] } };
      const rest = whereClause(selection, walkedRows);
      const outer = sort.orderBy(walkedRows);
      return {
        text:
          `SELECT d.n FROM (SELECT ${columns} FROM ${driver.from} WHERE ${range.map((part) => part.text).join(' AND ')} ` +
          `ORDER BY ${order.text} LIMIT ?) d WHERE ${rest.text} ORDER BY ${outer.text} LIMIT ? OFFSET ?`,
        params: [
          ...range.flatMap((part) => part.params),
          ...order.params,
          walked,
          ...rest.params,
          ...outer.params,
          limit,
          offset,
        ],
      };
    };
    if (measured === undefined) return { page: query(ordered ?? selection.classDriver) };
    const inOrderAlready =
      measured.driver === ordered || (plan.sort === undefined && measured.driver.orderedByN);
    return {
      page: query(measured.driver),
      ...(ordered === undefined || inOrderAlready || offset + limit > measured.count
        ? {}
        : { walk: query(ordered, measured.count) }),
    };
  }

  /** `EXPLAIN QUERY PLAN` details of a list plan's page query, for tests proving index use. */
  explainList(plan: ListPlan, access: AccessFilter): string[] {
    const query = this.listQuery(plan, access);
    return query === null ? [] : this.explain(query);
  }

  /** `EXPLAIN QUERY PLAN` details of a list plan's bounded walk in order (null when it has none). */
  explainListWalk(plan: ListPlan, access: AccessFilter): string[] | null {
    const walk = this.listQueries(plan, access)?.walk;
    return walk === undefined ? null : this.explain(walk);
  }

  /** `EXPLAIN QUERY PLAN` details of `get`, for tests proving index use. */
  explainGet(id: string, access: AccessFilter): string[] {
    const query = this.fetchQuery('o.id = ?', [id], access);
    return this.explain(query);
  }

  async distinct(plan: DistinctPlan, access: AccessFilter): Promise<DistinctBucket[]> {
    this.requireModel();
    const selection = compileSelection(this.model, this.keys, plan, access);
    if (!selection.satisfiable) return [];
    if (plan.target.kind === 'field') {
      const field = indexedField(this.model, plan.className, plan.target.field);
      if (field === undefined) return [];
      const counted = this.aggregates.distinct(plan, access, this.derivedCurrent(), field);
      if (counted !== null) return counted;
      const rows = this.fieldValueRows(selection, plan.className, field.name, access);
      if (rows === null) return [];
      const order = { value: 's.v', count: 'count(*), s.v', countDesc: 'count(*) DESC, s.v' }[plan.order];
      // `s.n`: some object of the bucket (each holds a key that folds like the bucket's). Not min():
      // that aggregate costs as much as the grouping itself.
      const buckets = this.statement(
        `SELECT s.v AS v, s.n AS first, count(*) AS count ${rows.text} GROUP BY s.v ORDER BY ${order}`,
      ).all(...rows.params) as { v: unknown; first: number; count: number }[];
      const written = this.writtenTextKeys(field, buckets);
      return buckets.map((row) => ({
        value: fromIndexKey(field.type, written.get(row) ?? row.v),
        count: row.count,
      }));
    }
    // A relation never linked has no key: every object of the selection is in the null bucket.
    const rel = this.lookupKey(`r:${plan.target.relation.key}`) ?? -1;
    const [own, other] = plan.target.relation.direction === 'forward' ? ['src', 'dst'] : ['dst', 'src'];
    const driver = this.smallestCandidate(selection, this.driverLimit) ?? selection.classDriver;
    const where = whereClause(selection, driver);
    const visible = visibleLinked(this.keys, access, `l.${other}`);
    const nullsLast = 'b.t IS NULL, t.name, t.id';
    const order = {
      value: nullsLast,
      count: `b.count, ${nullsLast}`,
      countDesc: `b.count DESC, ${nullsLast}`,
    }[plan.order];
    const rows = this.statement(
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
    ).all(...where.params, rel, ...visible.params, rel, ...visible.params) as {
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
    this.requireModel();
    const compiled = compileSelection(this.model, this.keys, selection, access);
    if (!compiled.satisfiable) return [];
    const driver = this.smallestCandidate(compiled, this.driverLimit) ?? compiled.classDriver;
    const where = whereClause(compiled, driver);
    const path = `$.${JSON.stringify(field)}`;
    const hidden = hiddenSource(this.model, this.keys, selection.className, field, access)?.('o.n');
    const rows = this.statement(
      `SELECT o.id AS id, o.basic AS basic, o.vals -> ? AS value FROM ${driver.from}
       JOIN objects o ON o.n = ${driver.n}
       WHERE ${where.text} AND o.vals -> ? IS NOT NULL${hidden === undefined ? '' : ` AND NOT ${hidden.text}`}
       ORDER BY o.n`,
    ).all(path, ...where.params, path, ...(hidden?.params ?? [])) as {
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
    this.requireModel();
    const selection = compileSelection(this.model, this.keys, plan, access);
    const result = {
      total: 0,
      sum: {} as Record<string, number>,
      avg: {} as Record<string, number>,
      count: {} as Record<string, number>,
    };
    if (!selection.satisfiable) return result;
    const counted = this.aggregates.aggregate(plan, access, this.derivedCurrent());
    if (counted !== null) return counted;
    const selective = this.smallestCandidate(selection, this.driverLimit);
    const driver = selective ?? selection.classDriver;
    const where = whereClause(selection, driver);
    result.total = this.statement(`SELECT count(*) FROM ${driver.from} WHERE ${where.text}`)
      .pluck()
      .get(...where.params) as number;
    const stats = new Map<string, { sum: number; avg: number | null; count: number }>();
    for (const name of new Set([...plan.sum, ...plan.avg, ...plan.count])) {
      const field = indexedField(this.model, plan.className, name);
      if (field === undefined || !NUMERIC_TYPES.has(field.type)) continue;
      const rows = this.fieldValueRows(selection, plan.className, field.name, access, selective);
      stats.set(
        name,
        rows === null
          ? { sum: 0, avg: null, count: 0 }
          : (this.statement(
              `SELECT total(s.v) AS sum, avg(s.v) AS avg, count(DISTINCT s.n) AS count ${rows.text}`,
            ).get(...rows.params) as { sum: number; avg: number | null; count: number }),
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

  async linksTo(id: string): Promise<{ sourceId: string; relationKey: string }[]> {
    const n = this.objectKey(id);
    if (n === null) return [];
    const rows = this.statement(
      `SELECT s.id AS sourceId, substr(k.name, 3) AS relationKey FROM links l
       JOIN objects s ON s.n = l.src JOIN dict k ON k.k = l.rel WHERE l.dst = ? ORDER BY l.src, l.rel, l.pos`,
    ).all(n) as { sourceId: string; relationKey: string }[];
    return rows;
  }

  async refsOf(ids: readonly string[], access: AccessFilter): Promise<ObjectRef[]> {
    return this.names.refsOf(ids, access);
  }

  async incomingRefs(
    ids: readonly string[],
    access: AccessFilter,
    bound?: IncomingBound,
  ): Promise<IncomingRef[]> {
    return this.names.incomingRefs(ids, access, bound);
  }

  /**
   * Applies the batch in one SQLite transaction, in this order: puts (rows first, then links, so
   * objects of the batch may link to each other), redirects, deletes, unique checks, ACL rows,
   * holdings, events. Throws NotFoundError when a link names an object that does not exist after
   * the batch, ConflictError when a `unique` value would be shared; nothing is applied then.
   */
  async hiddenDerivedFields(
    ids: readonly string[],
    access: AccessFilter,
  ): Promise<ReadonlyMap<string, ReadonlySet<string>>> {
    const hidden = new Map<string, Set<string>>();
    if (ids.length === 0 || access.kind === 'all') return hidden;
    this.requireModel();
    const rows = this.statement(
      'SELECT o.n AS n, o.id AS id, o.classes AS classes FROM objects o WHERE o.id IN (SELECT value FROM json_each(?))',
    ).all(JSON.stringify(ids)) as { n: number; id: string; classes: string }[];
    /** Objects of one class combination share their derived fields: one query per field and combination. */
    const byClasses = new Map<string, { n: number; id: string }[]>();
    for (const row of rows) {
      const group = byClasses.get(row.classes) ?? [];
      group.push(row);
      byClasses.set(row.classes, group);
    }
    for (const [classes, objects] of byClasses) {
      const idOfKey = new Map(objects.map((object) => [object.n, object.id]));
      const derived = derivedSourcesOf(this.model, JSON.parse(classes) as string[]);
      for (const [field, paths] of derived) {
        const condition = hiddenAlongAny(this.keys, paths, access)?.('j.value');
        if (condition === undefined) continue;
        const keys = this.statement(`SELECT j.value FROM json_each(?) j WHERE ${condition.text}`)
          .pluck()
          .all(JSON.stringify(objects.map((object) => object.n)), ...condition.params) as number[];
        for (const key of keys) {
          const id = idOfKey.get(key);
          if (id === undefined) continue;
          const fields = hidden.get(id) ?? new Set<string>();
          fields.add(field);
          hidden.set(id, fields);
        }
      }
    }
    return hidden;
  }

  /**
   * One transaction per batch, committed before the promise resolves, so an acknowledged write is
   * durable (see the WAL note in the constructor). Writes are not grouped into shared commits: the
   * object data API's writes of a tenant reach the store one at a time (the access control derives
   * each from the state the previous one left), and waiting a turn for more writes to share a
   * commit only lengthened that serial section (docs/performance.md: at 10k, 423 creates/s and 234
   * patches/s with shared commits, 714 and 561 without).
   */
  async write(batch: WriteBatch): Promise<void> {
    this.requireModel();
    this.inTransaction(() => this.applyBatch(batch));
  }

  /**
   * Inserts or replaces many objects in one transaction (seeding, imports, benchmarks), with the
   * same derived data and checks as `write`. Not part of the port.
   */
  bulkWrite(objects: readonly StoredObject[]): void {
    this.requireModel();
    this.inTransaction(() => this.applyBatch({ put: objects }));
  }

  async redirectOf(id: string): Promise<string | null> {
    const next = this.statement('SELECT dst FROM redirects WHERE src = ?').pluck();
    const seen = new Set<string>([id]);
    let current = next.get(id) as string | undefined;
    if (current === undefined) return null;
    for (
      let further = next.get(current) as string | undefined;
      further !== undefined && !seen.has(further);
    ) {
      seen.add(current);
      current = further;
      further = next.get(current) as string | undefined;
    }
    return this.objectKey(current) === null ? null : current;
  }

  async aclRowsOf(id: string): Promise<AclRow[]> {
    return this.statement(
      `SELECT a.ac AS acId, a.node AS nodeId, a.def AS definition FROM acl a JOIN objects o ON o.n = a.n
       WHERE o.id = ? ORDER BY a.ac, a.node, a.def`,
    ).all(id) as AclRow[];
  }

  async holdingsOf(holderId: string): Promise<Holding[]> {
    return this.holdingsWhere('holder = ?', holderId);
  }

  async holdingsOfAcId(acId: string): Promise<Holding[]> {
    return this.holdingsWhere('ac = ?', acId);
  }

  async storedAclIds(): Promise<{ nodeIds: string[]; stepIds: string[] }> {
    const nodeIds = this.statement('SELECT DISTINCT node FROM acl ORDER BY node').pluck().all() as string[];
    const stepIds = this.statement(
      'SELECT DISTINCT s.value FROM holdings h, json_each(h.steps) s ORDER BY s.value',
    )
      .pluck()
      .all() as string[];
    return { nodeIds, stepIds };
  }

  async scan(afterId: string | null, limit: number): Promise<StoredObject[]> {
    const rows = this.statement(
      `SELECT ${OBJECT_COLUMNS} FROM objects o WHERE o.id > ? ORDER BY o.id LIMIT ?`,
    ).all(afterId ?? '', limit) as ObjectRow[];
    return this.hydrate(rows);
  }

  async outbox(limit: number): Promise<NewJob[]> {
    const rows = this.statement('SELECT job FROM outbox ORDER BY seq LIMIT ?').pluck().all(limit) as string[];
    return rows.map((row) => JSON.parse(row) as NewJob);
  }

  async removeFromOutbox(ids: readonly string[]): Promise<void> {
    const remove = this.statement('DELETE FROM outbox WHERE id = ?');
    this.inTransaction(() => {
      for (const id of ids) remove.run(id);
    });
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
    const valuesOf = this.statement('SELECT vals FROM objects WHERE n = ?').pluck();
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

  /** Refreshes the planner's statistics (after bulk loads). */
  analyze(): void {
    this.db.exec('ANALYZE');
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    this.db.pragma('optimize');
    this.db.close();
  }

  // ---- writes -------------------------------------------------------------------------------

  private applyBatch(batch: WriteBatch): void {
    for (const { id, modifiedAt } of batch.expect ?? []) {
      const current = this.statement('SELECT modified FROM objects WHERE id = ?').pluck().get(id) as
        string | undefined;
      if ((current ?? null) !== modifiedAt) throw new WriteConflictError(id);
    }
    const keysOfPuts = new Map<string, number>();
    for (const object of batch.put ?? []) keysOfPuts.set(object.id, this.putObject(object));
    for (const object of batch.put ?? []) this.putLinks(object, keysOfPuts.get(object.id) ?? -1);
    // Redirects first: an id already redirected to a merged-away object follows it to the survivor
    // (chains), before deleting that object drops the redirects that led to it.
    for (const redirect of batch.redirects ?? []) {
      this.statement('UPDATE redirects SET dst = ? WHERE dst = ?').run(redirect.to, redirect.from);
      this.statement('INSERT OR REPLACE INTO redirects (src, dst) VALUES (?, ?)').run(
        redirect.from,
        redirect.to,
      );
    }
    for (const id of batch.delete ?? []) this.deleteObject(id);
    for (const object of batch.put ?? []) this.checkUnique(object, keysOfPuts.get(object.id) ?? -1);
    for (const entry of batch.aclRows ?? []) {
      const n = this.objectKey(entry.objectId);
      if (n === null) continue;
      this.statement('DELETE FROM acl WHERE n = ?').run(n);
      const insert = this.statement('INSERT OR IGNORE INTO acl (n, ac, node, def) VALUES (?, ?, ?, ?)');
      for (const row of entry.rows) insert.run(n, row.acId, row.nodeId, row.definition);
      this.refreshAclClasses(n);
    }
    for (const entry of batch.holdings ?? []) {
      this.statement('DELETE FROM holdings WHERE anchor = ? AND def = ?').run(
        entry.anchorId,
        entry.definition,
      );
      const insert = this.statement(
        'INSERT INTO holdings (holder, ac, def, anchor, steps) VALUES (?, ?, ?, ?, ?)',
      );
      for (const row of entry.rows) {
        insert.run(row.holderId, row.acId, row.definition, row.anchorId, JSON.stringify(row.stepIds));
      }
    }
    for (const event of batch.events ?? []) {
      this.statement(
        'INSERT INTO events (type, object_id, classes, loser_id, at, changed) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(
        event.type,
        event.objectId,
        JSON.stringify(event.classes),
        event.loserId ?? null,
        event.at,
        event.changed === undefined ? null : JSON.stringify(event.changed),
      );
    }
    for (const job of batch.jobs ?? []) {
      this.statement('INSERT OR IGNORE INTO outbox (id, job) VALUES (?, ?)').run(job.id, JSON.stringify(job));
    }
  }

  /**
   * Inserts the object row, or updates it in place (keeping its key, so creation order holds), and
   * writes its class, index and search rows (replacing the old ones of an update).
   */
  private putObject(object: StoredObject): number {
    const columns = [
      object.basicClass,
      JSON.stringify(object.classes),
      object.name,
      JSON.stringify(object.values),
      object.createdAt,
      object.modifiedAt,
    ];
    const existing = this.objectKey(object.id);
    if (existing !== null) {
      this.statement(
        'UPDATE objects SET basic = ?, classes = ?, name = ?, vals = ?, created = ?, modified = ? WHERE n = ?',
      ).run(...columns, existing);
      this.deriveRows(object, existing, true);
      return existing;
    }
    const n = this.statement(
      'INSERT INTO objects (id, basic, classes, name, vals, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING n',
    )
      .pluck()
      .get(object.id, ...columns) as number;
    this.deriveRows(object, n, false);
    return n;
  }

  /** Writes the class membership, value index and search rows of an object (replacing old ones). */
  private deriveRows(object: StoredObject, n: number, replace: boolean): void {
    if (replace) {
      this.aggregates.apply(n, -1);
      this.statement('DELETE FROM cls WHERE n = ?').run(n);
      this.statement('DELETE FROM ix WHERE n = ?').run(n);
      this.statement('DELETE FROM search WHERE rowid = ?').run(n);
    }
    const insertClass = this.statement('INSERT OR IGNORE INTO cls (c, n) VALUES (?, ?)');
    const insertValue = this.statement('INSERT OR IGNORE INTO ix (c, f, v, n) VALUES (?, ?, ?, ?)');
    const insertEmpty = this.statement(
      `INSERT OR IGNORE INTO ix (c, f, v, n) VALUES (?, ?, ${EMPTY_KEY}, ?)`,
    );
    for (const className of new Set(object.classes)) {
      const c = this.intern(`c:${className}`);
      insertClass.run(c, n);
      const classDef = this.model.classes.get(className);
      if (classDef === undefined) continue;
      for (const field of indexedFields(classDef)) {
        const f = this.intern(`f:${field.name}`);
        const keys = indexKeysOf(field, object.values[field.name]);
        if (keys.length === 0) insertEmpty.run(c, f, n);
        for (const key of keys) insertValue.run(c, f, ixKey(key), n);
      }
    }
    this.aggregates.apply(n, 1);
    const text = searchTextOf(this.model, object);
    if (text !== '') this.statement('INSERT INTO search (rowid, text) VALUES (?, ?)').run(n, text);
    if (replace) this.refreshAclClasses(n);
  }

  /** Re-derives the `acl_cls` rows of an object from its ACL rows and classes (after either changed). */
  private refreshAclClasses(n: number): void {
    this.statement('DELETE FROM acl_cls WHERE n = ?').run(n);
    this.statement(
      'INSERT OR IGNORE INTO acl_cls (ac, c, n) SELECT a.ac, m.c, a.n FROM acl a JOIN cls m ON m.n = a.n WHERE a.n = ?',
    ).run(n);
  }

  private putLinks(object: StoredObject, n: number): void {
    this.statement('DELETE FROM links WHERE src = ?').run(n);
    const insert = this.statement('INSERT OR IGNORE INTO links (src, rel, pos, dst) VALUES (?, ?, ?, ?)');
    for (const [relationKey, targets] of Object.entries(object.links)) {
      const rel = this.intern(`r:${relationKey}`);
      targets.forEach((targetId, position) => {
        const target = this.objectKey(targetId);
        if (target === null) throw new NotFoundError(`The linked object ${targetId} does not exist.`);
        insert.run(n, rel, position, target);
      });
    }
  }

  /**
   * Removes the object with everything derived from it: class, index and search rows, its links in
   * both directions (no link ever dangles), its ACL rows, and redirects that led to it.
   */
  private deleteObject(id: string): void {
    const n = this.objectKey(id);
    if (n === null) return;
    this.aggregates.apply(n, -1);
    for (const sql of [
      'DELETE FROM cls WHERE n = ?',
      'DELETE FROM ix WHERE n = ?',
      'DELETE FROM links WHERE src = ?',
      'DELETE FROM links WHERE dst = ?',
      'DELETE FROM acl WHERE n = ?',
      'DELETE FROM acl_cls WHERE n = ?',
      'DELETE FROM search WHERE rowid = ?',
      'DELETE FROM objects WHERE n = ?',
    ]) {
      this.statement(sql).run(n);
    }
    this.statement('DELETE FROM redirects WHERE dst = ?').run(id);
  }

  /** A `unique` field's values must not be held by another object of the declaring class (subclasses included). */
  private checkUnique(object: StoredObject, n: number): void {
    if (this.objectKey(object.id) === null) return;
    const clash = this.statement(
      'SELECT 1 FROM ix WHERE c = ? AND f = ? AND v = ? AND n <> ? LIMIT 1',
    ).pluck();
    const checked = new Set<string>();
    for (const className of object.classes) {
      for (const field of this.model.classes.get(className)?.fields.values() ?? []) {
        if (
          !field.unique ||
          checked.has(field.name) ||
          indexedField(this.model, className, field.name) === undefined
        ) {
          continue;
        }
        checked.add(field.name);
        const c = this.lookupKey(`c:${field.declaredOn}`);
        const f = this.lookupKey(`f:${field.name}`);
        for (const key of indexKeysOf(field, object.values[field.name])) {
          if (clash.get(c, f, ixKey(key), n) !== undefined) {
            throw new ConflictError(
              `Another object already has this value of the unique field ${field.name}.`,
              {
                field: field.name,
              },
            );
          }
        }
      }
    }
  }

  /**
   * Re-derives class, index and search rows of every object for `model` and records its signature.
   * Runs in transactions of `rebuildBatchSize` objects in key order, yielding to the event loop
   * between them, so the process keeps serving meanwhile. Each object is re-derived in one
   * transaction (its old rows replaced), so a reader sees every object with the rows of either the
   * previous or the new model (docs/storage.md). The signature is forgotten in the first batch and
   * recorded after the last, so an interrupted rebuild is redone by the next `applyModel`; a
   * rebuild started meanwhile (a newer model) supersedes this one, which then stops.
   */
  private async rebuildDerived(model: Model): Promise<number> {
    this.useModel(model);
    const generation = ++this.rebuildGeneration;
    const last = (this.statement('SELECT max(n) FROM objects').pluck().get() as number | null) ?? 0;
    this.inTransaction(() => this.statement("DELETE FROM meta WHERE k = 'index_signature'").run());
    const batch = this.statement(
      `SELECT ${OBJECT_COLUMNS} FROM objects o WHERE o.n > ? AND o.n <= ? ORDER BY o.n LIMIT ?`,
    );
    let count = 0;
    for (let after = 0; after < last;) {
      if (generation !== this.rebuildGeneration) return count;
      const rows = batch.all(after, last, this.rebuildBatchSize) as ObjectRow[];
      if (rows.length === 0) break;
      this.inTransaction(() => {
        for (const row of rows) this.deriveRows(toStoredObject(row, {}), row.n, true);
      });
      count += rows.length;
      after = rows.at(-1)?.n ?? last;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (generation !== this.rebuildGeneration) return count;
    this.inTransaction(() => {
      this.aggregates.recompute();
      this.statement('INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)').run(
        'index_signature',
        this.signature,
      );
    });
    return count;
  }

  /**
   * Runs `work` in one write transaction. BEGIN IMMEDIATE takes the write lock up front: a deferred
   * transaction that reads first cannot wait for a lock held by another process (the `odp` command,
   * a second api instance) and fails at once with SQLITE_BUSY; an immediate one waits `busy_timeout`.
   * Interned keys created by a rolled-back transaction are forgotten.
   */
  private inTransaction<T>(work: () => T): T {
    try {
      return this.transaction.immediate(work) as T;
    } catch (error) {
      this.forgetUncommittedKeys();
      throw error;
    } finally {
      this.driverCounts.clear();
    }
  }

  /** Interned keys created by a rolled-back transaction or savepoint may be handed out again. */
  private forgetUncommittedKeys(): void {
    this.dictCache.clear();
    this.aggregates.forgetKeys();
  }

  // ---- reads --------------------------------------------------------------------------------

  private fetchQuery(where: string, params: readonly unknown[], access: AccessFilter): Sql {
    const visible = compileAccess(this.keys, access)?.('o.n');
    return {
      text: `SELECT ${OBJECT_COLUMNS} FROM objects o WHERE ${where}${visible === undefined ? '' : ` AND ${visible.text}`}`,
      params: [...params, ...(visible?.params ?? [])],
    };
  }

  private fetchWhere(where: string, params: readonly unknown[], access: AccessFilter): StoredObject[] {
    const query = this.fetchQuery(where, params, access);
    return this.hydrate(this.statement(query.text).all(...query.params) as ObjectRow[]);
  }

  /** Object rows of `keys`, in the order of `keys`. */
  private objectsByKey(keys: readonly number[]): ObjectRow[] {
    if (keys.length === 0) return [];
    const rows = this.statement(
      `SELECT ${OBJECT_COLUMNS} FROM objects o WHERE o.n IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(keys)) as ObjectRow[];
    const byKey = new Map(rows.map((row) => [row.n, row]));
    return keys.map((key) => byKey.get(key)).filter((row): row is ObjectRow => row !== undefined);
  }

  /** StoredObjects of rows, with their forward links read in one query. */
  private hydrate(rows: readonly ObjectRow[]): StoredObject[] {
    if (rows.length === 0) return [];
    const linkRows = this.statement(
      `SELECT l.src AS src, substr(k.name, 3) AS rel, t.id AS dst FROM links l
       JOIN dict k ON k.k = l.rel JOIN objects t ON t.n = l.dst
       WHERE l.src IN (SELECT value FROM json_each(?)) ORDER BY l.src, l.rel, l.pos`,
    ).all(JSON.stringify(rows.map((row) => row.n))) as { src: number; rel: string; dst: string }[];
    const links = new Map<number, Record<string, string[]>>();
    for (const link of linkRows) {
      const ofObject = links.get(link.src) ?? {};
      (ofObject[link.rel] ??= []).push(link.dst);
      links.set(link.src, ofObject);
    }
    return rows.map((row) => toStoredObject(row, links.get(row.n) ?? {}));
  }

  private holdingsWhere(where: string, value: string): Holding[] {
    const rows = this.statement(
      `SELECT holder, ac, def, anchor, steps FROM holdings WHERE ${where} ORDER BY anchor, def, holder, rowid`,
    ).all(value) as { holder: string; ac: string; def: string; anchor: string; steps: string }[];
    return rows.map((row) => ({
      holderId: row.holder,
      acId: row.ac,
      definition: row.def,
      anchorId: row.anchor,
      stepIds: JSON.parse(row.steps) as string[],
    }));
  }

  /**
   * `FROM ... WHERE ...` yielding the non-empty index values `s.v` (with object key `s.n`) of one
   * field over a selection: walked from a selective filter's range when there is one (probing each
   * candidate's value), else from the field's own index range. A derived value computed from an
   * object `access` hides counts as empty (left out). Null when the field was never stored.
   */
  private fieldValueRows(
    selection: CompiledSelection,
    className: string,
    fieldName: string,
    access: AccessFilter,
    selective = this.smallestCandidate(selection, this.driverLimit),
  ): Sql | null {
    const c = this.lookupKey(`c:${className}`);
    const f = this.lookupKey(`f:${fieldName}`);
    if (c === null || f === null) return null;
    const nonEmpty = `s.c = ? AND s.f = ? AND s.v > ${EMPTY_KEY}`;
    const hidden = hiddenSource(this.model, this.keys, className, fieldName, access)?.('s.n');
    const unhidden = hidden === undefined ? '' : ` AND NOT ${hidden.text}`;
    const unhiddenParams = hidden?.params ?? [];
    if (selective === undefined) {
      const own: Driver = {
        from: 'ix s',
        where: { text: nonEmpty, params: [c, f] },
        n: 's.n',
        covers: [0],
        orderedByN: false,
      };
      const where = whereClause(selection, own);
      return {
        text: `FROM ix s WHERE ${where.text}${unhidden}`,
        params: [...where.params, ...unhiddenParams],
      };
    }
    const where = whereClause(selection, selective);
    return {
      text: `FROM ${selective.from} JOIN ix s ON s.n = ${selective.n} AND ${nonEmpty} WHERE ${where.text}${unhidden}`,
      params: [c, f, ...where.params, ...unhiddenParams],
    };
  }

  /**
   * The candidate driver with the fewest rows when that is below `limit` (measured by counting at
   * most `limit` index entries), else undefined.
   */
  private smallestCandidate(selection: CompiledSelection, limit: number): Driver | undefined {
    return this.smallestMeasured(selection, limit)?.driver;
  }

  /** {@link smallestCandidate} with its measured row count. */
  private smallestMeasured(
    selection: CompiledSelection,
    limit: number,
  ): { readonly driver: Driver; readonly count: number } | undefined {
    let best: { driver: Driver; count: number } | undefined;
    for (const driver of selection.candidates) {
      const count = this.driverCount(driver, limit);
      if (count < limit && (best === undefined || count < best.count)) best = { driver, count };
    }
    return best;
  }

  /** The rows of `driver`'s range, counted up to `limit` (remembered: see `driverCounts`). */
  private driverCount(driver: Driver, limit: number): number {
    const key = `${limit}\u0000${driver.from}\u0000${driver.where.text}\u0000${JSON.stringify(driver.where.params)}`;
    const now = Date.now();
    const known = this.driverCounts.get(key);
    if (known !== undefined && now - known.at < DRIVER_COUNT_TTL_MS) return known.count;
    const count = this.statement(
      `SELECT count(*) FROM (SELECT 1 FROM ${driver.from} WHERE ${driver.where.text} LIMIT ?)`,
    )
      .pluck()
      .get(...driver.where.params, limit) as number;
    if (this.driverCounts.size >= MAX_DRIVER_COUNTS) this.driverCounts.clear();
    this.driverCounts.set(key, { count, at: now });
    return count;
  }

  private explain(query: Sql): string[] {
    return (
      this.db.prepare(`EXPLAIN QUERY PLAN ${query.text}`).all(...query.params) as { detail: string }[]
    ).map((row) => row.detail);
  }

  // ---- keys and statements ------------------------------------------------------------------

  private lookupKey(name: string): number | null {
    const cached = this.dictCache.get(name);
    if (cached !== undefined) return cached;
    const key = this.statement('SELECT k FROM dict WHERE name = ?').pluck().get(name) as number | undefined;
    if (key === undefined) return null;
    this.dictCache.set(name, key);
    return key;
  }

  private intern(name: string): number {
    const existing = this.lookupKey(name);
    if (existing !== null) return existing;
    const key = this.statement('INSERT INTO dict (name) VALUES (?) RETURNING k').pluck().get(name) as number;
    this.dictCache.set(name, key);
    return key;
  }

  private objectKey(id: string): number | null {
    return (
      (this.statement('SELECT n FROM objects WHERE id = ?').pluck().get(id) as number | undefined) ?? null
    );
  }

  /** The random key that signs search cursors, created with the database. */
  private cursorSecret(): Buffer {
    const stored = this.db.prepare('SELECT v FROM meta WHERE k = ?').pluck().get('cursor_key') as
      string | undefined;
    if (stored !== undefined) return Buffer.from(stored, 'base64');
    const secret = randomBytes(32);
    this.db
      .prepare('INSERT OR IGNORE INTO meta (k, v) VALUES (?, ?)')
      .run('cursor_key', secret.toString('base64'));
    return Buffer.from(
      this.db.prepare('SELECT v FROM meta WHERE k = ?').pluck().get('cursor_key') as string,
      'base64',
    );
  }

  private statement(sql: string): Database.Statement {
    const cached = this.statements.get(sql);
    if (cached !== undefined) return cached;
    const prepared = this.db.prepare(sql);
    if (this.statements.size >= STATEMENT_CACHE_SIZE) {
      const oldest = this.statements.keys().next().value;
      if (oldest !== undefined) this.statements.delete(oldest);
    }
    this.statements.set(sql, prepared);
    return prepared;
  }

  private requireModel(): void {
    if (!this.modelApplied) throw new Error('applyModel must be called before queries and writes.');
  }
}

function toStoredObject(row: ObjectRow, links: Readonly<Record<string, readonly string[]>>): StoredObject {
  return {
    id: row.id,
    basicClass: row.basic,
    classes: JSON.parse(row.classes) as string[],
    name: row.name,
    values: JSON.parse(row.vals) as Record<string, unknown>,
    links,
    createdAt: row.created,
    modifiedAt: row.modified,
  };
}

/** A sort key as read from the index, in a position: the empty key (and a missing one) is null. */
function positionKey(key: unknown): IndexKey | null {
  return typeof key === 'string' || (typeof key === 'number' && Number.isFinite(key)) ? key : null;
}
