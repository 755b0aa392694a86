/**
 * The engine-neutral loop of a store's derived-data rebuild for a changed model (`applyModel`):
 * forget the recorded model signature, re-derive every object in batches, record the signature. An
 * interrupted rebuild is therefore redone by the next `applyModel`, and a rebuild started meanwhile
 * (a newer model) supersedes the running one, which stops at its next batch.
 */

/** What a rebuild does in one engine; `Position` is where a batch ends (a row key, an id). */
export interface DerivedRebuildSteps<Position> {
  /** Forgets the recorded model signature. */
  forgetSignature(): Promise<void> | void;
  /**
   * Re-derives the next batch of objects after `after` (null: from the first) and resolves how
   * many it re-derived and the position of the last one, or null when none is left.
   */
  rederiveAfter(after: Position | null): Promise<{ count: number; last: Position } | null>;
  /** Records the signature of the model the objects are now derived for. */
  recordSignature(): Promise<void> | void;
}

export class DerivedRebuildLoop {
  /** Incremented by each rebuild; a rebuild whose generation is no longer current stops. */
  private generation = 0;

  /**
   * Runs a rebuild with `steps`, yielding to the event loop between batches so the process keeps
   * serving meanwhile; resolves the number of objects re-derived (up to where it stopped).
   */
  async run<Position>(steps: DerivedRebuildSteps<Position>): Promise<number> {
    const generation = ++this.generation;
    await steps.forgetSignature();
    let count = 0;
    for (let after: Position | null = null; ;) {
      if (generation !== this.generation) return count;
      const batch = await steps.rederiveAfter(after);
      if (batch === null) break;
      count += batch.count;
      after = batch.last;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (generation !== this.generation) return count;
    await steps.recordSignature();
    return count;
  }
}
