/**
 * JSON text written in slices of the event loop (`LoopSlices`, docs/architecture.md "Where heavy
 * work runs"): the text `JSON.stringify` writes, produced a part at a time so that a large value
 * (a page of 1,000 objects) does not hold the event loop for the whole of its serialisation while
 * another tenant's request waits. An object measured for a page's byte budget is written from the
 * text measured then (`writtenJson`), not serialised again.
 */
import { LoopSlices } from './loop-slices.js';
import { writtenJson } from './written-json.js';

/** Levels of plain objects opened to reach arrays (a page: `_embedded`, then its plural). */
const OPENED_LEVELS = 2;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * The JSON text of `value`, as `JSON.stringify` writes it, an array element at a time: arrays at
 * any of the first `levels` levels of plain objects are serialised element by element in slices;
 * everything else by `JSON.stringify` whole.
 */
export async function jsonInSlices(
  value: unknown,
  slices: LoopSlices = new LoopSlices(),
  levels: number = OPENED_LEVELS,
): Promise<string | undefined> {
  if (Array.isArray(value)) {
    const elements: string[] = [];
    for (const element of value) {
      elements.push(writtenJson(element) ?? JSON.stringify(element) ?? 'null');
      await slices.next();
    }
    return `[${elements.join(',')}]`;
  }
  if (levels > 0 && isPlainObject(value) && typeof value['toJSON'] !== 'function') {
    const members: string[] = [];
    for (const [key, member] of Object.entries(value)) {
      const text = await jsonInSlices(member, slices, levels - 1);
      if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}
