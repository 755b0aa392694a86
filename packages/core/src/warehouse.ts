/**
 * The warehouse ports of the DatastoreReplicator gateway (interface spec, "Gateway
 * DatastoreReplicator"): {@link Warehouse}, the analytical store the rows end up in, and
 * {@link ReplicationBuffer}, where replicated changes wait for their micro-batch flush.
 *
 * Adapters: `@odp/warehouse-duckdb` (embedded DuckDB files) for the warehouse, the SQLite buffer of
 * `@odp/store-sqlite`. Neither port names a driver type.
 */

/** Column types of a warehouse table (rule 3 of the spec maps field types onto them). */
export type WarehouseColumnType = 'INT64' | 'NUMERIC' | 'BOOL' | 'DATE' | 'TIMESTAMP' | 'TIME' | 'STRING';

/** One table of the warehouse and what is needed to reach it. */
export interface WarehouseTarget {
  /**
   * The tenant whose data it holds: each tenant has a warehouse of its own, so two tenants naming the
   * same project never share (or overwrite) a table.
   */
  readonly tenantId: string;
  readonly projectId: string;
  readonly dataset: string;
  readonly table: string;
  /**
   * The service account key (JSON) from the tenant's secret value. An adapter that needs no
   * credentials (an embedded engine) does not use it; it never appears in a log or an error.
   */
  readonly credentials: string;
}

/** A row replacing the row of its id; values as text (null: no value), cast to the column types. */
export interface WarehouseRow {
  readonly id: string;
  readonly values: Readonly<Record<string, string | null>>;
}

/**
 * One flush: the latest state of each object changed since the last flush. An id is in `rows` or
 * in `deletes`, never both.
 */
export interface WarehouseBatch {
  /** The types of the columns the rows carry (`id`, always STRING, is implied). */
  readonly columns: Readonly<Record<string, WarehouseColumnType>>;
  readonly rows: readonly WarehouseRow[];
  /** Objects deleted: their rows are removed (hard delete). */
  readonly deletes: readonly string[];
}

export interface Warehouse {
  /**
   * Applies the batch atomically: creates the table on first use (an `id` STRING key and the
   * batch's columns), adds the columns it lacks (a column is never dropped, and keeps the type it
   * was created with), removes the deleted ids and replaces the rows. Throws when anything fails;
   * then nothing of the batch is written, so the caller may offer the same batch again.
   */
  write(target: WarehouseTarget, batch: WarehouseBatch): Promise<void>;
  /**
   * Why this warehouse can never have `target` (a project, dataset or table name it does not allow),
   * or null. A write to such a target fails every time, so the caller fails it for good, saying
   * why, instead of offering it again.
   */
  targetProblem(target: Pick<WarehouseTarget, 'tenantId' | 'projectId' | 'dataset' | 'table'>): string | null;
  /**
   * Removes what this warehouse keeps for the tenant itself (an embedded warehouse: its files); a
   * networked warehouse, whose projects belong to the tenant's own account, keeps them.
   */
  deleteTenant(tenantId: string): Promise<void>;
  close(): Promise<void>;
}

/** A change of one object waiting in the buffer for its flush. */
export interface ReplicationEvent {
  /** The id of the job that buffered it: buffering the same job again adds nothing. */
  readonly id: string;
  readonly tenantId: string;
  /** The target within the tenant, `<projectId>/<dataset>/<table>`: what one flush writes to. */
  readonly destination: string;
  readonly objectId: string;
  /** ISO time of the write that produced it: the latest per object wins in a flush. */
  readonly at: string;
  /** What the replicator needs to write it (the job payload, parameters sealed as queued). */
  readonly payload: Readonly<Record<string, unknown>>;
}

export interface ReplicationBuffer {
  /**
   * Adds the event unless one with its id was added before (also when that one is flushed already:
   * a job run again after a crash must not replay an old state). Resolves whether it was added.
   */
  append(event: ReplicationEvent): Promise<boolean>;
  /** The unflushed events of one destination, oldest first (by `at`, then by arrival), at most `limit`. */
  pending(tenantId: string, destination: string, limit: number): Promise<ReplicationEvent[]>;
  /** Marks events flushed; they are kept (as ids only) until `prune`. */
  markFlushed(ids: readonly string[], now: Date): Promise<void>;
  /** Forgets events flushed before `before`; resolves how many. */
  prune(before: Date): Promise<number>;
  /** Forgets every event of the tenant, flushed or not (its data is deleted); resolves how many. */
  deleteTenant(tenantId: string): Promise<number>;
  close(): Promise<void>;
}
