/**
 * The Excel export (docs/excel.md): the sheets of a list's selection written as one `.xlsx`
 * workbook through exceljs's streaming WorkbookWriter, a page of rows at a time, so memory stays
 * bounded whatever the number of rows. Each sheet: a header row (`id`, the field labels, the
 * relation names), then one row per object.
 */
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Writable } from 'node:stream';
import { setTimeout as delay, setImmediate as nextTurn } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { ExportSheet, ImportTarget, DataObject } from '@odp/data';
import { NUMBER_FORMATS, cellOf, guardFormula } from './cells.js';
import type { CellValue } from './cells.js';

/** The header of the id column: the object's id, what an update import matches rows on. */
export const ID_COLUMN = 'id';

/** Buffered workbook bytes above which the writer waits for the consumer (the blob store). */
const HIGH_WATER_BYTES = 1024 * 1024;

/**
 * What exceljs does not type of a streaming worksheet: the buffer its rows are written to, piped
 * (without regard for backpressure) into the zip entry's stream (a readable-stream PassThrough).
 */
interface SheetInternals {
  readonly stream?: {
    readonly pipes?: readonly (Writable & { readonly _writableState?: { readonly length?: number } })[];
  };
}

/**
 * Row XML of a sheet waiting for the zip compressor before the reader goes on. Small on purpose:
 * XML that waits across two young-generation collections is promoted, and its buffers are then
 * freed only by a full collection, which a long export rarely triggers, so a large backlog made
 * the api's memory grow with the rows written instead of staying level.
 */
const ZIP_BACKLOG_BYTES = 256 * 1024;

/** Characters of cells written between two turns of the event loop within one page. */
const TURN_TEXT = 1024 * 1024;

/** The longest wait for a compressor's `drain` before the backlog is measured again. */
const DRAIN_POLL_MS = 20;

/**
 * Waits while the zip entry of `worksheet` holds more than {@link ZIP_BACKLOG_BYTES} of row XML not
 * yet compressed: exceljs writes rows into it without waiting, and the compression (zlib, off the
 * main thread) advances only as the event loop turns, so without this a fast reader would pile the
 * whole sheet up in memory ahead of the compression. Wakes on the entry's `drain` (or after
 * {@link DRAIN_POLL_MS}, as exceljs ignores what its writes return).
 */
async function compressed(worksheet: ExcelJS.Worksheet): Promise<void> {
  for (const pipe of (worksheet as unknown as SheetInternals).stream?.pipes ?? []) {
    const backlog = () => pipe.writableLength ?? pipe._writableState?.length ?? 0;
    while (backlog() > ZIP_BACKLOG_BYTES && !pipe.destroyed) {
      const controller = new AbortController();
      await Promise.race([
        once(pipe, 'drain', { signal: controller.signal }).catch(() => undefined),
        delay(DRAIN_POLL_MS, undefined, { signal: controller.signal }).catch(() => undefined),
      ]);
      controller.abort();
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
  return names.length > 0 ? guardFormula(names.join('\n')) : null;
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

/**
 * The style objects of a sheet's data cells, one per column and kind of value, shared by every
 * cell of that kind in the column. exceljs gives each new cell its own copy of the column's style
 * and, when a row is written, turns each cell's style into a style id by rendering it to XML and
 * looking that up, unless it has seen the very object before (it remembers objects, not values):
 * per cell, that was a third of an export's time and most of its garbage (which the api's heap
 * then grew by). One object per kind of value (exceljs's cell type) keeps exceljs's own choice of
 * id, which for a cell without a number format depends on the kind (a number is General).
 */
class SharedStyles {
  private readonly byColumn = new Map<number, Map<number, Partial<ExcelJS.Style>>>();
  private readonly rowStyle: Partial<ExcelJS.Style> = {};

  constructor(private readonly formats: readonly (string | undefined)[]) {}

  /** Gives `row` and its cells the shared style objects (before the row is committed). */
  apply(row: ExcelJS.Row): void {
    // A row's own style object (untyped in exceljs's declarations; its font, fill... setters write it).
    (row as unknown as { style: Partial<ExcelJS.Style> }).style = this.rowStyle;
    row.eachCell((cell, column) => {
      let kinds = this.byColumn.get(column);
      if (kinds === undefined) {
        kinds = new Map();
        this.byColumn.set(column, kinds);
      }
      let style = kinds.get(cell.type);
      if (style === undefined) {
        const numFmt = this.formats[column - 1];
        style = numFmt === undefined ? {} : { numFmt };
        kinds.set(cell.type, style);
      }
      cell.style = style;
    });
  }
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
      const headers = headersOf(sheet);
      const formats = headers.map((_header, column) => {
        const field = sheet.columns.fields[column - 1];
        return field && !field.multiple ? NUMBER_FORMATS[field.type] : undefined;
      });
      created.columns = headers.map((header, column) => {
        const numFmt = formats[column];
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
      return { worksheet: created, styles: new SharedStyles(formats) };
    };
    for (const sheet of sheets) {
      let opened: ReturnType<typeof open> | null = null;
      for await (const page of sheet.pages()) {
        opened ??= open(sheet);
        const { worksheet, styles } = opened;
        // Reading a page resolves without I/O: a turn of the event loop per page, and within a
        // page after every TURN_TEXT characters of cells (a page of large values), keeps the
        // process answering other requests during a long export.
        const breathe = async () => {
          await compressed(worksheet);
          await room();
          await nextTurn();
        };
        let text = 0;
        for (const object of page) {
          const cells = rowOf(sheet, object);
          const row = worksheet.addRow(cells);
          styles.apply(row);
          row.commit();
          for (const cell of cells) text += typeof cell === 'string' ? cell.length : 8;
          if (text >= TURN_TEXT) {
            text = 0;
            await breathe();
          }
        }
        rows += page.length;
        await breathe();
      }
      opened?.worksheet.commit();
    }
    if (written === 0 && sheets[0]) open(sheets[0]).worksheet.commit();
    await workbook.commit();
    return { rows };
  })();
  done.catch((error: unknown) => body.destroy(error instanceof Error ? error : new Error(String(error))));
  return { body, done };
}
