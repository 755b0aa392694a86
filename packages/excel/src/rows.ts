/**
 * The rows of an uploaded spreadsheet, streamed: one sheet of an `.xlsx` workbook (see
 * {@link xlsxRows}), or a `.csv` file through csv-parse (UTF-8, a leading byte-order mark dropped,
 * the delimiter `,` or `;` as the header line uses). The first row is the header.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import unzipper from 'unzipper';
import { ValidationError } from '@odp/core';
import type { ImportLimits } from '@odp/core';
import { plainCell } from './cells.js';
import type { CellValue } from './cells.js';
import { ImportLimitError, boundedBytes, checkRow } from './read-limits.js';
import type { InflatedTotal } from './read-limits.js';

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const CSV_TYPE = 'text/csv';

export type SheetFormat = 'xlsx' | 'csv';

/** A row of the file: its 1-based row number in the sheet and its cells, left to right. */
export interface SheetRow {
  readonly number: number;
  readonly cells: readonly CellValue[];
}

/** A file the reader cannot read: it ends the import before any row is written (docs/excel.md). */
export class UnreadableFileError extends Error {
  override readonly name = 'UnreadableFileError';
}

/** The format of an upload by its recorded content type; ValidationError for anything else. */
export function formatOf(file: { contentType: string; fileName: string }): SheetFormat {
  if (file.contentType === XLSX_TYPE) return 'xlsx';
  if (file.contentType === CSV_TYPE || /\.csv$/i.test(file.fileName)) return 'csv';
  throw new ValidationError('The file must be an .xlsx workbook or a .csv file.', [
    { field: 'file', message: `is ${file.contentType}, not an .xlsx workbook or a .csv file` },
  ]);
}

/** The separators that bound a run of text: a line of CSV, a text between two tags of XML. */
const NEWLINE = 0x0a;
const TAG_START = 0x3c;

/** The zip signature every `.xlsx` starts with. */
const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** Whether the first bytes can start a file of `format` (an `.xlsx` is a zip archive). */
export function plausibleStart(format: SheetFormat, head: Buffer): boolean {
  return format === 'csv' ? !head.includes(0) : head.subarray(0, 4).equals(ZIP_SIGNATURE);
}

/**
 * The rows of `source` (the file's path, or its bytes as a stream), header first, within `limits`
 * (docs/excel.md, "Limits"). For a workbook, the sheet named `sheet` (compared without case) when
 * given, else the first one. Rows with no value are skipped. Throws ImportLimitError past a limit,
 * UnreadableFileError when the file cannot be parsed or has no such sheet.
 */
export async function* readRows(
  source: string | Readable,
  format: SheetFormat,
  limits: ImportLimits,
  sheet?: string,
): AsyncGenerator<SheetRow> {
  const stream = typeof source === 'string' ? null : source;
  try {
    let read = 0;
    const rows =
      format === 'csv'
        ? csvRows(stream ?? createReadStream(source as string), limits)
        : xlsxRows(source, sheet, limits);
    for await (const row of rows) {
      // The first row read is the header.
      if (read > limits.maxRows)
        throw new ImportLimitError('maxRows', `the file has more than ${limits.maxRows} data rows`);
      checkRow(row.cells, row.number, limits);
      read += 1;
      yield row;
    }
  } catch (error) {
    if (error instanceof UnreadableFileError || error instanceof ImportLimitError) throw error;
    throw new UnreadableFileError(
      `The file is not a readable ${format === 'csv' ? 'CSV file' : '.xlsx workbook'} (${error instanceof Error ? error.message : String(error)}).`,
    );
  } finally {
    stream?.destroy();
  }
}

/** csv-parse's error for a field or record over its `max_record_size`. */
const CSV_RECORD_TOO_LONG = 'CSV_MAX_RECORD_SIZE';

async function* csvRows(body: Readable, limits: ImportLimits): AsyncGenerator<SheetRow> {
  const lineTooLong = () =>
    new ImportLimitError('maxRowBytes', `a line of the file is longer than ${limits.maxRowBytes} bytes`);
  const lines = boundedBytes({ run: { separator: NEWLINE, max: limits.maxRowBytes, error: lineTooLong } });
  body.on('error', (error) => lines.destroy(error));
  const decoded = body.pipe(lines).setEncoding('utf8');
  lines.on('close', () => body.destroy());
  let delimiter: string | null = null;
  let pending = '';
  // The delimiter is decided on the header line (at most maxRowBytes long), before the parser starts.
  const chunks = decoded[Symbol.asyncIterator]() as AsyncIterator<string>;
  while (delimiter === null) {
    const next = await chunks.next();
    if (next.done) break;
    const end = next.value.indexOf('\n');
    if (end !== -1) delimiter = pickDelimiter(pending + next.value.slice(0, end));
    pending += next.value;
  }
  delimiter ??= pickDelimiter(pending);
  const parser = parse({
    delimiter,
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: limits.maxRowBytes,
  });
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
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      number += 1;
      yield { number, cells: record.map((cell) => (cell === '' ? null : cell)) };
    }
  } catch (error) {
    if ((error as { code?: unknown }).code === CSV_RECORD_TOO_LONG) {
      throw new ImportLimitError(
        'maxRowBytes',
        `a record of the file is longer than ${limits.maxRowBytes} bytes`,
      );
    }
    throw error;
  }
  await feed;
}

function pickDelimiter(headerLine: string): string {
  const count = (char: string) => headerLine.split(char).length;
  return count(';') > count(',') ? ';' : ',';
}

/** A shared string as exceljs reads it: text, or rich text runs. */
type SharedString = string | { readonly richText: readonly { readonly text?: string | null }[] } | null;

/**
 * The part parsers of exceljs 4's streaming WorkbookReader (not in its typings), which
 * {@link xlsxRows} calls in dependency order; each reads one part's stream to its end.
 */
interface WorkbookParts {
  readonly model?: { readonly sheets?: readonly { readonly name: string; readonly rId: string }[] };
  readonly workbookRels?: readonly { readonly Id: string; readonly Target: string }[];
  /** The shared-string table the worksheet parser resolves cells with (filled by {@link sharedStrings}). */
  sharedStrings?: SharedString[];
  _parseRels(part: Readable): Promise<void>;
  _parseWorkbook(part: Readable): Promise<void>;
  /** With `sharedStrings: 'emit'`: each string as it is read. */
  _parseSharedStrings(part: Readable): AsyncIterable<{ readonly text: SharedString }>;
  _parseStyles(part: Readable): Promise<void>;
  _parseWorksheet(part: Readable, sheetNo: string): Iterable<{ readonly value: AsyncIterable<ExcelJS.Row> }>;
}

function sharedStringBytes(value: SharedString): number {
  if (value === null) return 0;
  if (typeof value === 'string') return Buffer.byteLength(value);
  return value.richText.reduce((sum, run) => sum + Buffer.byteLength(run.text ?? ''), 0);
}

/** Reads the shared-string table into `reader.sharedStrings`, within its count and byte limits. */
async function sharedStrings(reader: WorkbookParts, part: Readable, limits: ImportLimits): Promise<void> {
  const table: SharedString[] = [];
  reader.sharedStrings = table;
  let bytes = 0;
  for await (const { text } of reader._parseSharedStrings(part)) {
    if (table.length >= limits.maxSharedStrings)
      throw new ImportLimitError(
        'maxSharedStrings',
        `the workbook has more than ${limits.maxSharedStrings} shared strings`,
      );
    bytes += sharedStringBytes(text);
    if (bytes > limits.maxSharedStringBytes)
      throw new ImportLimitError(
        'maxSharedStringBytes',
        `the workbook's shared strings hold more than ${limits.maxSharedStringBytes} bytes`,
      );
    table.push(text);
  }
}

/**
 * The parts of a workbook by name, each as a stream of its inflated bytes, counted as they stream:
 * past the part or total limit, or past a text longer than a cell may be (an entity such as
 * `&quot;` is six bytes of the file for one of the value, hence the factor), the stream fails with
 * the limit's error. Undefined for a part the archive does not have.
 */
function boundedParts(
  zip: unzipper.CentralDirectory,
  limits: ImportLimits,
): (name: string) => Readable | undefined {
  const total: InflatedTotal = { bytes: 0 };
  return (name) => {
    const entry = zip.files.find((candidate) => candidate.path === name);
    if (entry === undefined) return undefined;
    const bounded = boundedBytes({
      bytes: {
        max: limits.maxPartBytes,
        error: () =>
          new ImportLimitError(
            'maxPartBytes',
            `the workbook's part ${name} inflates to more than ${limits.maxPartBytes} bytes`,
          ),
      },
      total: {
        counter: total,
        max: limits.maxInflatedBytes,
        error: () =>
          new ImportLimitError(
            'maxInflatedBytes',
            `the workbook inflates to more than ${limits.maxInflatedBytes} bytes`,
          ),
      },
      run: {
        separator: TAG_START,
        max: 6 * limits.maxCellBytes + 1024,
        error: () =>
          new ImportLimitError(
            'maxCellBytes',
            `the workbook's part ${name} holds a text of more than ${limits.maxCellBytes} bytes`,
          ),
      },
    });
    const inflated = entry.stream();
    inflated.on('error', (error) => bounded.destroy(error));
    bounded.on('close', () => inflated.destroy());
    return inflated.pipe(bounded);
  };
}

/** The path of `source` when it is one, else `source` spooled to a file in `spool`. */
async function onDisk(source: string | Readable, spool: string): Promise<string> {
  if (typeof source === 'string') return source;
  const file = path.join(spool, 'workbook.xlsx');
  await pipeline(source, createWriteStream(file));
  return file;
}

/**
 * The rows of one sheet of a workbook: the sheet named `sheet` (without case), else the first in
 * the workbook's order. The file is read from disk (a stream is spooled to a temporary file first,
 * so memory stays bounded whatever its size) through the zip's central directory: the
 * relationships, the workbook, the shared strings and the styles are parsed first, by exceljs's
 * own part parsers, then the chosen sheet's rows are streamed; other sheets are never read.
 * (exceljs's one-pass reader takes the parts in stored order, and streaming writers, exceljs's
 * included, store the workbook part last: under load that pass can emit a sheet before its name is
 * known, and a named sheet then seems missing.) Every part is read within the limits.
 */
async function* xlsxRows(
  source: string | Readable,
  sheet: string | undefined,
  limits: ImportLimits,
): AsyncGenerator<SheetRow> {
  const spool = await mkdtemp(path.join(os.tmpdir(), 'odp-import-'));
  try {
    const file = await onDisk(source, spool);
    const part = boundedParts(await unzipper.Open.file(file), limits);
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
      worksheets: 'emit',
      sharedStrings: 'emit',
      styles: 'cache',
      hyperlinks: 'ignore',
      entries: 'ignore',
    }) as unknown as WorkbookParts;
    // Each part is opened when its parser reads it: an opened part starts inflating.
    const rels = part('xl/_rels/workbook.xml.rels');
    if (rels === undefined) throw new UnreadableFileError('The workbook has no sheet.');
    await reader._parseRels(rels);
    const workbook = part('xl/workbook.xml');
    if (workbook === undefined) throw new UnreadableFileError('The workbook has no sheet.');
    await reader._parseWorkbook(workbook);
    const strings = part('xl/sharedStrings.xml');
    if (strings !== undefined) await sharedStrings(reader, strings, limits);
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
