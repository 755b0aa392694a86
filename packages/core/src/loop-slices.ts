/**
 * Work over many items (the objects of a 1,000-object page: rendering them, serialising them) done
 * in slices of the event loop rather than in one synchronous run: after each item the caller awaits
 * {@link LoopSlices.next}, which yields to the event loop (`setImmediate`, after the I/O that
 * arrived meanwhile was read) once the current slice has used {@link LOOP_SLICE_MS}. Another
 * tenant's request that arrives meanwhile is then read and served between two slices instead of
 * waiting for the whole page (docs/architecture.md, "Where heavy work runs").
 */

/** Milliseconds of the event loop one slice may take before it yields. */
export const LOOP_SLICE_MS = 1;

/** The slices of one piece of work (one per request: its clock starts with it). */
export class LoopSlices {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs: number = LOOP_SLICE_MS) {}

  /** Resolves at once while the slice lasts, else after yielding to the event loop. */
  async next(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }
}

/** `transform` of every item in order, in slices of the event loop. */
export async function mapInSlices<T, R>(
  items: readonly T[],
  transform: (item: T) => R,
  slices: LoopSlices = new LoopSlices(),
): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) {
    results.push(transform(item));
    await slices.next();
  }
  return results;
}
