/**
 * The rows of an uploaded spreadsheet, streamed: one sheet of an `.xlsx` workbook (see
 * {@link xlsxRows}), or a `.csv` file through csv-parse (UTF-8, a leading byte-order mark dropped,
 * the delimiter `,` or `;` as the header line uses). The first row is the header.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import unzipper from 'unzipper';
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

/**
 * The part parsers of exceljs 4's streaming WorkbookReader (not in its typings), which
 * {@link xlsxRows} calls in dependency order; each reads one part's stream to its end.
 */
interface WorkbookParts {
  readonly model?: { readonly sheets?: readonly { readonly name: string; readonly rId: string }[] };
  readonly workbookRels?: readonly { readonly Id: string; readonly Target: string }[];
  _parseRels(part: Readable): Promise<void>;
  _parseWorkbook(part: Readable): Promise<void>;
  _parseSharedStrings(part: Readable): AsyncIterable<unknown>;
  _parseStyles(part: Readable): Promise<void>;
  _parseWorksheet(part: Readable, sheetNo: string): Iterable<{ readonly value: AsyncIterable<ExcelJS.Row> }>;
}

/**
 * The rows of one sheet of a workbook: the sheet named `sheet` (without case), else the first in
 * the workbook's order. The file is spooled to a temporary file (memory stays bounded whatever
 * its size) and read through the zip's central directory: the relationships, the workbook, the
 * shared strings and the styles are parsed first, by exceljs's own part parsers, then the chosen
 * sheet's rows are streamed; other sheets are never read. (exceljs's one-pass reader takes the
 * parts in stored order, and streaming writers, exceljs's included, store the workbook part last:
 * under load that pass can emit a sheet before its name is known, and a named sheet then seems
 * missing.)
 */
async function* xlsxRows(body: Readable, sheet: string | undefined): AsyncGenerator<SheetRow> {
  const spool = await mkdtemp(path.join(os.tmpdir(), 'odp-import-'));
  try {
    const file = path.join(spool, 'workbook.xlsx');
    await pipeline(body, createWriteStream(file));
    const zip = await unzipper.Open.file(file);
    /** A part's bytes, as a stream that async iteration and exceljs's parsers both read. */
    const part = (name: string): Readable | undefined =>
      zip.files
        .find((entry) => entry.path === name)
        ?.stream()
        .pipe(new PassThrough());
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
      worksheets: 'emit',
      sharedStrings: 'cache',
      styles: 'cache',
      hyperlinks: 'ignore',
      entries: 'ignore',
    }) as unknown as WorkbookParts;
    const rels = part('xl/_rels/workbook.xml.rels');
    const workbook = part('xl/workbook.xml');
    if (rels === undefined || workbook === undefined)
      throw new UnreadableFileError('The workbook has no sheet.');
    await reader._parseRels(rels);
    await reader._parseWorkbook(workbook);
    const strings = part('xl/sharedStrings.xml');
    if (strings !== undefined) for await (const _ of reader._parseSharedStrings(strings)) void _;
    const styles = part('xl/styles.xml');
    if (styles !== undefined) await reader._parseStyles(styles);

    const sheets = reader.model?.sheets ?? [];
    const wanted = sheet?.toLowerCase();
    const chosen = wanted === undefined ? sheets[0] : sheets.find((one) => one.name.toLowerCase() === wanted);
    if (chosen === undefined) {
      throw new UnreadableFileError(
        wanted === undefined ? 'The workbook has no sheet.' : `The workbook has no sheet named ${sheet}.`,
      );
    }
    // A relationship target is relative to `xl/`, or absolute from the archive's root.
    const target = reader.workbookRels?.find((rel) => rel.Id === chosen.rId)?.Target ?? '';
    const partName = target.startsWith('/') ? target.slice(1) : `xl/${target}`;
    const sheetNo = /sheet(\d+)\.xml$/.exec(partName)?.[1];
    const rows = part(partName);
    if (sheetNo === undefined || rows === undefined) {
      throw new UnreadableFileError(`The workbook's sheet ${chosen.name} has no rows.`);
    }
    for (const { value: worksheet } of reader._parseWorksheet(rows, sheetNo)) {
      for await (const row of worksheet) {
        const values = (row.values as unknown[] | undefined) ?? [];
        const cells: CellValue[] = [];
        for (let column = 1; column < values.length; column++) cells.push(plainCell(values[column]));
        if (cells.some((cell) => cell !== null)) yield { number: row.number, cells };
      }
    }
  } finally {
    await rm(spool, { recursive: true, force: true });
  }
}
