/**
 * What the api instances of one deployment share besides their stores (ports): the change fan-out
 * that wakes event streams on every instance, the invalidation channel that keeps in-memory copies
 * of the registry and of tenant runtimes current, and leases that let exactly one instance run a
 * tenant's rebuild. Adapters: `createInProcessCoordination` (one process, the embedded default) and
 * `@odp/redis` (any number of processes over one Redis). Chosen in the composition root from
 * `ODP_REDIS_URL`. Contract suites: `@odp/testkit` (`describeCoordinationContract`).
 */

/** Stops a subscription; idempotent. */
export type Unsubscribe = () => Promise<void>;

/** "Tenant T's event log advanced; its head is X", delivered to every instance. */
export interface ChangeFanout {
  /**
   * True when announcements reach other processes (api instances, workers); false when `publish`
   * only calls listeners of this process. A writer with no other process to tell wakes its own
   * listeners directly and does not read the log's head for an announcement nobody else hears.
   */
  readonly crossesProcesses: boolean;
  /**
   * Announces that `tenantId`'s event log advanced to `head` (the log's opaque head cursor). Every
   * subscriber of the tenant on every instance, this one included, is called once. Delivery is best
   * effort (an instance disconnected from the shared medium misses it), so readers also poll: the
   * announcement only shortens the time until they read the persisted log.
   */
  publish(tenantId: string, head: string): Promise<void>;
  /**
   * Calls `listener` with the head of each announcement about `tenantId` from any instance, from the
   * moment the returned promise resolves until the subscription is stopped.
   */
  subscribe(tenantId: string, listener: (head: string) => void): Promise<Unsubscribe>;
}

/**
 * A change to state that instances keep copies of. Registry changes name what changed so a listener
 * can drop just that; `model` tells instances to reload the tenant's model repository.
 */
export type Invalidation =
  | { readonly kind: 'tenant'; readonly tenantId: string }
  | { readonly kind: 'profile'; readonly tenantId: string; readonly profileId: string }
  | { readonly kind: 'apiKey'; readonly tenantId: string; readonly keyId: string }
  | { readonly kind: 'setting'; readonly key: string }
  | { readonly kind: 'model'; readonly tenantId: string };

export interface InvalidationChannel {
  /**
   * Announces a change to every instance (listeners of this one included). When the promise
   * resolves, `generation()` answers a new value on every instance, even one whose listener has not
   * run yet: a cache that compares generations before answering is never stale after a publish.
   */
  publish(message: Invalidation): Promise<void>;
  /** Calls `listener` for each announcement from any instance until the subscription is stopped. */
  subscribe(listener: (message: Invalidation) => void): Promise<Unsubscribe>;
  /** An opaque value that changes with every `publish` on any instance (one round trip at most). */
  generation(): Promise<string>;
}

/** A named lease held by one holder until it is released or its time runs out. */
export interface Lease {
  readonly name: string;
  /** Extends the lease to its full time from now; false when it was lost (expired, maybe taken by another). */
  renew(): Promise<boolean>;
  /** Gives the lease up if it is still this holder's (never someone else's). Idempotent. */
  release(): Promise<void>;
}

export interface LockService {
  /**
   * Takes the lease `name` for `ttlMs` milliseconds; null while another holder's lease is live. A
   * holder that dies loses the lease after `ttlMs`, so long work renews it (see `keepRenewed`).
   */
  acquire(name: string, ttlMs: number): Promise<Lease | null>;
}

/**
 * Word, between the processes of one machine that write the same SQLite files, that one of them
 * committed to a file and so released its write lock: a process waiting for that lock tries again
 * at once instead of after its next pause (store-sqlite's write-lock.ts).
 */
export interface LockReleases {
  /** Tells the other processes that this one committed to `file`. */
  announce(file: string): void;
  /** Calls `listener` each time another process announces `file`, until the returned function is called. */
  listen(file: string, listener: () => void): () => void;
}

/** The shared services of one deployment, opened together. */
export interface Coordination {
  readonly changes: ChangeFanout;
  readonly invalidations: InvalidationChannel;
  readonly locks: LockService;
  /** Where several api processes of one machine share the embedded store's files (the cluster). */
  readonly lockReleases?: LockReleases;
  /** Stops subscriptions and closes connections; leases still held expire on their own. */
  close(): Promise<void>;
}

/**
 * Renews `lease` every `everyMs` (a third of its time is a safe choice) until the returned function is
 * called; `onLost` is called once if a renewal finds the lease lost or fails.
 */
export function keepRenewed(lease: Lease, everyMs: number, onLost: (error?: unknown) => void): () => void {
  let stopped = false;
  const timer = setInterval(() => {
    lease.renew().then(
      (held) => {
        if (held || stopped) return;
        stop();
        onLost();
      },
      (error: unknown) => {
        if (stopped) return;
        stop();
        onLost(error);
      },
    );
  }, everyMs);
  timer.unref();
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  return stop;
}

/**
 * Keeps `lease` (taken for `ttlMs`) renewed every third of its time while its holder works, and
 * resolves the release that stops the renewals and gives it up. A renewal that finds the lease
 * lost stops quietly: for work whose repetition is harmless (a slot of a cap, a flush that writes
 * the latest state) a lost lease needs no handling.
 */
export function keepHeld(lease: Lease, ttlMs: number): () => Promise<void> {
  const stopRenewing = keepRenewed(lease, ttlMs / 3, () => undefined);
  return async () => {
    stopRenewing();
    await lease.release();
  };
}
