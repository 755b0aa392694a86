/**
 * The job-queue port: background work (gateway calls of scripts) that must survive a restart and
 * a crash. Adapters: the SQLite queue of `@odp/store-sqlite` (embedded default); others run the
 * same contract suite (`describeJobQueueContract`).
 *
 * Delivery is at least once: a job is claimed with a lease by one worker at a time; a worker that
 * dies holding it loses the lease when it expires and the job is claimed again. Handlers are
 * therefore idempotent (a webhook carries the job id so a receiver can drop a repeat).
 */

/** A job as enqueued. The id is chosen by the producer, so enqueueing the same job twice is harmless. */
export interface NewJob {
  readonly id: string;
  readonly tenantId: string;
  /** What runs the job (`gateway` for script gateway calls). */
  readonly kind: string;
  /** The object the job concerns, when there is one (listed by `GET /admin/{t}/jobs?object=`). */
  readonly objectId: string | null;
  /** JSON-serialisable input of the handler, fixed at enqueue time (parameters by value). */
  readonly payload: Readonly<Record<string, unknown>>;
  /** ISO timestamp of when the job was produced. */
  readonly createdAt: string;
  /** ISO timestamp before which the job is not claimed (a delayed job); `createdAt` when absent. */
  readonly runAt?: string;
}

/**
 * `pending`: waiting for `runAt`; `running`: claimed, leased until `leaseUntil`; `done`: completed;
 * `failed`: given up (the handler refused it or its retries are exhausted).
 */
export type JobStatus = 'pending' | 'running' | 'done' | 'failed';

export interface Job extends NewJob {
  readonly status: JobStatus;
  /** Claims so far, including the one running now; a claim after an expired lease counts too. */
  readonly attempts: number;
  /** ISO timestamp: when a pending job becomes due. */
  readonly runAt: string;
  /** ISO timestamp the lease of a running job ends; null otherwise. */
  readonly leaseUntil: string | null;
  /** The message of the last failure; null before any. */
  readonly lastError: string | null;
  readonly updatedAt: string;
}

export interface JobListFilter {
  readonly tenantId: string;
  readonly objectId?: string;
  /** Most recent first, at most this many. */
  readonly limit: number;
}

export interface JobQueue {
  /**
   * Adds the jobs, due at their `runAt` (at once without one). A job whose id is already queued (in any status) is left as it is,
   * so relaying the same outbox entry twice enqueues it once.
   */
  enqueue(jobs: readonly NewJob[]): Promise<void>;
  /**
   * Claims the due job with the earliest `runAt` (pending and due, or running with an expired
   * lease), marks it running for `worker` until `now + leaseMs` and counts an attempt. Two claims
   * never get the same job while its lease holds, whichever process makes them. Null when none is due.
   */
  claim(worker: string, leaseMs: number, now: Date): Promise<Job | null>;
  /** Marks the job done. False (and nothing changes) when `worker` no longer holds its lease. */
  complete(id: string, worker: string, now: Date): Promise<boolean>;
  /**
   * Records a failure: pending again, due at `retryAt`, or `failed` for good when `retryAt` is null.
   * False (and nothing changes) when `worker` no longer holds the lease.
   */
  fail(id: string, worker: string, error: string, retryAt: Date | null, now: Date): Promise<boolean>;
  get(id: string): Promise<Job | null>;
  /** Removes `done` and `failed` jobs last changed before `before`; resolves how many. */
  prune(before: Date): Promise<number>;
  list(filter: JobListFilter): Promise<Job[]>;
  /**
   * Removes every job of the tenant, whatever its status (tenant deletion); resolves how many. A
   * worker holding one of them finds it gone when it completes or fails it (false).
   */
  deleteTenant(tenantId: string): Promise<number>;
  close(): Promise<void>;
}
