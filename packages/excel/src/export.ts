/**
 * The Excel export (docs/excel.md): the sheets of a list's selection written as one `.xlsx`
 * workbook through exceljs's streaming WorkbookWriter, a page of rows at a time, so memory stays
 * bounded whatever the number of rows. Each sheet: a header row (`id`, the field labels, the
 * relation names), then one row per object.
 */
import { PassThrough } from 'node:stream';
import type { Writable } from 'node:stream';
import { setTimeout as delay, setImmediate as nextTurn } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { ExportSheet, ImportTarget, DataObject } from '@odp/data';
import { NUMBER_FORMATS, cellOf } from './cells.js';
import type { CellValue } from './cells.js';

/** The header of the id column: the object's id, what an update import matches rows on. */
export const ID_COLUMN = 'id';

/** Buffered workbook bytes above which the writer waits for the consumer (the blob store). */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;

/**
 * What exceljs does not type of a streaming worksheet: the buffer its rows are written to, piped
 * (without regard for backpressure) into the zip entry's stream (a readable-stream PassThrough).
 */
interface SheetInternals {
  readonly stream?: {
    readonly pipes?: readonly (Writable & { readonly _writableState?: { readonly length?: number } })[];
  };
}

/** Row XML of a sheet waiting for the zip compressor before the reader goes on. */
const ZIP_BACKLOG_BYTES = 1024 * 1024;

/**
 * Waits while the zip entry of `worksheet` holds more than {@link ZIP_BACKLOG_BYTES} of row XML not
 * yet compressed: exceljs writes rows into it without waiting, and the compression (zlib, off the
 * main thread) advances only as the event loop turns, so without this a fast reader would pile the
 * whole sheet up in memory ahead of the compression.
 */
async function compressed(worksheet: ExcelJS.Worksheet): Promise<void> {
  for (const pipe of (worksheet as unknown as SheetInternals).stream?.pipes ?? []) {
    const backlog = () => pipe.writableLength ?? pipe._writableState?.length ?? 0;
    while (backlog() > ZIP_BACKLOG_BYTES && !pipe.destroyed) {
      await delay(10);
    }
  }
}

/** Excel's sheet names: at most 31 characters, none of `[]:*?/\`. */
export function sheetName(plural: string): string {
  return plural.replace(/[[\]:*?/\\]/g, '_').slice(0, 31) || 'sheet';
}

/** The headers of a class's columns, in order: `id`, field labels (or names), relation names. */
export function headersOf(target: Pick<ImportTarget, 'columns'>): string[] {
  return [
    ID_COLUMN,
    ...target.columns.fields.map((field) => field.label ?? field.name),
    ...target.columns.relations.map((end) => end.name),
  ];
}

interface Link {
  readonly href?: string;
  readonly name?: string | null;
  readonly values?: readonly { name?: string | null }[];
}

function relationCell(object: DataObject, name: string, multiple: boolean): CellValue {
  const link = (object['_links'] as Record<string, Link | undefined> | undefined)?.[name];
  if (!link) return null;
  const names = multiple ? (link.values ?? []).map((value) => value.name ?? '') : [link.name ?? ''];
  return names.length > 0 ? names.join('\n') : null;
}

/** One object as the cells of its sheet's row. */
function rowOf(sheet: ExportSheet, object: DataObject): CellValue[] {
  const self = (object['_links'] as { _self?: { href?: string } } | undefined)?._self?.href ?? '';
  return [
    self.slice(self.lastIndexOf('/') + 1),
    ...sheet.columns.fields.map((field) => cellOf(field, object[field.name], sheet.listOf(field))),
    ...sheet.columns.relations.map((end) => relationCell(object, end.name, end.multiple)),
  ];
}

export interface ExportResult {
  /** Rows written over all sheets. */
  readonly rows: number;
}

/**
 * Writes the workbook of `sheets` to a stream: the returned `body` yields the `.xlsx` bytes as
 * they are produced and `done` resolves when the workbook is complete (rejects, after destroying
 * `body`, when reading the objects failed). Sheets without rows are left out, unless all are empty:
 * then the first sheet is written with its header alone, so the file always opens.
 */
export function writeWorkbook(sheets: readonly ExportSheet[]): {
  body: Readable;
  done: Promise<ExportResult>;
} {
  const body = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: body,
    useStyles: true,
    useSharedStrings: false,
  });
  const room = () =>
    body.readableLength < HIGH_WATER_BYTES
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const check = () => {
            if (body.readableLength < HIGH_WATER_BYTES || body.destroyed) {
              body.off('data', check);
              resolve();
            }
          };
          body.on('data', check);
          body.once('close', check);
        });
  const done = (async (): Promise<ExportResult> => {
    let rows = 0;
    let written = 0;
    const open = (sheet: ExportSheet) => {
      const created = workbook.addWorksheet(sheetName(sheet.cls.plural), {
        views: [{ state: 'frozen', ySplit: 1 }],
      });
      created.columns = headersOf(sheet).map((header, column) => {
        const field = sheet.columns.fields[column - 1];
        const numFmt = field && !field.multiple ? NUMBER_FORMATS[field.type] : undefined;
        return {
          header,
          key: String(column),
          width: Math.min(40, Math.max(10, header.length + 2)),
          ...(numFmt ? { style: { numFmt } } : {}),
        };
      });
      created.getRow(1).font = { bold: true };
      created.getRow(1).commit();
      written += 1;
      return created;
    };
    for (const sheet of sheets) {
      let worksheet: ExcelJS.Worksheet | null = null;
      for await (const page of sheet.pages()) {
        worksheet ??= open(sheet);
        for (const object of page) worksheet.addRow(rowOf(sheet, object)).commit();
        rows += page.length;
        await compressed(worksheet);
        await room();
        // Reading a page resolves without I/O: a turn of the event loop per page keeps the
        // process answering other requests during a long export.
        await nextTurn();
      }
      worksheet?.commit();
    }
    if (written === 0 && sheets[0]) open(sheets[0]).commit();
    await workbook.commit();
    return { rows };
  })();
  done.catch((error: unknown) => body.destroy(error instanceof Error ? error : new Error(String(error))));
  return { body, done };
}
