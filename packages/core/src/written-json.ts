/**
 * The JSON text of a rendered value, written once. A page held to its byte budget serialises its
 * objects to measure them ({@link leadingWithinJsonBytes}); the answer that sends the page then
 * writes that text ({@link writtenJson}) instead of serialising the objects again. For values that
 * are final once measured (a rendered DataObject, a page's array of them, is never changed after
 * it was rendered): the text is kept by the value's identity, weakly, for as long as it lives.
 */
import { LoopSlices } from './loop-slices.js';

const texts = new WeakMap<object, string>();

/**
 * Characters of JSON text serialised in one `JSON.stringify` call when a page is measured: about
 * 0.2 ms of the event loop at 3 ns a character. A page's objects are serialised together in runs of
 * about this size (a page of 20 invoices: 80 us instead of 180 us one object at a time, each text
 * kept apart); an object larger than this is serialised alone, as it always was.
 */
export const MEASURED_RUN_CHARS = 65_536;

/** The JSON text {@link leadingWithinJsonBytes} wrote for `value`, if it measured it. */
export function writtenJson(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? texts.get(value) : undefined;
}

/**
 * The leading `values` whose JSON texts weigh `budget` bytes or less together (at least the first,
 * so that paging always advances), measured in runs of about {@link MEASURED_RUN_CHARS} characters
 * with a slice of the event loop after each; the array returned has its JSON text kept for
 * {@link writtenJson} (the whole of `values` when all fit).
 */
export async function leadingWithinJsonBytes<T extends object>(
  values: T[],
  budget: number,
  slices: LoopSlices = new LoopSlices(),
): Promise<T[]> {
  /** The JSON text of each run measured and kept, an array of its values. */
  const runs: string[] = [];
  let used = 0;
  for (let start = 0; start < values.length;) {
    const end = runEnd(values, start);
    const text = JSON.stringify(values.slice(start, end));
    // Brackets and commas are one byte each: what remains is the elements' own bytes.
    const bytes = Buffer.byteLength(text) - 2 - (end - start - 1);
    const firstAlone = start === 0 && end === 1;
    if (used + bytes > budget && !firstAlone) return keptText(values, runs, start, end, budget - used);
    used += bytes;
    runs.push(text);
    start = end;
    await slices.next();
  }
  texts.set(values, runs.length === 1 ? runs[0]! : arrayText(runs.map(elementsOf)));
  return values;
}

/**
 * The page cut inside the run `start`..`end` that went over the budget: its leading elements
 * measured one at a time while `left` bytes remain (the page's first element is kept whatever its
 * size), with the page's text made of the runs kept before and these elements' texts.
 */
function keptText<T extends object>(
  values: T[],
  runs: readonly string[],
  start: number,
  end: number,
  left: number,
): T[] {
  const elements: string[] = [];
  let remaining = left;
  for (let index = start; index < end; index += 1) {
    const text = JSON.stringify(values[index]);
    const bytes = Buffer.byteLength(text);
    if (bytes > remaining && index > 0) break;
    remaining -= bytes;
    elements.push(text);
  }
  const page = values.slice(0, start + elements.length);
  texts.set(page, arrayText([...runs.map(elementsOf), ...elements]));
  return page;
}

/** The elements' text of a JSON array's text: its brackets off. */
function elementsOf(arrayJson: string): string {
  return arrayJson.slice(1, -1);
}

/** The JSON text of an array from its elements' texts (each of one element or more). */
function arrayText(elements: readonly string[]): string {
  return `[${elements.join(',')}]`;
}

/**
 * The end of the run that starts at `start`: the following values while their estimated JSON text
 * stays within {@link MEASURED_RUN_CHARS} characters, at least one.
 */
function runEnd(values: readonly object[], start: number): number {
  let chars = 0;
  let end = start;
  while (end < values.length) {
    chars += estimatedJsonChars(values[end], MEASURED_RUN_CHARS - chars);
    if (chars > MEASURED_RUN_CHARS && end > start) break;
    end += 1;
  }
  return end;
}

/** Levels of members and elements an estimate descends; a value nested deeper counts as large. */
const ESTIMATED_LEVELS = 32;

/**
 * About the characters of `value`'s JSON text (its strings' lengths unescaped, 24 for a number),
 * counted until they pass `limit`; past {@link ESTIMATED_LEVELS} levels, more than `limit`.
 * Escapes can make the text longer, by at most six times (a control character): a run stays
 * within a few milliseconds of serialising whatever its strings.
 */
function estimatedJsonChars(value: unknown, limit: number, levels = ESTIMATED_LEVELS): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value !== 'object' || value === null) return 24;
  if (levels === 0) return Math.max(limit, 0) + 1;
  let chars = 2;
  if (Array.isArray(value)) {
    chars += value.length;
    for (let index = 0; index < value.length && chars <= limit; index += 1) {
      chars += estimatedJsonChars(value[index], limit - chars, levels - 1);
    }
    return chars;
  }
  for (const key in value) {
    chars +=
      key.length + 4 + estimatedJsonChars((value as Record<string, unknown>)[key], limit - chars, levels - 1);
    if (chars > limit) break;
  }
  return chars;
}
