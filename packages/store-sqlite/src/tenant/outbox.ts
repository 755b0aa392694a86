/**
 * The tenant's outbox: jobs a write batch queues in its own transaction (so a job exists exactly
 * when its write does), read and removed by the process that hands them to the job queue.
 */
import type { NewJob } from '@odp/core';
import type { TenantDatabase } from './database.js';

export class TenantOutbox {
  constructor(private readonly database: TenantDatabase) {}

  /** The oldest `limit` queued jobs. */
  read(limit: number): NewJob[] {
    const rows = this.database
      .statement('SELECT job FROM outbox ORDER BY seq LIMIT ?')
      .pluck()
      .all(limit) as string[];
    return rows.map((row) => JSON.parse(row) as NewJob);
  }

  /** Queues a batch's jobs (inside its transaction); a job id already queued is kept as it is. */
  enqueue(jobs: readonly NewJob[]): void {
    for (const job of jobs) {
      this.database
        .statement('INSERT OR IGNORE INTO outbox (id, job) VALUES (?, ?)')
        .run(job.id, JSON.stringify(job));
    }
  }

  remove(ids: readonly string[]): void {
    const remove = this.database.statement('DELETE FROM outbox WHERE id = ?');
    this.database.inTransaction(() => {
      for (const id of ids) remove.run(id);
    });
  }
}
