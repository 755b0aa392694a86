/**
 * Counts the turns of the event loop while a piece of work runs: a ticker re-queued with
 * `setImmediate` on every turn. Work done in slices lets the loop turn again and again; work done
 * in one synchronous step lets it turn about once, however long the step.
 */
export class LoopTurns {
  /** Turns counted since the counter started. */
  count = 0;
  private ticking = true;

  constructor() {
    const tick = (): void => {
      this.count += 1;
      if (this.ticking) setImmediate(tick);
    };
    setImmediate(tick);
  }

  /** Stops counting (the ticker queues no further turn). */
  stop(): void {
    this.ticking = false;
  }
}
