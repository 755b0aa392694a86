/** The byte range of a download's `Range` header (RFC 9110, single ranges only). */
import type { ByteRange } from '@odp/core';

/**
 * The range of a `Range: bytes=...` header for a file of `size` bytes: null to serve the whole file
 * (no header, another unit, several ranges, malformed); a range with `end < start` when it cannot
 * be satisfied.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | null {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const [first, last] = [match[1] ?? '', match[2] ?? ''];
  if (first === '') {
    const suffix = Number(last);
    return suffix === 0 || size === 0
      ? { start: 1, end: 0 }
      : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) return { start: 1, end: 0 };
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}
