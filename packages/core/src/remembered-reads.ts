/**
 * Reads of a tenant's store remembered in memory until they may be stale: the writes of this
 * process that may change them call {@link RememberedReads.forget} (once they settled), and the
 * commits of other processes are seen through the store's `commitsElsewhere`, which empties the
 * memory before a read whenever it moved (a store that cannot tell returns undefined: only this
 * process's writes are seen). A read that started before a forgetting is not remembered, so a
 * value read before a write is never kept after it.
 */
export class RememberedReads<V> {
  private readonly entries = new Map<string, V>();
  /** Bumped by every forgetting. */
  private generation = 0;
  /** `commitsElsewhere` when the entries were last known current. */
  private seenCommits: number | undefined;

  constructor(
    private readonly commitsElsewhere: () => number | undefined,
    private readonly maxEntries: number,
  ) {}

  /** The value remembered under `key`, else `load`'s, remembered unless a forgetting came meanwhile. */
  async read(key: string, load: () => Promise<V>): Promise<V> {
    const commits = this.commitsElsewhere();
    if (commits !== this.seenCommits) {
      this.seenCommits = commits;
      this.forget();
    }
    if (this.entries.has(key)) return this.entries.get(key) as V;
    const generation = this.generation;
    const value = await load();
    if (generation === this.generation) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }

  /** Whether a remembered value satisfies `test`. */
  holds(test: (value: V) => boolean): boolean {
    for (const value of this.entries.values()) if (test(value)) return true;
    return false;
  }

  forget(): void {
    this.generation += 1;
    this.entries.clear();
  }
}
