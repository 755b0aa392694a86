/**
 * Cache of the acIds a holder object holds through anchored grants. Every write that changes
 * holdings calls `invalidate()` right after it commits (before its response is sent), and a load
 * started before an invalidation never lands in the cache, so a revoked link takes effect on the very
 * next request. Writes made by another process (another api process on the same SQLite files) are
 * seen through the store's `commitsElsewhere`: the cache is emptied before a read whenever it moved.
 * A store that cannot tell (MongoDB) leaves them unseen until this process writes or restarts (see
 * docs/access-control.md).
 */
import { RememberedReads } from '@odp/core';
import type { TenantAccessRows } from '@odp/core';

export class HeldAcIdCache {
  private readonly reads: RememberedReads<readonly string[]>;

  constructor(
    private readonly store: Pick<TenantAccessRows, 'holdingsOf' | 'commitsElsewhere'>,
    maxEntries = 10_000,
  ) {
    this.reads = new RememberedReads(() => store.commitsElsewhere?.(), maxEntries);
  }

  invalidate(): void {
    this.reads.forget();
  }

  acIdsHeldBy(holderId: string): Promise<readonly string[]> {
    return this.reads.read(holderId, async () => [
      ...new Set((await this.store.holdingsOf(holderId)).map((holding) => holding.acId)),
    ]);
  }
}
