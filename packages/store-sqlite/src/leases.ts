/**
 * The embedded LockService: leases in one SQLite file (`<ODP_DATA_DIR>/leases.sqlite`) shared by
 * every process of one machine without Redis: the primary of several api processes (which holds
 * them for its processes), a single api process, and the workers started on their own beside them.
 * A lease is one row; taking it is one statement that inserts the row or replaces an expired one,
 * so two processes never both hold a live lease. Times are the machine's clock, the same for all.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Lease, LockService } from '@odp/core';
import { applyMigrations } from './migrations.js';
import type { Migration } from './migrations.js';
import { BUSY_TIMEOUT_MS, lockedWrites } from './write-lock.js';
import type { LockedWrite } from './write-lock.js';

/** The leases database's schema steps; a released step is never edited, the next one is appended. */
export const LEASE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'leases',
    up: `
  -- expires_at: epoch milliseconds; token: the holder's, so only it renews or releases the lease.
  CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  },
];

export class SqliteLocks implements LockService {
  private readonly db: Database.Database;
  private readonly take: Database.Statement;
  private readonly extend: Database.Statement;
  private readonly drop: Database.Statement;
  /** Writes wait for the lock another process holds without blocking the event loop (write-lock.ts). */
  private readonly whenLocked: LockedWrite;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // A lease outlives no crash of the machine: nothing is lost without an fsync per take.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    applyMigrations(this.db, LEASE_MIGRATIONS);
    this.whenLocked = lockedWrites(this.db);
    this.db.prepare('DELETE FROM leases WHERE expires_at <= ?').run(Date.now());
    this.take = this.db.prepare(
      `INSERT INTO leases (name, token, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at
       WHERE leases.expires_at <= ?`,
    );
    this.extend = this.db.prepare(
      'UPDATE leases SET expires_at = ? WHERE name = ? AND token = ? AND expires_at > ?',
    );
    this.drop = this.db.prepare('DELETE FROM leases WHERE name = ? AND token = ?');
  }

  async acquire(name: string, ttlMs: number): Promise<Lease | null> {
    const token = randomUUID();
    const now = Date.now();
    const taken = await this.whenLocked(() => this.take.run(name, token, now + ttlMs, now));
    if (taken.changes !== 1) return null;
    return {
      name,
      renew: async () => {
        const at = Date.now();
        if (!this.db.open) return false;
        return (await this.whenLocked(() => this.extend.run(at + ttlMs, name, token, at))).changes === 1;
      },
      release: async () => {
        if (this.db.open) await this.whenLocked(() => this.drop.run(name, token));
      },
    };
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
