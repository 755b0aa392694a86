/**
 * The rows of an uploaded spreadsheet, streamed: an `.xlsx` workbook through exceljs's streaming
 * WorkbookReader (one sheet), or a `.csv` file through csv-parse (UTF-8, a leading byte-order mark
 * dropped, the delimiter `,` or `;` as the header line uses). The first row is the header.
 */
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import { ValidationError } from '@odp/core';
import { plainCell } from './cells.js';
import type { CellValue } from './cells.js';

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const CSV_TYPE = 'text/csv';

export type SheetFormat = 'xlsx' | 'csv';

/** A row of the file: its 1-based row number in the sheet and its cells, left to right. */
export interface SheetRow {
  readonly number: number;
  readonly cells: readonly CellValue[];
}

/** A file the reader cannot read: it ends the import before any row is written (docs/excel.md). */
export class UnreadableFileError extends Error {}

/** The format of an upload by its recorded content type; ValidationError for anything else. */
export function formatOf(file: { contentType: string; fileName: string }): SheetFormat {
  if (file.contentType === XLSX_TYPE) return 'xlsx';
  if (file.contentType === CSV_TYPE || /\.csv$/i.test(file.fileName)) return 'csv';
  throw new ValidationError('The file must be an .xlsx workbook or a .csv file.', [
    { field: 'file', message: `is ${file.contentType}, not an .xlsx workbook or a .csv file` },
  ]);
}

/** The zip signature every `.xlsx` starts with. */
const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** Whether the first bytes can start a file of `format` (an `.xlsx` is a zip archive). */
export function plausibleStart(format: SheetFormat, head: Buffer): boolean {
  return format === 'csv' ? !head.includes(0) : head.subarray(0, 4).equals(ZIP_SIGNATURE);
}

/**
 * The rows of `body`, header first. For a workbook, the sheet named `sheet` (compared without
 * case) when given, else the first one. Rows with no value are skipped. Throws
 * UnreadableFileError when the file cannot be parsed or has no such sheet.
 */
export async function* readRows(
  body: Readable,
  format: SheetFormat,
  sheet?: string,
): AsyncGenerator<SheetRow> {
  try {
    yield* format === 'csv' ? csvRows(body) : xlsxRows(body, sheet);
  } catch (error) {
    body.destroy();
    if (error instanceof UnreadableFileError) throw error;
    throw new UnreadableFileError(
      `The file is not a readable ${format === 'csv' ? 'CSV file' : '.xlsx workbook'} (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
}

async function* csvRows(body: Readable): AsyncGenerator<SheetRow> {
  let delimiter: string | null = null;
  let pending = '';
  const decoded = body.setEncoding('utf8');
  // The delimiter is decided on the header line, before the parser starts.
  const chunks = decoded[Symbol.asyncIterator]() as AsyncIterator<string>;
  while (delimiter === null) {
    const next = await chunks.next();
    if (next.done) break;
    pending += next.value;
    const end = pending.indexOf('\n');
    if (end !== -1) delimiter = pickDelimiter(pending.slice(0, end));
  }
  delimiter ??= pickDelimiter(pending);
  const parser = parse({ delimiter, bom: true, relax_column_count: true, skip_empty_lines: true });
  const feed = (async () => {
    if (pending && !parser.write(pending)) await new Promise((resolve) => parser.once('drain', resolve));
    for (;;) {
      const next = await chunks.next();
      if (next.done) break;
      if (!parser.write(next.value)) await new Promise((resolve) => parser.once('drain', resolve));
    }
    parser.end();
  })();
  feed.catch((error: unknown) => parser.destroy(error instanceof Error ? error : new Error(String(error))));
  let number = 0;
  for await (const record of parser as AsyncIterable<string[]>) {
    number += 1;
    yield { number, cells: record.map((cell) => (cell === '' ? null : cell)) };
  }
  await feed;
}

function pickDelimiter(headerLine: string): string {
  const count = (char: string) => headerLine.split(char).length;
  return count(';') > count(',') ? ';' : ',';
}

async function* xlsxRows(body: Readable, sheet: string | undefined): AsyncGenerator<SheetRow> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(body, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  const wanted = sheet?.toLowerCase();
  let seen = 0;
  let chosen = false;
  for await (const worksheet of reader) {
    seen += 1;
    // exceljs names a sheet before its rows are read (it buffers sheets that come before the
    // workbook part to temporary files), so the name is known here.
    const name = String((worksheet as unknown as { name?: string }).name ?? '').toLowerCase();
    const take: boolean = !chosen && (wanted === undefined ? seen === 1 : name === wanted);
    for await (const row of worksheet) {
      if (!take) continue;
      const values = (row.values as unknown[] | undefined) ?? [];
      const cells: CellValue[] = [];
      for (let column = 1; column < values.length; column++) cells.push(plainCell(values[column]));
      if (cells.some((cell) => cell !== null)) yield { number: row.number, cells };
    }
    chosen ||= take;
  }
  if (!chosen) {
    throw new UnreadableFileError(
      wanted === undefined ? 'The workbook has no sheet.' : `The workbook has no sheet named ${sheet}.`,
    );
  }
}
