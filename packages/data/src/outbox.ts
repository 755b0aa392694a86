/**
 * The relay from a tenant's outbox (jobs written with the writes that triggered them) into the
 * job queue. Enqueue is idempotent by job id and entries are removed only after the queue took
 * them, so a relay interrupted at any point (or two relays at once) queues every job exactly once.
 */
import type { JobQueue, TenantOutbox } from '@odp/core';

const RELAY_BATCH = 100;

/** Moves every job of the outbox into the queue; resolves the number moved. */
export async function relayOutbox(store: TenantOutbox, queue: Pick<JobQueue, 'enqueue'>): Promise<number> {
  let moved = 0;
  for (let jobs = await store.outbox(RELAY_BATCH); jobs.length > 0; jobs = await store.outbox(RELAY_BATCH)) {
    await queue.enqueue(jobs);
    await store.removeFromOutbox(jobs.map((job) => job.id));
    moved += jobs.length;
  }
  return moved;
}
