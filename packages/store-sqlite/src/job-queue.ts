/**
 * The embedded JobQueue: one SQLite file for the platform (`<ODP_DATA_DIR>/jobs.sqlite`), shared by
 * every process of the deployment (the api relays into it, the workers claim from it).
 *
 * A claim is one `BEGIN IMMEDIATE` transaction (select the earliest due job, mark it running with
 * the lease): SQLite admits one writer at a time across processes, so two workers never take the
 * same job while its lease holds. `synchronous = FULL`: an enqueued job survives a power loss once
 * `enqueue` resolved (the tenant outbox entry it came from is removed only after that).
 */
import type Database from 'better-sqlite3';
import type { Job, JobListFilter, JobQueue, JobStatus, NewJob } from '@odp/core';
import { openSharedDatabase } from './migrations.js';
import type { Migration } from './migrations.js';
import { lockedWrites } from './write-lock.js';
import type { LockedWrite } from './write-lock.js';

/** The jobs database's schema steps; a released step is never edited, the next one is appended. */
export const JOB_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'jobs',
    up: `
  -- Times are epoch milliseconds. seq orders jobs by arrival (lists: newest first).
  CREATE TABLE jobs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    tenant_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    object_id TEXT,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    run_at INTEGER NOT NULL,
    lease_until INTEGER,
    locked_by TEXT,
    last_error TEXT,
    created_at TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  );
  -- Due work: pending by run_at, running by lease end (a dead worker's job).
  CREATE INDEX jobs_due ON jobs (status, run_at);
  CREATE INDEX jobs_lease ON jobs (status, lease_until);
  CREATE INDEX jobs_tenant ON jobs (tenant_id, seq);
  CREATE INDEX jobs_object ON jobs (tenant_id, object_id, seq);
  `,
  },
];

interface JobRow {
  id: string;
  tenant_id: string;
  kind: string;
  object_id: string | null;
  payload: string;
  status: JobStatus;
  attempts: number;
  run_at: number;
  lease_until: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: number;
}

const COLUMNS =
  'id, tenant_id, kind, object_id, payload, status, attempts, run_at, lease_until, last_error, created_at, updated_at';

function jobOf(row: JobRow): Job {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    kind: row.kind,
    objectId: row.object_id,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    createdAt: row.created_at,
    status: row.status,
    attempts: row.attempts,
    runAt: new Date(row.run_at).toISOString(),
    leaseUntil: row.lease_until === null ? null : new Date(row.lease_until).toISOString(),
    lastError: row.last_error,
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export class SqliteJobQueue implements JobQueue {
  private readonly db: Database.Database;
  /**
   * The file is shared by every process of the deployment: a write waits for the lock another
   * process holds without blocking the event loop (write-lock.ts), where SQLite's busy handler
   * slept the process's every request (the api's relays of two api processes did, 3-4% of their time).
   */
  private readonly whenLocked: LockedWrite;
  /** Each job of an enqueue, in one transaction; due at `runAt`, else at `createdAt`. */
  private readonly insertAll: Database.Transaction<(jobs: readonly NewJob[]) => void>;
  /** The earliest due job taken by a worker, in one transaction. */
  private readonly pickAndTake: Database.Transaction<
    (worker: string, leaseMs: number, t: number) => JobRow | undefined
  >;
  private readonly done: Database.Statement;
  private readonly failed: Database.Statement;
  private readonly pruned: Database.Statement;
  private readonly removeTenant: Database.Statement;
  private readonly byId: Database.Statement;
  private readonly ofTenant: Database.Statement;
  private readonly ofObject: Database.Statement;

  constructor(file: string) {
    this.db = openSharedDatabase(file, JOB_MIGRATIONS).db;
    this.whenLocked = lockedWrites(this.db);
    const insert = this.db.prepare(
      `INSERT OR IGNORE INTO jobs (id, tenant_id, kind, object_id, payload, status, run_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
    );
    this.insertAll = this.db.transaction((jobs: readonly NewJob[]) => {
      for (const job of jobs) {
        const created = Date.parse(job.createdAt);
        insert.run(
          job.id,
          job.tenantId,
          job.kind,
          job.objectId,
          JSON.stringify(job.payload),
          job.runAt === undefined ? created : Date.parse(job.runAt),
          job.createdAt,
          created,
        );
      }
    });
    const pick = this.db
      .prepare(
        `SELECT id FROM (
           SELECT id, run_at AS due FROM jobs WHERE status = 'pending' AND run_at <= @t
           UNION ALL
           SELECT id, lease_until AS due FROM jobs WHERE status = 'running' AND lease_until <= @t
         ) ORDER BY due LIMIT 1`,
      )
      .pluck();
    const take = this.db.prepare(
      `UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_until = @lease,
         locked_by = @worker, updated_at = @t WHERE id = @id RETURNING ${COLUMNS}`,
    );
    this.pickAndTake = this.db.transaction((worker: string, leaseMs: number, t: number) => {
      const id = pick.get({ t }) as string | undefined;
      return id === undefined
        ? undefined
        : (take.get({ id, t, lease: t + leaseMs, worker }) as JobRow | undefined);
    });
    this.done = this.db.prepare(
      `UPDATE jobs SET status = 'done', lease_until = NULL, locked_by = NULL, updated_at = ?
       WHERE id = ? AND status = 'running' AND locked_by = ?`,
    );
    this.failed = this.db.prepare(
      `UPDATE jobs SET status = ?, run_at = COALESCE(?, run_at), lease_until = NULL, locked_by = NULL,
         last_error = ?, updated_at = ?
       WHERE id = ? AND status = 'running' AND locked_by = ?`,
    );
    this.pruned = this.db.prepare(`DELETE FROM jobs WHERE status IN ('done', 'failed') AND updated_at < ?`);
    this.removeTenant = this.db.prepare(`DELETE FROM jobs WHERE tenant_id = ?`);
    this.byId = this.db.prepare(`SELECT ${COLUMNS} FROM jobs WHERE id = ?`);
    this.ofTenant = this.db.prepare(
      `SELECT ${COLUMNS} FROM jobs WHERE tenant_id = ? ORDER BY seq DESC LIMIT ?`,
    );
    this.ofObject = this.db.prepare(
      `SELECT ${COLUMNS} FROM jobs WHERE tenant_id = ? AND object_id = ? ORDER BY seq DESC LIMIT ?`,
    );
  }

  /** Due at `runAt`, else at `createdAt` (the producer's clock): a job is due as soon as it exists. */
  async enqueue(jobs: readonly NewJob[]): Promise<void> {
    await this.whenLocked(() => this.insertAll.immediate(jobs));
  }

  async claim(worker: string, leaseMs: number, now: Date): Promise<Job | null> {
    const row = await this.whenLocked(() => this.pickAndTake.immediate(worker, leaseMs, now.getTime()));
    return row === undefined ? null : jobOf(row);
  }

  async complete(id: string, worker: string, now: Date): Promise<boolean> {
    const result = await this.whenLocked(() => this.done.run(now.getTime(), id, worker));
    return result.changes === 1;
  }

  async fail(id: string, worker: string, error: string, retryAt: Date | null, now: Date): Promise<boolean> {
    const status = retryAt === null ? 'failed' : 'pending';
    const result = await this.whenLocked(() =>
      this.failed.run(status, retryAt?.getTime() ?? null, error, now.getTime(), id, worker),
    );
    return result.changes === 1;
  }

  async prune(before: Date): Promise<number> {
    return (await this.whenLocked(() => this.pruned.run(before.getTime()))).changes;
  }

  async deleteTenant(tenantId: string): Promise<number> {
    return (await this.whenLocked(() => this.removeTenant.run(tenantId))).changes;
  }

  async get(id: string): Promise<Job | null> {
    const row = this.byId.get(id) as JobRow | undefined;
    return row === undefined ? null : jobOf(row);
  }

  async list(filter: JobListFilter): Promise<Job[]> {
    const rows = (
      filter.objectId === undefined
        ? this.ofTenant.all(filter.tenantId, filter.limit)
        : this.ofObject.all(filter.tenantId, filter.objectId, filter.limit)
    ) as JobRow[];
    return rows.map(jobOf);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

export function openSqliteJobQueue(file: string): SqliteJobQueue {
  return new SqliteJobQueue(file);
}
