/**
 * The rows of an uploaded file read off the api's event loop: the upload is copied to a temporary
 * file, and a process of its own (`streamIsolated`, `rows-task.ts`) parses it (unzip, XML, CSV) within
 * the import limits, a heap limit and a time limit, sending the rows back in batches that the import
 * pulls as it writes them. A file over a limit, a parse that needs more memory or time than its
 * limits, or a file that cannot be parsed ends in an UnreadableFileError whose message says why;
 * the process that serves every other tenant goes on.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { IMPORT_LIMIT_VARIABLES, IsolatedTaskError, streamIsolated, taskModule } from '@odp/core';
import type { ImportLimits } from '@odp/core';
import { UnreadableFileError } from './rows.js';
import type { SheetFormat, SheetRow } from './rows.js';

/** What the parsing process reads: the spooled file, its format, the sheet and the limits. */
export interface RowsTaskInput {
  readonly file: string;
  readonly format: SheetFormat;
  readonly sheet?: string;
  readonly limits: ImportLimits;
}

/** The error a failed parse ends the import with, by how its process ended. */
function readFailure(error: unknown, limits: ImportLimits): Error {
  if (!(error instanceof IsolatedTaskError)) return error instanceof Error ? error : new Error(String(error));
  switch (error.failure) {
    case 'memory':
      return new UnreadableFileError(
        `Reading the file needed more than the import's ${limits.memoryMb} MiB of memory (${IMPORT_LIMIT_VARIABLES.memoryMb}).`,
      );
    case 'time':
      return new UnreadableFileError(
        `Reading the file took longer than the import's ${limits.timeoutSeconds} s for a batch of rows (${IMPORT_LIMIT_VARIABLES.timeoutSeconds}).`,
      );
    default:
      // The reader's own errors (a limit met, an unreadable file) carry their message as it is.
      return error.taskErrorName === 'ImportLimitError' || error.taskErrorName === 'UnreadableFileError'
        ? new UnreadableFileError(error.message)
        : new UnreadableFileError(`The file could not be read (${error.message}).`);
  }
}

/**
 * The rows of `body` (an upload of `format`), header first, as `readRows` reads them, parsed on a
 * process of its own within `limits`. Leaving the loop early ends the process.
 */
export async function* isolatedRows(
  body: Readable,
  format: SheetFormat,
  limits: ImportLimits,
  sheet?: string,
): AsyncGenerator<SheetRow> {
  const spool = await mkdtemp(path.join(os.tmpdir(), 'odp-import-'));
  try {
    const file = path.join(spool, `upload.${format}`);
    await pipeline(body, createWriteStream(file));
    const input: RowsTaskInput = { file, format, limits, ...(sheet === undefined ? {} : { sheet }) };
    const batches = streamIsolated<SheetRow[]>(taskModule(import.meta.url, 'rows-task'), input, {
      memoryMb: limits.memoryMb,
      timeoutMs: limits.timeoutSeconds * 1000,
    });
    try {
      for await (const batch of batches) yield* batch;
    } catch (error) {
      throw readFailure(error, limits);
    }
  } finally {
    await rm(spool, { recursive: true, force: true });
  }
}
