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
 * The relays of one tenant's outbox, shared: a relay starts on the event loop's next turn (after
 * the I/O callbacks of this one), so the writes that commit meanwhile join it, and a relay asked for
 * while one runs waits for the next one, which starts when the running one ends. Under concurrent
 * writes the jobs of several writes reach the queue in one enqueue (one queue commit, with its
 * fsync, and one outbox commit for all of them instead of one each). Each caller resolves only once
 * a relay that read the outbox after its call has finished, so a write's jobs are in the queue
 * when its commit resolves, as with a relay of its own.
 */
export class OutboxRelay {
  /** The relay that has not read the outbox yet: a call now joins it. */
  private pending: Promise<number> | undefined;
  /** The relay that is moving jobs. */
  private running: Promise<number> | undefined;

  constructor(
    private readonly store: TenantOutbox,
    private readonly queue: Pick<JobQueue, 'enqueue'>,
  ) {}

  /** Resolves the number of jobs the relay that served this call moved (shared by its callers). */
  relay(): Promise<number> {
    if (this.pending) return this.pending;
    const pending = (this.running ?? Promise.resolve(0))
      .catch(() => 0)
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .then(() => {
        this.pending = undefined;
        const run = relayOutbox(this.store, this.queue);
        const settled = () => {
          if (this.running === run) this.running = undefined;
        };
        run.then(settled, settled);
        this.running = run;
        return run;
      });
    this.pending = pending;
    return pending;
  }
}
