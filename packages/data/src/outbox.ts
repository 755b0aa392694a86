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

/**
 * The relays of one tenant's outbox, coalesced: a relay asked for while one runs waits for the
 * next one, which starts when the running one ends and moves every job queued meanwhile. Under
 * concurrent writes, the jobs of several writes reach the queue in one enqueue (one queue commit
 * and one outbox commit for all of them instead of one each). Each caller still resolves only once
 * a relay that started after its call has finished, so a write's jobs are in the queue when its
 * commit resolves, as with a relay of its own.
 */
export class OutboxRelay {
  private running: Promise<number> | undefined;
  private following: Promise<number> | undefined;

  constructor(
    private readonly store: TenantOutbox,
    private readonly queue: Pick<JobQueue, 'enqueue'>,
  ) {}

  /** Resolves the number of jobs the relay that served this call moved (shared by its callers). */
  relay(): Promise<number> {
    if (this.following) return this.following;
    const running = this.running;
    if (!running) return this.start();
    const following = running
      .catch(() => 0)
      .then(() => {
        this.following = undefined;
        return this.start();
      });
    this.following = following;
    return following;
  }

  private start(): Promise<number> {
    const run = relayOutbox(this.store, this.queue).finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }
}
