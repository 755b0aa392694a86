/**
 * The worker loop: claims one due job at a time from the {@link JobQueue} (leased to this worker),
 * runs the handler of its kind, and records the outcome: done; a retryable failure rescheduled by
 * the retry schedule (10 s, 60 s, 15 min); given up otherwise. A job given up after its retries
 * were exhausted is reported through `onRetriesExhausted` (the `consumer_gateway_retry` log entry).
 * One structured log line per run of a job (`job done` / `job retry` / `job failed`).
 *
 * Delivery is at least once: a worker killed while running a job holds its lease until it
 * expires, then any worker claims it again (one more attempt). Handlers must be idempotent.
 */
import type { Job, JobQueue } from '@odp/core';
import { GatewayError, nextAttemptAt } from '@odp/gateways';

export interface JobLog {
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  error(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

/** Runs one job; throws GatewayError (retryable or not) or any error (treated as retryable). */
export type JobHandler = (job: Job) => Promise<void>;

export interface JobRunnerDeps {
  readonly queue: JobQueue;
  /** Unique per worker process (host, pid, random): the lease holder's name. */
  readonly workerId: string;
  /** How long a claim holds a job; longer than any handler runs (a webhook times out after 10 s per hop). */
  readonly leaseMs: number;
  /** The clock; injectable so tests move time instead of waiting. */
  readonly now: () => Date;
  readonly log: JobLog;
  readonly handlers: Readonly<Record<string, JobHandler>>;
  /** A job whose retryable failures used up the retry schedule; `error` is the last message. */
  readonly onRetriesExhausted?: (job: Job, error: string) => Promise<void>;
}

export type JobOutcome = 'done' | 'retry' | 'failed' | 'lost';

export class JobRunner {
  private running: Promise<void> | null = null;
  private stopping = false;
  /** Wake-ups of the loops waiting for their next poll. */
  private readonly waiting = new Set<() => void>();

  constructor(private readonly deps: JobRunnerDeps) {}

  /** Claims and runs one due job; resolves what happened, or null when no job was due. */
  async runOnce(): Promise<{ job: Job; outcome: JobOutcome } | null> {
    const { queue, workerId, now, log } = this.deps;
    const job = await queue.claim(workerId, this.deps.leaseMs, now());
    if (!job) return null;
    const started = Date.now();
    const fields = (extra: Record<string, unknown>) => ({
      jobId: job.id,
      tenantId: job.tenantId,
      kind: job.kind,
      objectId: job.objectId,
      ...(typeof job.payload['script'] === 'string' ? { script: job.payload['script'] } : {}),
      ...(typeof job.payload['gateway'] === 'string' ? { gateway: job.payload['gateway'] } : {}),
      attempt: job.attempts,
      worker: workerId,
      ...extra,
      ms: Date.now() - started,
    });
    try {
      const handler = this.deps.handlers[job.kind];
      if (!handler) throw new GatewayError(`No handler for jobs of kind ${job.kind}.`, false);
      await handler(job);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const retryable = error instanceof GatewayError ? error.retryable : true;
      const at = now();
      const retryAt = nextAttemptAt(job.attempts, retryable, at);
      if (!(await queue.fail(job.id, workerId, message, retryAt, at))) {
        log.error('job lease lost', fields({ status: 'lost', error: message }));
        return { job, outcome: 'lost' };
      }
      if (retryAt) {
        log.info('job retry', fields({ status: 'retry', error: message, retryAt: retryAt.toISOString() }));
        return { job, outcome: 'retry' };
      }
      log.error('job failed', fields({ status: 'failed', error: message, retryable }));
      if (retryable) await this.deps.onRetriesExhausted?.(job, message);
      return { job, outcome: 'failed' };
    }
    if (!(await queue.complete(job.id, workerId, now()))) {
      log.error('job lease lost', fields({ status: 'lost' }));
      return { job, outcome: 'lost' };
    }
    log.info('job done', fields({ status: 'done' }));
    return { job, outcome: 'done' };
  }

  /**
   * Runs jobs until `stop`: `concurrency` loops (default 1), each claiming one job after another as
   * long as jobs are due, otherwise waiting `pollMs` (or until `poke`). One of them runs `sweep`
   * (the outbox relay) every `sweepMs`. Errors of a loop itself (a store unavailable) are logged
   * and the loop goes on after `pollMs`.
   */
  start(options: {
    pollMs: number;
    concurrency?: number;
    sweepMs?: number;
    sweep?: () => Promise<void>;
  }): void {
    if (this.running) return;
    let lastSweep = 0;
    const loop = async (index: number) => {
      while (!this.stopping) {
        let ran = false;
        try {
          if (index === 0 && options.sweep && Date.now() - lastSweep >= (options.sweepMs ?? 10_000)) {
            lastSweep = Date.now();
            await options.sweep();
          }
          ran = (await this.runOnce()) !== null;
        } catch (error) {
          this.deps.log.error('worker loop failed', { error: String(error) });
        }
        if (!ran && !this.stopping) {
          await new Promise<void>((resolve) => {
            const wake = () => {
              clearTimeout(timer);
              this.waiting.delete(wake);
              resolve();
            };
            const timer = setTimeout(wake, options.pollMs);
            this.waiting.add(wake);
          });
        }
      }
    };
    const loops = Array.from({ length: Math.max(1, options.concurrency ?? 1) }, (_, index) => loop(index));
    this.running = Promise.all(loops).then(() => undefined);
  }

  /** Wakes the waiting loops at once (a job was just enqueued in this process). */
  poke(): void {
    for (const wake of [...this.waiting]) wake();
  }

  /** Stops claiming; resolves when the job in hand (if any) is finished. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.poke();
    await this.running;
    this.running = null;
  }
}
