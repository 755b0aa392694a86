/**
 * The parsing process of an import (see `isolated-rows.ts`): reads the spooled file with `readRows`
 * within the import limits and sends its rows in batches, each computed when the import pulls it.
 */
import { serveIsolatedStream } from '@odp/core';
import type { RowsTaskInput } from './isolated-rows.js';
import { readRows } from './rows.js';
import type { SheetRow } from './rows.js';

/** Rows of one batch at most, and the characters of text after which a batch is sent early. */
const BATCH_ROWS = 200;
const BATCH_TEXT = 1024 * 1024;

async function* batches(input: RowsTaskInput): AsyncGenerator<SheetRow[]> {
  let batch: SheetRow[] = [];
  let text = 0;
  for await (const row of readRows(input.file, input.format, input.limits, input.sheet)) {
    batch.push(row);
    for (const cell of row.cells) text += typeof cell === 'string' ? cell.length : 8;
    if (batch.length >= BATCH_ROWS || text >= BATCH_TEXT) {
      yield batch;
      batch = [];
      text = 0;
    }
  }
  if (batch.length > 0) yield batch;
}

serveIsolatedStream(batches);
