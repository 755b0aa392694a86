/**
 * The embedded ReplicationBuffer: changes waiting for their warehouse flush, in one SQLite file for
 * the platform (`<ODP_DATA_DIR>/replication.sqlite`), shared by the processes of the deployment
 * like the job queue. `synchronous = FULL`: an event appended survives a power loss, so the job
 * that buffered it may be marked done.
 *
 * A flushed event keeps its row (without its payload) until `prune`, so a job run again after a
 * crash (at-least-once delivery) cannot buffer an older state of its object a second time.
 */
import type Database from 'better-sqlite3';
import type { ReplicationBuffer, ReplicationEvent } from '@odp/core';
import { openSharedDatabase } from './migrations.js';
import { lockedWrites } from './write-lock.js';
import type { LockedWrite } from './write-lock.js';
import type { Migration } from './migrations.js';

/** The buffer database's schema steps; a released step is never edited, the next one is appended. */
export const REPLICATION_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'replication events',
    up: `
  -- at: ISO time of the write. flushed_at: epoch milliseconds, null while waiting for a flush.
  CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    tenant_id TEXT NOT NULL,
    destination TEXT NOT NULL,
    object_id TEXT NOT NULL,
    at TEXT NOT NULL,
    payload TEXT,
    flushed_at INTEGER
  );
  CREATE INDEX events_pending ON events (tenant_id, destination, at, seq) WHERE flushed_at IS NULL;
  CREATE INDEX events_flushed ON events (flushed_at) WHERE flushed_at IS NOT NULL;
  `,
  },
];

interface EventRow {
  id: string;
  tenant_id: string;
  destination: string;
  object_id: string;
  at: string;
  payload: string;
}

export class SqliteReplicationBuffer implements ReplicationBuffer {
  private readonly db: Database.Database;
  /** Writes wait for the lock another process holds without blocking the event loop (write-lock.ts). */
  private readonly whenLocked: LockedWrite;

  constructor(file: string) {
    this.db = openSharedDatabase(file, REPLICATION_MIGRATIONS).db;
    this.whenLocked = lockedWrites(this.db);
  }

  async append(event: ReplicationEvent): Promise<boolean> {
    const insert = this.db.prepare(
      `INSERT OR IGNORE INTO events (id, tenant_id, destination, object_id, at, payload)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    const result = await this.whenLocked(() =>
      insert.run(
        event.id,
        event.tenantId,
        event.destination,
        event.objectId,
        event.at,
        JSON.stringify(event.payload),
      ),
    );
    return result.changes === 1;
  }

  async pending(tenantId: string, destination: string, limit: number): Promise<ReplicationEvent[]> {
    const rows = this.db
      .prepare(
        `SELECT id, tenant_id, destination, object_id, at, payload FROM events
         WHERE tenant_id = ? AND destination = ? AND flushed_at IS NULL ORDER BY at, seq LIMIT ?`,
      )
      .all(tenantId, destination, limit) as EventRow[];
    return rows.map((row) => ({
      id: row.id,
      tenantId: row.tenant_id,
      destination: row.destination,
      objectId: row.object_id,
      at: row.at,
      payload: JSON.parse(row.payload) as Record<string, unknown>,
    }));
  }

  async markFlushed(ids: readonly string[], now: Date): Promise<void> {
    const mark = this.db.prepare(
      `UPDATE events SET flushed_at = ?, payload = NULL WHERE id = ? AND flushed_at IS NULL`,
    );
    const markAll = this.db.transaction(() => {
      for (const id of ids) mark.run(now.getTime(), id);
    });
    await this.whenLocked(() => markAll.immediate());
  }

  async prune(before: Date): Promise<number> {
    const prune = this.db.prepare(`DELETE FROM events WHERE flushed_at < ?`);
    return (await this.whenLocked(() => prune.run(before.getTime()))).changes;
  }

  async deleteTenant(tenantId: string): Promise<number> {
    const remove = this.db.prepare(`DELETE FROM events WHERE tenant_id = ?`);
    return (await this.whenLocked(() => remove.run(tenantId))).changes;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

export function openSqliteReplicationBuffer(file: string): SqliteReplicationBuffer {
  return new SqliteReplicationBuffer(file);
}
