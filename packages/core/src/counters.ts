/**
 * The window-counter port: counters of fixed time windows that every process of a deployment
 * shares, for the rate limits of external services (interface spec, Rate limits for external
 * services). Adapters: `SqliteWindowCounters` (`@odp/store-sqlite`, one file shared by the
 * processes of one machine, the embedded default) and `openRedisWindowCounters`
 * (`@odp/redis`, any number of machines); chosen in the composition root (`ODP_REDIS_URL`).
 * Contract suite: `describeWindowCountersContract` (`@odp/testkit`).
 *
 * A key names one window (the caller puts the window's start in it), so a new window starts at
 * zero without any reset; `expiresAt` (the window's end) only lets the adapter forget the counter.
 */
export interface WindowCounters {
  /** The values of `keys` at `now`, in order: 0 for a counter never counted or expired. */
  read(keys: readonly string[], now: Date): Promise<number[]>;
  /**
   * Adds 1 to `key` when its value is below `limit`, atomically for every process of the
   * deployment: of any number of concurrent takes, at most `limit` succeed in a window.
   * Resolves whether this one did.
   */
  take(key: string, limit: number, expiresAt: Date, now: Date): Promise<boolean>;
  /** Adds `amount` (a non-negative integer) to `key` whatever its value; resolves the new value. */
  add(key: string, amount: number, expiresAt: Date, now: Date): Promise<number>;
  close(): Promise<void>;
}
