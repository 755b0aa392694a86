/**
 * The SQLite connection of one tenant: its pragmas and migrations, a bounded cache of prepared
 * statements, the interned names of `dict` and the object keys, and the one write transaction
 * every change runs in. The other parts of the tenant store share it.
 */
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import type { AppliedWrite, LockReleases } from '@odp/core';
import { FOLD_FUNCTION, foldForNocase } from './index-keys.js';
import type { KeyLookup } from './query/sql.js';
import { BUSY_TIMEOUT_MS, lockedWrites } from '../write-lock.js';
import type { LockedWrite } from '../write-lock.js';
import { CommitGroups, MAX_TURN_MS } from './commit-groups.js';
import { dropValueSamples } from './planner-statistics.js';
import { migrateTenantDatabase } from './schema.js';
import type { WalCheckpointer } from './wal-checkpoints.js';

const STATEMENT_CACHE_SIZE = 256;
/** better-sqlite3's SQLITE_MAX_MMAP_SIZE. */
export const MAX_MMAP_BYTES = 0x7fff0000;

/**
 * SQLite renumbers the pages of a B-tree split through a temporary page number, the one after the
 * first gigabyte; in a smaller file that lies past its end, and the commit's truncation of the
 * page cache back to the file's size then visits every bucket of the cache's hash table.
 */
const PENDING_BYTE = 0x40000000;

/**
 * The page cache of a connection to a file of `fileBytes`, in KiB. A file under
 * {@link PENDING_BYTE} and mapped whole (`mmapBytes`) needs the cache only for the pages a write
 * copies and those read from the WAL: 8 MB, as every commit that split a page walks all of it
 * (with 64 MB a commit of a turn of patches in one process took 600-660 us, with 8 MB 470-510,
 * reads measured the same). Any other file keeps 64 MB: a larger one's commits do not walk the
 * cache, and what lies past the map is read into it.
 */
export function pageCacheKib(fileBytes: number, mmapBytes: number): number {
  return fileBytes < PENDING_BYTE && fileBytes <= mmapBytes ? 8_192 : 65_536;
}

/** How a tenant database's connection is opened (every member has a default). */
export interface TenantDatabaseOptions {
  /** Bytes of the file read through memory mapping (`mmap_size`). */
  readonly mmapBytes?: number;
  /** Checkpoints the WAL off this connection's commits (wal-checkpoints.ts); none: SQLite's own. */
  readonly checkpointer?: WalCheckpointer;
  /** How long a write turn runs before it commits (commit-groups.ts). */
  readonly maxTurnMs?: number;
  /** Where other processes announce their commits to the file, and this one its own (write-lock.ts). */
  readonly lockReleases?: LockReleases;
}

/**
 * How a reader of the connection learns that what it remembers may have changed: the caches of
 * the store's reads (names.ts, search.ts, remembered-rows.ts) take these three.
 */
export interface ConnectionChanges {
  /** Whether a write transaction is open on the connection (its reads may not be committed). */
  readonly inTransaction: () => boolean;
  /** `PRAGMA data_version` of the connection: changes when another connection committed. */
  readonly dataVersion: () => number;
  /** Registers `listener` to run after every write transaction of this connection. */
  readonly onWrite: (listener: () => void) => void;
}

/** Writes a transaction's work defers to its end (the counters of aggregates.ts). */
export interface DeferredWrites {
  /** Writes what was deferred, in the open transaction. */
  flush(): void;
  /** Forgets what was deferred (the transaction or savepoint rolled back). */
  discard(): void;
}

export class TenantDatabase {
  readonly db: Database.Database;
  /** Interned keys and object keys, as the query compilers read them. */
  readonly keys: KeyLookup;
  private readonly dictCache = new Map<string, number>();
  private readonly statements = new Map<string, Database.Statement>();
  /** One transaction wrapper for every write (better-sqlite3 builds one per `transaction` call). */
  private readonly transaction: Database.Transaction<(work: () => unknown) => unknown>;
  /** Called when a write transaction rolls back: caches of keys it may have created. */
  private readonly rollbackHooks: (() => void)[] = [];
  /** Called after every write transaction: caches that writes make stale. */
  private readonly writeHooks: (() => void)[] = [];
  /** Runs an attempt to take the write lock, waiting for it without blocking (write-lock.ts). */
  private readonly whenLocked: LockedWrite;
  /** Writes deferred to the end of a transaction ({@link deferUntilCommit}). */
  private readonly deferred: DeferredWrites[] = [];
  /** The writes of a turn applied in one shared transaction (`applyInGroup`, `inWriteTurn`). */
  private readonly groups: CommitGroups;

  /** Checkpoints the WAL off this connection's commits (wal-checkpoints.ts); none: SQLite's own. */
  private readonly checkpointer: WalCheckpointer | undefined;
  /** Where this connection's commits are announced to other processes (write-lock.ts). */
  private readonly lockReleases: LockReleases | undefined;

  constructor(file: string, options: TenantDatabaseOptions = {}) {
    const { mmapBytes = MAX_MMAP_BYTES, maxTurnMs = MAX_TURN_MS } = options;
    this.checkpointer = options.checkpointer;
    this.lockReleases = options.lockReleases;
    this.db = new Database(file);
    this.whenLocked = lockedWrites(this.db, this.lockReleases);
    this.groups = new CommitGroups(
      {
        inTransaction: () => this.db.inTransaction,
        statement: (sql) => this.statement(sql),
        whenLocked: (attempt) => this.whenLocked(attempt),
        written: () => this.forgetWritten(),
        rolledBack: () => {
          this.forgetUncommittedKeys();
          this.forgetWritten();
        },
        // A transaction SQLite rolled back by itself commits nothing: its deferred writes are not
        // written (outside any transaction they would be kept) but discarded with its rollback.
        beforeCommit: () => {
          if (this.db.inTransaction) this.flushDeferred();
        },
        committed: () => this.committed(),
      },
      maxTurnMs,
    );
    this.db.pragma('journal_mode = WAL');
    // An acknowledged write survives a killed process: under WAL the commit has written the
    // transaction to the WAL file (the OS holds it) before `write` resolves; NORMAL only skips the
    // fsync, so an OS crash or power loss may lose the last transactions (docs/storage.md).
    this.db.pragma('synchronous = NORMAL');
    // A checkpoint (copying WAL pages into the database, with an fsync) every 10,000 pages instead
    // of 1,000: a create dirties some 50 scattered index pages, and pages rewritten between two
    // checkpoints are copied once. Measured: 0.68-0.81 -> 0.54-0.62 ms per create. With a
    // checkpointer, its thread copies the pages soon after each commit, and this threshold is the
    // backstop for when it lags.
    this.db.pragma('wal_autocheckpoint = 10000');
    this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const fileBytes =
      (this.db.pragma('page_count', { simple: true }) as number) *
      (this.db.pragma('page_size', { simple: true }) as number);
    this.db.pragma(`cache_size = -${pageCacheKib(fileBytes, mmapBytes)}`);
    this.db.pragma(`mmap_size = ${Math.trunc(mmapBytes)}`);
    this.db.function(FOLD_FUNCTION, { deterministic: true }, foldForNocase);
    migrateTenantDatabase(this.db);
    dropValueSamples(this.db);
    this.transaction = this.db.transaction((work: () => unknown) => {
      const result = work();
      // Unless SQLite rolled the transaction back by itself (better-sqlite3 then throws).
      if (this.db.inTransaction) this.flushDeferred();
      return result;
    });
    this.keys = {
      key: (name) => this.lookupKey(name),
      objectKey: (id) => this.objectKey(id),
    };
  }

  /**
   * After a commit of this connection: the checkpointer hears of it, and, unless it was a
   * savepoint's release, the other processes waiting for the file's write lock.
   */
  private committed(): void {
    this.checkpointer?.committed(this.db.name);
    if (!this.db.inTransaction) this.lockReleases?.announce(this.db.name);
  }

  /** Registers caches to forget when a write rolls back (`rollback`) or after every write (`write`). */
  onForget(when: 'rollback' | 'write', forget: () => void): void {
    (when === 'rollback' ? this.rollbackHooks : this.writeHooks).push(forget);
  }

  /**
   * Registers writes that a transaction's work defers to its end: flushed before it commits (and
   * before a savepoint inside it starts), discarded when it rolls back.
   */
  deferUntilCommit(writes: DeferredWrites): void {
    this.deferred.push(writes);
    this.rollbackHooks.push(() => writes.discard());
  }

  /**
   * Runs `work` in one write transaction. BEGIN IMMEDIATE takes the write lock up front: a deferred
   * transaction that reads first cannot wait for a lock held by another process (the `odp` command,
   * a second api instance) and fails at once with SQLITE_BUSY; an immediate one waits `busy_timeout`.
   * Interned keys created by a rolled-back transaction are forgotten.
   */
  inTransaction<T>(work: () => T): T {
    // Its commit means the work is durable: the writes applied before it are committed first.
    this.commitGroup();
    // Nested in another transaction this is a savepoint: what the enclosing work deferred is
    // written before it starts, so that the savepoint's rollback discards only its own.
    this.flushDeferred();
    try {
      const result = this.transaction.immediate(work) as T;
      this.committed();
      return result;
    } catch (error) {
      this.forgetUncommittedKeys();
      throw error;
    } finally {
      this.forgetWritten();
    }
  }

  /**
   * Runs `work` in one write transaction like {@link inTransaction}, but waits for the write lock
   * without blocking the event loop ({@link whenLocked}).
   */
  inWriteTransaction<T>(work: () => T): Promise<T> {
    return this.whenLocked(() => this.inTransaction(work));
  }

  /**
   * Applies `work` in the write transaction shared by the writes of this turn of the event loop
   * and resolves once it is applied, with `committed`, which settles when that transaction
   * commits (commit-groups.ts): in `setImmediate`, or earlier when another write transaction of
   * this connection starts. The first write of a turn waits for the lock as
   * {@link inWriteTransaction} does.
   */
  applyInGroup(work: () => void): Promise<AppliedWrite> {
    return this.groups.apply(work);
  }

  /**
   * Runs `derive`, reads that end with {@link applyInGroup}, in the next write turn of this
   * connection: with the other derivations of that turn, under one write lock, one after another,
   * their writes committed together as soon as the last one is applied (commit-groups.ts).
   */
  inWriteTurn<T>(derive: () => Promise<T>): Promise<T> {
    return this.groups.inTurn(derive);
  }

  /** Commits the writes applied by `applyInGroup` so far, if any, settling their `committed`. */
  commitGroup(): void {
    this.groups.commit();
  }

  /**
   * `PRAGMA data_version`: changes whenever another connection (another process) committed to the
   * database since the previous call on this connection; this connection's own commits leave it.
   */
  dataVersion(): number {
    return this.statement('PRAGMA data_version').pluck().get() as number;
  }

  /** The connection's {@link ConnectionChanges}. */
  changes(): ConnectionChanges {
    return {
      inTransaction: () => this.db.inTransaction,
      dataVersion: () => this.dataVersion(),
      onWrite: (listener) => this.onForget('write', listener),
    };
  }

  /** A prepared statement, from a bounded cache (the oldest is dropped first). */
  statement(sql: string): Database.Statement {
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

  /** The interned key of a name (`c:`/`f:`/`r:` prefixed), or null when it was never stored. */
  lookupKey(name: string): number | null {
    const cached = this.dictCache.get(name);
    if (cached !== undefined) return cached;
    const key = this.statement('SELECT k FROM dict WHERE name = ?').pluck().get(name) as number | undefined;
    if (key === undefined) return null;
    this.dictCache.set(name, key);
    return key;
  }

  /** The interned key of a name, created when missing (inside a write transaction). */
  intern(name: string): number {
    const existing = this.lookupKey(name);
    if (existing !== null) return existing;
    const key = this.statement('INSERT INTO dict (name) VALUES (?) RETURNING k').pluck().get(name) as number;
    this.dictCache.set(name, key);
    return key;
  }

  /** The internal key of an object id, or null when no such object is stored. */
  objectKey(id: string): number | null {
    return (
      (this.statement('SELECT n FROM objects WHERE id = ?').pluck().get(id) as number | undefined) ?? null
    );
  }

  /** The random key that signs search cursors, created with the database. */
  cursorSecret(): Buffer {
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

  /** Refreshes the planner's statistics (after bulk loads): planner-statistics.ts. */
  analyze(): void {
    this.db.exec('ANALYZE');
    dropValueSamples(this.db);
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    this.commitGroup();
    await this.checkpointer?.release(this.db.name);
    if (!this.db.open) return;
    this.db.pragma('optimize');
    this.db.close();
  }

  /** After a write transaction: caches that writes make stale are forgotten. */
  private forgetWritten(): void {
    for (const forget of this.writeHooks) forget();
  }

  private flushDeferred(): void {
    for (const writes of this.deferred) writes.flush();
  }

  /** Interned keys created by a rolled-back transaction or savepoint may be handed out again. */
  private forgetUncommittedKeys(): void {
    this.dictCache.clear();
    for (const forget of this.rollbackHooks) forget();
  }
}
