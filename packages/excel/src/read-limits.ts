/**
 * The import limits (`ImportLimits`, docs/excel.md "Limits") enforced while a file is read: the
 * bytes a part of a workbook inflates to, counted as they stream (a worker's heap limit does not
 * bound Buffers, so this count is what stops a zip bomb), the longest run of text a parser would
 * have to hold at once, and the size of each row read. Past a limit, an {@link ImportLimitError}
 * names it, its configuration variable and its value.
 */
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { IMPORT_LIMIT_VARIABLES } from '@odp/core';
import type { ImportLimits } from '@odp/core';
import type { CellValue } from './cells.js';

/** A file over one of the import limits: the import ends `failed` with this message. */
export class ImportLimitError extends Error {
  /** `description` says what is over the limit, with the limit's value ("row 7 holds more than 4 bytes"). */
  constructor(limit: keyof ImportLimits, description: string) {
    super(`The file exceeds an import limit: ${description} (${IMPORT_LIMIT_VARIABLES[limit]}).`);
    this.name = 'ImportLimitError';
  }
}

/** The inflated bytes of a workbook's parts read so far, shared by the parts' counters. */
export interface InflatedTotal {
  bytes: number;
}

/** What {@link boundedBytes} checks: a byte budget, and the longest run between two separators. */
export interface ByteBounds {
  /** Bytes of this stream, and the error past them; none: not limited. */
  readonly bytes?: { readonly max: number; readonly error: () => ImportLimitError };
  /** Bytes of all streams sharing `total`, and the error past them. */
  readonly total?: {
    readonly counter: InflatedTotal;
    readonly max: number;
    readonly error: () => ImportLimitError;
  };
  /** The separator byte (`<` in XML, a newline in CSV), the longest run without it, its error. */
  readonly run: { readonly separator: number; readonly max: number; readonly error: () => ImportLimitError };
}

/**
 * A pass-through that fails with the bounds' error as soon as the bytes through it pass a budget,
 * or a run without the separator grows past its maximum: a parser downstream never holds more
 * than that run as one piece of text, and never sees bytes past the budget.
 */
export function boundedBytes(bounds: ByteBounds): Transform {
  let bytes = 0;
  let run = 0;
  const { separator, max } = bounds.run;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      bytes += chunk.length;
      if (bounds.bytes && bytes > bounds.bytes.max) return callback(bounds.bytes.error());
      if (bounds.total) {
        bounds.total.counter.bytes += chunk.length;
        if (bounds.total.counter.bytes > bounds.total.max) return callback(bounds.total.error());
      }
      let from = 0;
      for (let at = chunk.indexOf(separator); at !== -1; at = chunk.indexOf(separator, from)) {
        if (run + at - from > max) return callback(bounds.run.error());
        run = 0;
        from = at + 1;
      }
      run += chunk.length - from;
      if (run > max) return callback(bounds.run.error());
      callback(null, chunk);
    },
  });
}

/** UTF-8 bytes of a cell's value as read (a string's; other values are small). */
function cellBytes(cell: CellValue): number {
  return typeof cell === 'string' ? Buffer.byteLength(cell) : 8;
}

/** Checks one row of `cells` (row `number` of the file) against the cell and row limits. */
export function checkRow(cells: readonly CellValue[], number: number, limits: ImportLimits): void {
  let total = 0;
  for (const cell of cells) {
    const bytes = cellBytes(cell);
    if (bytes > limits.maxCellBytes)
      throw new ImportLimitError(
        'maxCellBytes',
        `row ${number} has a cell of more than ${limits.maxCellBytes} bytes`,
      );
    total += bytes;
  }
  if (total > limits.maxRowBytes)
    throw new ImportLimitError('maxRowBytes', `row ${number} holds more than ${limits.maxRowBytes} bytes`);
}
