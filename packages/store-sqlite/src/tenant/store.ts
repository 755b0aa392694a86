/**
 * The embedded tenant store: one SQLite database file per tenant (isolation by construction),
 * implementing the `TenantStore` port of `@odp/core` and keeping its full-text index (search.ts)
 * in the same file and the same transactions. This class wires the parts, one concern each:
 * the connection (database.ts), the list planner (list-planner.ts) and the query compilers
 * (query/), object rows (object-rows.ts), reads over a selection (summary-reads.ts), the batch
 * writer (batch-writer.ts), access rows (access-rows.ts), events (events.ts), the outbox
 * (outbox.ts), redirects (redirects.ts), rebuilds for a changed model (rebuild.ts) and the schema
 * (schema.ts). See docs/storage.md.
 */
import type {
  AccessFilter,
  AclRow,
  AggregatePlan,
  AggregateResult,
  AppliedWrite,
  DistinctBucket,
  DistinctPlan,
  EventLog,
  Holding,
  IncomingBound,
  IncomingRef,
  IndexKey,
  ListPage,
  ListPlan,
  LockReleases,
  Model,
  NewJob,
  ObjectRef,
  Selection,
  StoredObject,
  TenantStore,
  WriteBatch,
} from '@odp/core';
import { LoopSlices } from '@odp/core';
import { AccessRows } from './access-rows.js';
import { TenantAggregates } from './aggregates.js';
import { AppliedModel } from './applied-model.js';
import { BatchWriter, refsChangedCount, valuesJsonOf } from './batch-writer.js';
import { TenantDatabase } from './database.js';
import { tenantEventLog } from './events.js';
import { registerStoreParts } from './inspection.js';
import { ListPlanner } from './list-planner.js';
import { TenantNames } from './names.js';
import { ObjectRows } from './object-rows.js';
import { RememberedRows } from './remembered-rows.js';
import { amongValues } from './query/sql.js';
import { SqliteIdempotencyRecords } from './idempotency.js';
import { TenantOutbox } from './outbox.js';
import { DerivedRebuild } from './rebuild.js';
import { ClassColumns, classColumnsTag } from './class-columns.js';
import { DerivedRows } from './derived-rows.js';
import { followRedirects } from './redirects.js';
import { SqliteSearchIndex } from './search.js';
import { SearchCompaction } from './search-compaction.js';
import { FrozenRankings, rankingsFile } from './search-rankings.js';
import { withWalFiles } from '../sqlite-files.js';
import { SummaryReads } from './summary-reads.js';
import type { WalCheckpointer } from './wal-checkpoints.js';

export interface SqliteTenantStoreOptions {
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
  /**
   * The largest full-text index (in FTS5 data rows, about a page each) merged into one segment
   * once writes go quiet (search-compaction.ts); larger ones are left to FTS5's own merging.
   * Default 8,192.
   */
  readonly searchMergePagesMax?: number;
  /**
   * Composite (equality field, sort field) indexes per class at most (class-columns.ts): each
   * serves the sorted pages of a filter on an enumeration or flag, and costs an index entry per
   * write of a member of the class. Default 4; changing it rebuilds the derived data.
   */
  readonly compositeIndexLimit?: number;
  /** Objects re-derived per transaction by a rebuild (the event loop runs between). Default 500. */
  readonly rebuildBatchSize?: number;
  /**
   * Checkpoints the database's WAL off the event loop (a process's `WalCheckpointThread`); without
   * one, SQLite checkpoints in the connection that commits (wal-checkpoints.ts says why not).
   */
  readonly checkpointer?: WalCheckpointer;
  /**
   * Where the other processes writing the file announce their commits, and this store its own, so
   * that a write waiting for the file's lock tries again at once (the cluster of api processes).
   */
  readonly lockReleases?: LockReleases;
  /** How long a write turn runs derivations before it commits (commit-groups.ts). Default 3 ms. */
  readonly maxTurnMs?: number;
}

/**
 * Every file a tenant store keeps for its database `file`: the database and the frozen search
 * rankings beside it (search-rankings.ts), each with its WAL and shared-memory files.
 */
export function sqliteTenantStoreFiles(file: string): string[] {
  return [file, rankingsFile(file)].flatMap(withWalFiles);
}

/** Opens (creating and migrating when needed) the database of one tenant. */
export function openSqliteTenantStore(options: SqliteTenantStoreOptions): SqliteTenantStore {
  return new SqliteTenantStore(options);
}

export class SqliteTenantStore implements TenantStore {
  /** The tenant's full-text index, maintained by `write` in the same transaction. */
  readonly search: SqliteSearchIndex;
  /** The change events `write` appends (events.ts). */
  readonly events: EventLog;
  /** The records of keyed requests, which `write` stores with the batch they describe (idempotency.ts). */
  readonly idempotency: SqliteIdempotencyRecords;

  private readonly database: TenantDatabase;
  private readonly model: AppliedModel;
  private readonly rows: ObjectRows;
  private readonly planner: ListPlanner;
  private readonly summaries: SummaryReads;
  private readonly names: TenantNames;
  private readonly accessRows: AccessRows;
  private readonly outboxJobs: TenantOutbox;
  private readonly writer: BatchWriter;
  private readonly rebuilds: DerivedRebuild;
  private readonly searchCompaction: SearchCompaction;
  private readonly rankings: FrozenRankings;

  constructor(options: SqliteTenantStoreOptions) {
    // The connection's options (map, checkpointer, lock releases, turn bound) are the store's own.
    const database = new TenantDatabase(options.file, options);
    this.database = database;
    this.searchCompaction = new SearchCompaction(database, options.searchMergePagesMax);
    this.rankings = new FrozenRankings(options.file);
    const statement = (sql: string) => database.statement(sql);
    const aggregates = new TenantAggregates({ statement, key: (name) => database.lookupKey(name) });
    database.onForget('rollback', () => aggregates.forgetKeys());
    database.deferUntilCommit(aggregates);
    const compositeLimit = Math.max(0, Math.trunc(options.compositeIndexLimit ?? 4));
    this.model = new AppliedModel(
      database,
      (model) => aggregates.setModel(model),
      classColumnsTag(compositeLimit),
    );
    const columns = new ClassColumns(database, this.model, compositeLimit);
    const changes = database.changes();
    this.rows = new ObjectRows(database, new RememberedRows(changes));
    this.planner = new ListPlanner(database, this.model, columns, options.driverLimit ?? 5000);
    this.summaries = new SummaryReads(database, this.model, this.planner, aggregates);
    this.names = new TenantNames({
      keys: database.keys,
      statement,
      refsChanged: () => refsChangedCount(database),
      ...changes,
    });
    this.accessRows = new AccessRows(database, this.model);
    this.outboxJobs = new TenantOutbox(database);
    this.idempotency = new SqliteIdempotencyRecords(database);
    this.writer = new BatchWriter(
      database,
      this.model,
      new DerivedRows(database, this.model, aggregates, columns, this.accessRows, this.searchCompaction),
      this.accessRows,
      this.outboxJobs,
      this.idempotency,
    );
    const batchSize = Math.max(1, Math.trunc(options.rebuildBatchSize ?? 500));
    this.rebuilds = new DerivedRebuild(database, this.model, this.writer, aggregates, columns, batchSize);
    this.events = tenantEventLog(database);
    this.search = new SqliteSearchIndex({
      keys: database.keys,
      secret: database.cursorSecret(),
      rankLimit: options.searchRankLimit ?? 1000,
      cursorTtlMs: options.searchCursorTtlMs ?? 15 * 60_000,
      statement,
      rankings: this.rankings,
      write: (work) => database.inWriteTransaction(work),
      rebuild: (model) => this.rebuilds.rebuild(model),
      dataVersion: changes.dataVersion,
      onWrite: changes.onWrite,
    });
    registerStoreParts(this, { database, planner: this.planner, rows: this.rows });
  }

  /**
   * Remembers the model (writes derive index rows, unique checks and search text from it). When the
   * model's index signature differs from the one the stored derived data was built with, every
   * object's index rows and search text are rebuilt, in batches (rebuild.ts).
   */
  async applyModel(model: Model): Promise<void> {
    this.model.use(model, true);
    if (!this.model.derivedCurrent()) await this.rebuilds.rebuild(model);
  }

  async get(id: string, access: AccessFilter): Promise<StoredObject | null> {
    return this.rows.fetchWhere('o.id = ?', [id], access)[0] ?? null;
  }

  async getMany(ids: readonly string[], access: AccessFilter): Promise<StoredObject[]> {
    if (ids.length === 0) return [];
    const among = amongValues('o.id', ids);
    return this.rows.fetchWhere(among.text, among.params, access);
  }

  async list(plan: ListPlan, access: AccessFilter): Promise<StoredObject[]> {
    return this.rows.hydrate(this.rows.byKey(this.planner.listKeys(plan, access)));
  }

  /** A page of a list, its queries and its rows' conversion in slices of the event loop. */
  async page(plan: ListPlan, access: AccessFilter): Promise<ListPage> {
    const slices = new LoopSlices();
    // One sort for the page query and for the keys of the page's rows in it (its positions), which
    // are read with the rows (or remembered with them), apart from the page query, so that its
    // plan and order stay exactly those of a list.
    const sort = this.planner.sortOf(plan, access);
    const keys = this.planner.listKeys(plan, access, sort);
    await slices.next();
    const rows = await this.rows.page(keys, sort.key('o.n') ?? undefined, slices);
    return {
      rows: rows.map((row) => row.object),
      positions: rows.map((row) => ({ key: positionKey(row.sortKey), seq: row.n })),
    };
  }

  async distinct(plan: DistinctPlan, access: AccessFilter): Promise<DistinctBucket[]> {
    return this.summaries.distinct(plan, access);
  }

  async values(
    selection: Selection,
    field: string,
    access: AccessFilter,
  ): Promise<{ value: unknown; objectId: string; basicClass: string }[]> {
    return this.summaries.values(selection, field, access);
  }

  async aggregate(plan: AggregatePlan, access: AccessFilter): Promise<AggregateResult> {
    return this.summaries.aggregate(plan, access);
  }

  async linksTo(id: string): Promise<{ sourceId: string; relationKey: string }[]> {
    const n = this.database.objectKey(id);
    if (n === null) return [];
    // Most objects a write asks this of have no incoming link (an invoice, a line): a probe of the
    // index answers that at a third of the cost of the query with its joins and sort.
    if (this.database.statement('SELECT 1 FROM links WHERE dst = ? LIMIT 1').get(n) === undefined) return [];
    const rows = this.database
      .statement(
        `SELECT s.id AS sourceId, substr(k.name, 3) AS relationKey FROM links l
       JOIN objects s ON s.n = l.src JOIN dict k ON k.k = l.rel WHERE l.dst = ? ORDER BY l.src, l.rel, l.pos`,
      )
      .all(n) as { sourceId: string; relationKey: string }[];
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

  async hiddenDerivedFields(
    ids: readonly string[],
    access: AccessFilter,
  ): Promise<ReadonlyMap<string, ReadonlySet<string>>> {
    return this.accessRows.hiddenDerivedFields(ids, access);
  }

  /**
   * One transaction per batch, committed before the promise resolves, so an acknowledged write is
   * durable (see the WAL note in the constructor); writes applied by `applyWrite` before it are
   * committed first. The objects' values are serialised before the transaction, in slices of the
   * event loop (`valuesJsonOf`), so a large value's transaction holds the event loop for its
   * statements and commit alone.
   */
  async write(batch: WriteBatch): Promise<void> {
    this.model.require();
    const valuesJson = await valuesJsonOf(batch.put ?? []);
    await this.database.inWriteTransaction(() => this.writer.apply(batch, valuesJson));
  }

  /**
   * See `TenantDocuments.applyWrite`: applied in the write transaction shared by the writes of this
   * turn of the event loop and committed with them at its end (`TenantDatabase.applyInGroup`).
   * The object data API's writes of a tenant are derived one after the other (the access control
   * derives each from the state the previous one left); each used to wait for its own commit
   * before the next could be derived (waiting a turn for more writes to share a commit only
   * lengthened that serial section: docs/performance/runs.md, 23 November), and now only for its
   * application.
   */
  async applyWrite(batch: WriteBatch): Promise<AppliedWrite> {
    this.model.require();
    const valuesJson = await valuesJsonOf(batch.put ?? []);
    return this.database.applyInGroup(() => this.writer.apply(batch, valuesJson));
  }

  /** See `TenantDocuments.inWriteTurn` (`TenantDatabase.inWriteTurn`). */
  inWriteTurn<T>(derive: () => Promise<T>): Promise<T> {
    return this.database.inWriteTurn(derive);
  }

  /**
   * Inserts or replaces many objects in one transaction (seeding, imports, benchmarks), with the
   * same derived data and checks as `write`. Not part of the port.
   */
  bulkWrite(objects: readonly StoredObject[]): void {
    this.model.require();
    this.database.inTransaction(() => this.writer.apply({ put: objects }));
  }

  async redirectOf(id: string): Promise<string | null> {
    return followRedirects(this.database, id);
  }

  async aclRowsOf(id: string): Promise<AclRow[]> {
    return this.accessRows.aclRowsOf(id);
  }

  async holdingsOf(holderId: string): Promise<Holding[]> {
    return this.accessRows.holdingsOf(holderId);
  }

  async holdingsOfAcId(acId: string): Promise<Holding[]> {
    return this.accessRows.holdingsOfAcId(acId);
  }

  commitsElsewhere(): number {
    return this.database.dataVersion();
  }

  async storedAclIds(): Promise<{ nodeIds: string[]; stepIds: string[] }> {
    return this.accessRows.storedAclIds();
  }

  async scan(afterId: string | null, limit: number): Promise<StoredObject[]> {
    return this.rows.scan(afterId, limit);
  }

  async outbox(limit: number): Promise<NewJob[]> {
    return this.outboxJobs.read(limit);
  }

  async removeFromOutbox(ids: readonly string[]): Promise<void> {
    await this.outboxJobs.remove(ids);
  }

  /** Refreshes the planner's statistics (after bulk loads). */
  analyze(): void {
    this.database.analyze();
  }

  /**
   * Merges the full-text index into one segment now, in short steps (after bulk loads; writes
   * trigger the same merge once they have fragmented the index: search-compaction.ts).
   */
  compactSearchIndex(): Promise<void> {
    return this.searchCompaction.compact();
  }

  async close(): Promise<void> {
    await this.searchCompaction.close();
    this.rankings.close();
    await this.database.close();
  }
}

/** A sort key as read from the index, in a position: the empty key (and a missing one) is null. */
function positionKey(key: unknown): IndexKey | null {
  return typeof key === 'string' || (typeof key === 'number' && Number.isFinite(key)) ? key : null;
}
