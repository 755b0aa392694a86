/**
 * Keeps the tenant's full-text index in one segment, or close to it.
 *
 * FTS5 writes each transaction's entries as a new segment and merges segments level by level as
 * they pile up, so an index written one object at a time holds a few segments per level, and every
 * query reads each of them. Measured on a 10,000-object index: a prefix query took 15 µs with one
 * segment, 47-85 µs after 1,000-5,000 single-object writes, and 15 µs again once merged.
 *
 * A merge rewrites about the whole index, which costs a write flood more than it saves its
 * searches (merging after every few hundred creates took 5-15% off creates and patches). So it runs
 * once the index is quiet: when at least {@link MIN_TRANSACTIONS} transactions, and at least as many
 * as the index has pages, changed it, and then none did for {@link QUIET_MS}. It merges in steps of
 * {@link MERGE_STEP_PAGES} pages (FTS5's incremental `merge` with a negative page count), each step
 * its own short write transaction, with the event loop served between them, for at most one pass
 * over the index. An index of more than {@link MERGE_PAGES_MAX} pages is never merged this way:
 * at 1,000,000 objects (43,600 pages) a pass took the tenant's writes down to a few a second for
 * its duration, and FTS5's own merging keeps such an index in a few large segments. After a bulk
 * load the owner asks for a merge at once ({@link SearchCompaction.compact}), whatever the size.
 */
import type { TenantDatabase } from './database.js';

/** Pages one merge step writes at most: a step holds the tenant's write lock for a few ms. */
export const MERGE_STEP_PAGES = 64;
/** The least index-changing transactions between two merges. */
export const MIN_TRANSACTIONS = 100;
/** How long no transaction may have changed the index before a merge starts. */
export const QUIET_MS = 1000;
/** The largest index (FTS5 data rows, about a page each) merged once writes go quiet. */
export const MERGE_PAGES_MAX = 8192;

export class SearchCompaction {
  /** Whether the open write transaction changed rows of the full-text index. */
  private changed = false;
  /** Committed transactions that changed the index since the last merge started. */
  private transactions = 0;
  private threshold = MIN_TRANSACTIONS;
  private lastChange = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly database: TenantDatabase,
    private readonly mergePagesMax: number = MERGE_PAGES_MAX,
  ) {
    database.onForget('rollback', () => {
      this.changed = false;
    });
    database.onForget('write', () => this.committed());
  }

  /** The open write transaction changes rows of the full-text index. */
  noteChange(): void {
    this.changed = true;
  }

  /**
   * Merges the index into one segment, in one pass over it; resolves once done, or when the store
   * closes. A merge already running is joined.
   */
  compact(): Promise<void> {
    this.running ??= this.mergeInSteps().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Stops merging: a step in progress completes first. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private committed(): void {
    if (!this.changed) return;
    this.changed = false;
    this.transactions += 1;
    this.lastChange = performance.now();
    if (this.transactions >= this.threshold && this.timer === null && !this.closed) this.wait(QUIET_MS);
  }

  /** Checks for quiet after `ms`; the process does not stay alive for it. */
  private wait(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.closed) return;
      const quietFor = performance.now() - this.lastChange;
      if (quietFor < QUIET_MS) {
        this.wait(QUIET_MS - quietFor);
        return;
      }
      if (this.running !== null) return;
      // The pages are counted now, not only at the last merge: that may have been another
      // process's (the bulk load of a seed, an api process that ended).
      const pages = this.indexPages();
      this.threshold = Math.max(MIN_TRANSACTIONS, pages);
      if (pages > this.mergePagesMax || this.transactions < this.threshold) return;
      // A merge that fails (the lock held by another process past the busy timeout) leaves the
      // index correct, only slower to read; the next writes ask for one again.
      this.compact().catch(() => undefined);
    }, ms);
    this.timer.unref();
  }

  private async mergeInSteps(): Promise<void> {
    this.transactions = 0;
    // One pass over the index as it is now: writes that go on meanwhile add segments, which a merge
    // with no end would keep rewriting the whole index to absorb.
    const pages = this.indexPages();
    this.threshold = Math.max(MIN_TRANSACTIONS, pages);
    const maxSteps = Math.ceil(pages / MERGE_STEP_PAGES) + 1;
    for (let step = 0; step < maxSteps && !this.closed; step++) {
      if (!(await this.database.inWriteTransaction(() => this.mergeStep()))) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** The rows of the index's data table: one per leaf page of its segments, and a few more. */
  private indexPages(): number {
    return this.database.statement('SELECT count(*) FROM search_data').pluck().get() as number;
  }

  /** One step of merging; false when there was nothing left to merge. */
  private mergeStep(): boolean {
    const changes = this.database.statement('SELECT total_changes()').pluck();
    const before = changes.get() as number;
    this.database.statement("INSERT INTO search (search, rank) VALUES ('merge', ?)").run(-MERGE_STEP_PAGES);
    // FTS5 counts two or more changes when a merge step wrote anything (its documented test).
    return (changes.get() as number) - before >= 2;
  }
}
