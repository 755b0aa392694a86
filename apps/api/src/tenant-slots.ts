/**
 * A per-tenant cap on work of one kind under way in this process (report renderings): a tenant
 * holds at most `limit` slots at once, and asking for one more is refused at once with
 * {@link RateLimitedError} (429 with `Retry-After`), so that one tenant cannot occupy the
 * process's task processes and memory for its kind of work while others wait.
 */
import { RateLimitedError } from '@odp/core';

export class TenantSlots {
  private readonly held = new Map<string, number>();

  constructor(
    private readonly limit: number,
    /** What the refusal says the tenant has too many of ("report renderings"). */
    private readonly what: string,
    /** Seconds a refused client is asked to wait. */
    private readonly retryAfterSeconds: number,
  ) {}

  /** Runs `work` holding one of the tenant's slots; RateLimitedError when it holds them all. */
  async run<Result>(tenantId: string, work: () => Promise<Result>): Promise<Result> {
    const count = this.held.get(tenantId) ?? 0;
    if (count >= this.limit) {
      throw new RateLimitedError(
        `This tenant already has ${this.limit} ${this.what} under way; retry after ${this.retryAfterSeconds} s.`,
        this.retryAfterSeconds,
      );
    }
    this.held.set(tenantId, count + 1);
    try {
      return await work();
    } finally {
      const left = (this.held.get(tenantId) ?? 1) - 1;
      if (left === 0) this.held.delete(tenantId);
      else this.held.set(tenantId, left);
    }
  }
}
