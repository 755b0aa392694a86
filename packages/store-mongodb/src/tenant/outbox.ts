/**
 * The outbox of the MongoDB tenant store: jobs a write batch queues with its write, read and
 * removed by the process that hands them to the job queue.
 */
import type { NewJob } from '@odp/core';
import type { Session, TenantCollections } from './collections.js';

export class TenantOutbox {
  constructor(private readonly c: TenantCollections) {}

  async read(limit: number): Promise<NewJob[]> {
    const docs = await this.c.outboxJobs.find({}).sort({ seq: 1 }).limit(limit).toArray();
    return docs.map((doc) => JSON.parse(doc.job) as NewJob);
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.c.outboxJobs.deleteMany({ _id: { $in: [...ids] } });
  }

  /** Queues a batch's jobs (a job id already queued is kept as it is), numbered in order. */
  async enqueue(batchJobs: readonly NewJob[], session: Session): Promise<void> {
    const jobs = [...new Map(batchJobs.map((job) => [job.id, job])).values()];
    if (jobs.length > 0) {
      const queued = new Set(
        (
          await this.c.outboxJobs
            .find({ _id: { $in: jobs.map((job) => job.id) } }, { ...session, projection: { _id: 1 } })
            .toArray()
        ).map((doc) => doc._id),
      );
      const fresh = jobs.filter((job) => !queued.has(job.id));
      if (fresh.length > 0) {
        const last = await this.c.nextNumbers('jobs', fresh.length, session);
        await this.c.outboxJobs.insertMany(
          fresh.map((job, index) => ({
            _id: job.id,
            seq: last - fresh.length + 1 + index,
            job: JSON.stringify(job),
          })),
          session,
        );
      }
    }
  }
}
