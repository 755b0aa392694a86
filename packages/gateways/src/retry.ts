/**
 * The retry schedule of gateway calls (interface spec, Limits): a call that fails with a transient
 * error is tried again after 10 seconds, then 60 seconds, then 15 minutes; when that last try fails
 * too, the call is given up (and the worker writes a `consumer_gateway_retry` log entry).
 */
export const RETRY_DELAYS_MS: readonly number[] = [10_000, 60_000, 15 * 60_000];

/**
 * When to try again after the `attempt`-th try (1-based) failed, or null to give up: after a
 * failure that is not retryable, or after the last delay of the schedule was used.
 */
export function nextAttemptAt(attempt: number, retryable: boolean, now: Date): Date | null {
  const delay = retryable ? RETRY_DELAYS_MS[attempt - 1] : undefined;
  return delay === undefined ? null : new Date(now.getTime() + delay);
}
