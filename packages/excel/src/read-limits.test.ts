import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { DEFAULT_IMPORT_LIMITS } from '@odp/core';
import type { ImportLimits } from '@odp/core';
import { readRows } from './rows.js';
import type { SheetFormat, SheetRow } from './rows.js';

async function read(bytes: Buffer | string, format: SheetFormat, limits: Partial<ImportLimits>) {
  const rows: SheetRow[] = [];
  const source = Readable.from([Buffer.from(bytes)]);
  for await (const row of readRows(source, format, { ...DEFAULT_IMPORT_LIMITS, ...limits })) rows.push(row);
  return rows;
}

/** A workbook with shared strings (exceljs's non-streaming writer keeps text in the shared table). */
async function workbook(rows: string[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('data');
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

describe('the import limits while a CSV file is read', () => {
  it('refuses a line longer than the row limit, naming the limit and its value', async () => {
    await expect(read(`a,b\n${'x'.repeat(5000)}\n`, 'csv', { maxRowBytes: 4096 })).rejects.toThrow(
      'a line of the file is longer than 4096 bytes (ODP_IMPORT_MAX_ROW_BYTES)',
    );
    // A header line without an end (the whole file one line) is refused as well.
    await expect(read('a'.repeat(70_000), 'csv', { maxRowBytes: 4096 })).rejects.toThrow(
      'ODP_IMPORT_MAX_ROW_BYTES',
    );
  });

  it('refuses a quoted record over the row limit although each of its lines is short', async () => {
    const record = `"${Array.from({ length: 100 }, () => 'y'.repeat(60)).join('\n')}"`;
    await expect(read(`a\n${record}\n`, 'csv', { maxRowBytes: 4096 })).rejects.toThrow(
      'a record of the file is longer than 4096 bytes (ODP_IMPORT_MAX_ROW_BYTES)',
    );
  });

  it('refuses a cell over the cell limit and rows past the row count', async () => {
    await expect(read(`a,b\n1,${'z'.repeat(300)}\n`, 'csv', { maxCellBytes: 256 })).rejects.toThrow(
      'row 2 has a cell of more than 256 bytes (ODP_IMPORT_MAX_CELL_BYTES)',
    );
    expect(await read('a\n1\n2\n', 'csv', { maxRows: 2 })).toHaveLength(3);
    await expect(read('a\n1\n2\n3\n', 'csv', { maxRows: 2 })).rejects.toThrow(
      'the file has more than 2 data rows (ODP_IMPORT_MAX_ROWS)',
    );
  });
});

describe('the import limits while a workbook is read', () => {
  const rows = [
    ['name', 'city'],
    ['Acme', 'Berlin'],
    ['Globex', 'Paris'],
  ];

  it('reads a workbook within the limits', async () => {
    const read3 = await read(await workbook(rows), 'xlsx', {});
    expect(read3.map((row) => row.cells)).toEqual(rows);
  });

  it('counts the shared strings and their bytes', async () => {
    const bytes = await workbook(rows);
    await expect(read(bytes, 'xlsx', { maxSharedStrings: 5 })).rejects.toThrow(
      'the workbook has more than 5 shared strings (ODP_IMPORT_MAX_SHARED_STRINGS)',
    );
    await expect(read(bytes, 'xlsx', { maxSharedStringBytes: 20 })).rejects.toThrow(
      "the workbook's shared strings hold more than 20 bytes (ODP_IMPORT_MAX_SHARED_STRING_BYTES)",
    );
  });

  it('counts the inflated bytes of each part and of all parts', async () => {
    const bytes = await workbook(rows);
    await expect(read(bytes, 'xlsx', { maxPartBytes: 300 })).rejects.toThrow(
      /the workbook's part \S+ inflates to more than 300 bytes \(ODP_IMPORT_MAX_PART_BYTES\)/,
    );
    await expect(read(bytes, 'xlsx', { maxInflatedBytes: 2000 })).rejects.toThrow(
      'the workbook inflates to more than 2000 bytes (ODP_IMPORT_MAX_INFLATED_BYTES)',
    );
  });

  it('refuses a text of the XML longer than a cell may be while it streams', async () => {
    const bytes = await workbook([['name'], ['w'.repeat(2000)]]);
    await expect(read(bytes, 'xlsx', { maxCellBytes: 100 })).rejects.toThrow('ODP_IMPORT_MAX_CELL_BYTES');
  });
});
