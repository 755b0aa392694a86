/**
 * The open change event streams of one tenant in this process (docs/events.md): at most `limit` at
 * once, so that one tenant's streams (a replay of large values each) cannot take the process's
 * memory and time from the others; and all of them end together when the tenant's runtime closes
 * (the tenant or its data deleted, here or, through the invalidation announcement, on another
 * instance), so no stream outlives its tenant.
 */
import { RateLimitedError, TenantShareError } from '@odp/core';

/** Seconds a refused stream is asked to wait (`Retry-After`): a slot frees when a stream closes. */
export const STREAM_RETRY_AFTER_SECONDS = 5;

export class TenantEventStreams {
  private readonly open = new Set<() => void>();
  private ended = false;

  constructor(private readonly limit: number) {}

  /**
   * Admits one more stream, ended through `end` when the tenant's streams end. RateLimitedError
   * (429, `Retry-After`) when the tenant already has `limit` open here, or once they have ended
   * (a request that got the closing runtime). Resolves the release the stream calls when it closes.
   */
  admit(end: () => void): () => void {
    if (this.ended) {
      throw new RateLimitedError(
        "The tenant's streams were closed (its data deleted); connect again.",
        STREAM_RETRY_AFTER_SECONDS,
      );
    }
    if (this.open.size >= this.limit) {
      throw new TenantShareError(
        `This tenant already has ${this.limit} event streams open; close one or try again later.`,
        STREAM_RETRY_AFTER_SECONDS,
      );
    }
    this.open.add(end);
    return () => this.open.delete(end);
  }

  /** Ends every open stream and admits no more (the runtime closes). */
  endAll(): void {
    this.ended = true;
    for (const end of [...this.open]) end();
    this.open.clear();
  }
}
