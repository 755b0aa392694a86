/**
 * The tenant's outbox: jobs a write batch queues in its own transaction (so a job exists exactly
 * when its write does), read and removed by the process that hands them to the job queue.
 */
import type { NewJob } from '@odp/core';
import type { TenantDatabase } from './database.js';
import { limitClause } from './query/sql.js';

export class TenantOutbox {
  constructor(private readonly database: TenantDatabase) {}

  /** The oldest `limit` queued jobs. */
  read(limit: number): NewJob[] {
    const rows = this.database
      .statement(`SELECT job FROM outbox ORDER BY seq ${limitClause(limit)}`)
      .pluck()
      .all() as string[];
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

  /**
   * Removes relayed jobs in the write transaction shared by the writes of this turn (group
   * commit): resolves once applied, which the connection's next read of the outbox sees; the
   * removal commits with those writes instead of cutting their group short with a commit of its
   * own. A removal lost with a failed commit leaves jobs the queue already holds, which the next
   * relay enqueues again as no-ops (enqueue is idempotent by job id).
   */
  async remove(ids: readonly string[]): Promise<void> {
    const remove = this.database.statement('DELETE FROM outbox WHERE id = ?');
    await this.database.applyInGroup(() => {
      for (const id of ids) remove.run(id);
    });
  }
}
