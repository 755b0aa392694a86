/**
 * Cache of the acIds a holder object holds through anchored grants. Every write that changes
 * holdings calls `invalidate()` right after it commits (before its response is sent), and a load
 * started before an invalidation never lands in the cache, so a revoked link takes effect on the very
 * next request. Writes made by another process (another api process on the same SQLite files) are
 * seen through the store's `commitsElsewhere`: the cache is emptied before a read whenever it moved.
 * A store that cannot tell (MongoDB) leaves them unseen until this process writes or restarts (see
 * docs/access-control.md).
 */
import type { TenantAccessRows } from '@odp/core';

export class HeldAcIdCache {
  private generation = 0;
  /** The store's `commitsElsewhere` when the entries were last known current. */
  private seenCommits: number | undefined;
  private readonly entries = new Map<string, readonly string[]>();

  constructor(
    private readonly store: Pick<TenantAccessRows, 'holdingsOf' | 'commitsElsewhere'>,
    private readonly maxEntries = 10_000,
  ) {}

  invalidate(): void {
    this.generation += 1;
    this.entries.clear();
  }

  async acIdsHeldBy(holderId: string): Promise<readonly string[]> {
    const commits = this.store.commitsElsewhere?.();
    if (commits !== this.seenCommits) {
      this.seenCommits = commits;
      this.invalidate();
    }
    const cached = this.entries.get(holderId);
    if (cached) return cached;
    const generation = this.generation;
    const acIds = [...new Set((await this.store.holdingsOf(holderId)).map((holding) => holding.acId))];
    if (generation === this.generation) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(holderId, acIds);
    }
    return acIds;
  }
}
