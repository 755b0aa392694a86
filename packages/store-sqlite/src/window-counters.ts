/**
 * The embedded WindowCounters: one SQLite file (`<ODP_DATA_DIR>/counters.sqlite`) shared by the
 * processes of one machine (the api and its workers). A take is one `BEGIN IMMEDIATE` transaction,
 * and SQLite admits one writer at a time across processes, so concurrent takes never pass the
 * limit. Counters whose window ended are deleted by the next write that meets them.
 */
import Database from 'better-sqlite3';
import type { WindowCounters } from '@odp/core';
import { applyMigrations } from './migrations.js';
import type { Migration } from './migrations.js';
import { BUSY_TIMEOUT_MS, lockedWrites } from './write-lock.js';
import type { LockedWrite } from './write-lock.js';

/** The counters database's schema steps; a released step is never edited, the next one is appended. */
export const COUNTER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'counters',
    up: `
  -- expires_at: epoch milliseconds of the end of the counter's window.
  CREATE TABLE counters (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX counters_expiry ON counters (expires_at);
  `,
  },
];

export class SqliteWindowCounters implements WindowCounters {
  private readonly db: Database.Database;
  /** A take waits for the lock another process holds without blocking the event loop (write-lock.ts). */
  private readonly whenLocked: LockedWrite;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    applyMigrations(this.db, COUNTER_MIGRATIONS);
    this.whenLocked = lockedWrites(this.db);
  }

  async read(keys: readonly string[], now: Date): Promise<number[]> {
    const get = this.db.prepare('SELECT value FROM counters WHERE key = ? AND expires_at > ?').pluck();
    return keys.map((key) => (get.get(key, now.getTime()) as number | undefined) ?? 0);
  }

  async take(key: string, limit: number, expiresAt: Date, now: Date): Promise<boolean> {
    const takeOne = this.db.transaction((): boolean => {
      const value = this.current(key, now);
      if (value >= limit) return false;
      this.store(key, value + 1, expiresAt);
      return true;
    });
    return this.whenLocked(() => takeOne.immediate());
  }

  async add(key: string, amount: number, expiresAt: Date, now: Date): Promise<number> {
    const addAmount = this.db.transaction((): number => {
      const value = this.current(key, now) + amount;
      this.store(key, value, expiresAt);
      return value;
    });
    return this.whenLocked(() => addAmount.immediate());
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  /** The live value of `key` (inside a write transaction); expired counters are removed first. */
  private current(key: string, now: Date): number {
    this.db.prepare('DELETE FROM counters WHERE expires_at <= ?').run(now.getTime());
    return (
      (this.db.prepare('SELECT value FROM counters WHERE key = ?').pluck().get(key) as number | undefined) ??
      0
    );
  }

  private store(key: string, value: number, expiresAt: Date): void {
    this.db
      .prepare(
        `INSERT INTO counters (key, value, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
      )
      .run(key, value, expiresAt.getTime());
  }
}
