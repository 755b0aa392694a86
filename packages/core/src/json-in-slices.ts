/**
 * JSON text written in slices of the event loop (`LoopSlices`, docs/architecture.md "Where heavy
 * work runs"): the text `JSON.stringify` writes, produced a part at a time so that a large value
 * (a page of 1,000 objects, a text field of a megabyte) does not hold the event loop for the whole
 * of its serialisation while another tenant's request waits. An object measured for a page's byte
 * budget is written from the text measured then (`writtenJson`), not serialised again.
 */
import { LoopSlices } from './loop-slices.js';
import { writtenJson } from './written-json.js';

/** Levels of plain objects opened to reach arrays (a page: `_embedded`, then its plural). */
const OPENED_LEVELS = 2;

/**
 * Characters of a string serialised in one piece: `JSON.stringify` writes about 3 ns a character
 * here (a 1,000,000-character text held the event loop 3 ms), a piece about 0.2 ms.
 */
export const STRING_PIECE_CHARS = 65_536;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * The JSON text of `value`, as `JSON.stringify` writes it, a part at a time: arrays (at any of the
 * first `levels` levels of plain objects) an element at a time, and strings longer than
 * {@link STRING_PIECE_CHARS} a piece at a time, each part in a slice; everything else by
 * `JSON.stringify` whole.
 */
export async function jsonInSlices(
  value: unknown,
  slices: LoopSlices = new LoopSlices(),
  levels: number = OPENED_LEVELS,
): Promise<string | undefined> {
  const parts: string[] = [];
  return (await writeJson(value, parts, slices, levels)) ? parts.join('') : undefined;
}

/**
 * The JSON text of `value` ({@link jsonInSlices}) as consecutive chunks of `chunkChars` characters
 * or more (a part is never split; the last chunk may be shorter), for a caller that encodes and
 * hashes a large answer a chunk at a time; none for what JSON cannot hold.
 */
export async function jsonChunksInSlices(
  value: unknown,
  chunkChars: number,
  slices: LoopSlices = new LoopSlices(),
  levels: number = OPENED_LEVELS,
): Promise<string[]> {
  const parts: string[] = [];
  if (!(await writeJson(value, parts, slices, levels))) return [];
  const chunks: string[] = [];
  let start = 0;
  let chars = 0;
  for (let index = 0; index < parts.length; index += 1) {
    chars += parts[index]!.length;
    if (chars >= chunkChars || index === parts.length - 1) {
      chunks.push(parts.slice(start, index + 1).join(''));
      start = index + 1;
      chars = 0;
    }
  }
  return chunks;
}

/**
 * The UTF-8 bytes of `value` as JSON ({@link jsonInSlices}; 0 for what JSON cannot hold), summed
 * over its parts without joining them.
 */
export async function jsonBytesInSlices(
  value: unknown,
  slices: LoopSlices = new LoopSlices(),
  levels: number = OPENED_LEVELS,
): Promise<number> {
  const parts: string[] = [];
  await writeJson(value, parts, slices, levels);
  let bytes = 0;
  for (const part of parts) bytes += Buffer.byteLength(part);
  return bytes;
}

/**
 * Appends the JSON text of `value` to `parts`, joined once by the caller (each part copied once);
 * false, appending nothing, for what JSON has no text for (`undefined`, a function).
 */
async function writeJson(
  value: unknown,
  parts: string[],
  slices: LoopSlices,
  levels: number,
): Promise<boolean> {
  const written = writtenJson(value);
  if (written !== undefined) {
    parts.push(written);
    return true;
  }
  if (typeof value === 'string' && value.length > STRING_PIECE_CHARS) {
    await writeString(value, parts, slices);
    return true;
  }
  if (Array.isArray(value)) {
    parts.push('[');
    for (let index = 0; index < value.length; index += 1) {
      if (index > 0) parts.push(',');
      if (!(await writeJson(value[index], parts, slices, levels - 1))) parts.push('null');
      await slices.next();
    }
    parts.push(']');
    return true;
  }
  if (levels > 0 && isPlainObject(value) && typeof value['toJSON'] !== 'function') {
    parts.push('{');
    let empty = true;
    for (const [key, member] of Object.entries(value)) {
      const mark = parts.length;
      parts.push(`${empty ? '' : ','}${JSON.stringify(key)}:`);
      if (await writeJson(member, parts, slices, levels - 1)) empty = false;
      else parts.length = mark;
    }
    parts.push('}');
    return true;
  }
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined) return false;
  parts.push(text);
  return true;
}

/**
 * A long string's JSON text, a piece at a time. `JSON.stringify` escapes a string one code point
 * at a time, so the pieces' texts joined are the whole one's as long as no piece ends between the
 * two halves of a surrogate pair (a pair split would be written as two escaped lone surrogates).
 */
async function writeString(text: string, parts: string[], slices: LoopSlices): Promise<void> {
  parts.push('"');
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + STRING_PIECE_CHARS, text.length);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    parts.push(JSON.stringify(text.slice(start, end)).slice(1, -1));
    start = end;
    await slices.next();
  }
  parts.push('"');
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
