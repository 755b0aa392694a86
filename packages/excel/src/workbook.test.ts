import path from 'node:path';
import { Readable } from 'node:stream';
import { DEFAULT_IMPORT_LIMITS } from '@odp/core';
import type { ClassDef, FieldDef, Model } from '@odp/core';
import { loadModelRepository } from '@odp/model-loader';
import { sheetColumns } from '@odp/data';
import type { DataObject, ExportSheet } from '@odp/data';
import { cellOf, readCell } from './cells.js';
import { headersOf, writeWorkbook } from './export.js';
import { UnreadableFileError, readRows } from './rows.js';
import type { SheetRow } from './rows.js';

let model: Model;
beforeAll(async () => {
  const loaded = await loadModelRepository(path.resolve(__dirname, '../../../examples/models/crm'));
  if (!loaded.model) throw new Error('the example model was refused');
  model = loaded.model;
});

const cls = (plural: string): ClassDef => {
  const found = model.byPlural.get(plural);
  if (!found) throw new Error(plural);
  return found;
};
const field = (plural: string, name: string): FieldDef => {
  const found = cls(plural).fields.get(name);
  if (!found) throw new Error(name);
  return found;
};
const listOf = (def: FieldDef) => (def.list ? model.lists.get(def.list) : undefined);

function sheetOf(plural: string, objects: DataObject[][]): ExportSheet {
  return {
    cls: cls(plural),
    columns: sheetColumns(cls(plural)),
    listOf,
    async *pages() {
      for (const page of objects) yield page;
    },
  };
}

async function collect(rows: AsyncIterable<SheetRow>): Promise<SheetRow[]> {
  const all: SheetRow[] = [];
  for await (const row of rows) all.push(row);
  return all;
}

async function bytesOf(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('cells', () => {
  it.each([
    ['companies', 'legalName', 'Acme BV'],
    ['companies', 'employeeCount', 42],
    ['companies', 'revenue', 1250000.5],
    ['companies', 'active', false],
    ['companies', 'foundedOn', '2004-03-01'],
    ['companies', 'lastContactAt', '2026-11-23T16:40:12.345Z'],
    ['companies', 'openingTime', '08:30'],
    ['companies', 'companyType', 'bv'],
    ['companies', 'tags', ['a', 2]],
    ['companies', 'profile', { sector: 'x', nested: [1, { deep: true }] }],
    ['persons', 'phoneNumbers', ['+31 1', '+31 2']],
    ['invoices', 'vatRate', 21],
  ])('%s.%s reads back what it writes', (plural, name, value) => {
    const def = field(plural, name);
    const cell = cellOf(def, value, listOf(def));
    expect(readCell(def, cell, listOf(def))).toEqual({ ok: true, value });
  });

  it('writes labels of LIST values, dates as dates, and reads keys or labels back', () => {
    const companyType = field('companies', 'companyType');
    expect(cellOf(companyType, 'bv', listOf(companyType))).toBe('Private limited company');
    expect(readCell(companyType, 'private LIMITED company', listOf(companyType))).toEqual({
      ok: true,
      value: 'bv',
    });
    expect(cellOf(field('companies', 'foundedOn'), '2004-03-01', undefined)).toEqual(
      new Date('2004-03-01T00:00:00Z'),
    );
    const status = field('invoices', 'status');
    expect(cellOf(status, { current: 'sent', history: [] }, listOf(status))).toBe('Sent');
  });

  it('reads text cells as CSV gives them, and says what does not fit', () => {
    expect(readCell(field('companies', 'employeeCount'), ' 42 ', undefined)).toEqual({ ok: true, value: 42 });
    expect(readCell(field('companies', 'active'), 'yes', undefined)).toEqual({ ok: true, value: true });
    expect(readCell(field('companies', 'employeeCount'), 'many', undefined)).toEqual({
      ok: false,
      message: 'must be a number',
    });
    expect(readCell(field('companies', 'profile'), '{broken', undefined).ok).toBe(false);
    expect(readCell(field('companies', 'logo'), 'logo.png', undefined).ok).toBe(false);
    expect(readCell(field('companies', 'legalName'), '   ', undefined)).toEqual({ ok: true, value: null });
  });

  // OWASP's CSV injection list: a cell starting with one of these is a formula once re-saved as CSV.
  it.each(['=1+1', '+31 20 555', '-5', '@SUM(A1)', '\tcmd', '\rcmd', "'=1+1", "''-x"])(
    'guards the text %j with an apostrophe and reads back the exact value',
    (value) => {
      const legalName = field('companies', 'legalName');
      const cell = cellOf(legalName, value, undefined);
      expect(cell).toBe(`'${value}`);
      expect(readCell(legalName, cell, undefined)).toEqual({ ok: true, value });
    },
  );

  it('guards a multi-line cell by its first character, and leaves other texts alone', () => {
    const phones = field('persons', 'phoneNumbers');
    expect(cellOf(phones, ['+31 1', '+31 2'], undefined)).toBe("'+31 1\n+31 2");
    for (const value of ["it's", "'quoted'", 'a=b', '3-4'])
      expect(cellOf(field('companies', 'legalName'), value, undefined)).toBe(value);
  });
});

describe('workbooks', () => {
  const company = (id: string, legalName: string): DataObject => ({
    legalName,
    revenue: 10.5,
    foundedOn: '2001-02-03',
    lastContactAt: '2026-11-23T16:40:12.345Z',
    _links: {
      _self: { href: `/data/t/companies/${id}` },
      employees: {
        href: 'x',
        values: [
          { href: 'a', name: 'Ann' },
          { href: 'b', name: 'Bob' },
        ],
      },
    },
  });

  it('streams pages into sheets and reads the chosen sheet back', async () => {
    const { body, done } = writeWorkbook([
      sheetOf('companies', [[company('c1', 'Acme')], [company('c2', 'Globex')]]),
      sheetOf('persons', [
        [{ firstName: 'Ann', lastName: 'A', _links: { _self: { href: '/data/t/persons/p1' } } }],
      ]),
      sheetOf('invoices', []),
    ]);
    const bytes = await bytesOf(body);
    expect(await done).toEqual({ rows: 3 });
    const companies = await collect(readRows(Readable.from([bytes]), 'xlsx', DEFAULT_IMPORT_LIMITS));
    expect(companies[0]?.cells).toEqual(headersOf(sheetOf('companies', [])));
    const header = companies[0]?.cells ?? [];
    const legalName = header.indexOf('Legal name');
    expect(companies.slice(1).map((row) => row.cells[legalName])).toEqual(['Acme', 'Globex']);
    expect(companies[1]?.cells[header.indexOf('employees')]).toBe('Ann\nBob');
    expect(companies[1]?.cells[header.indexOf('foundedOn')]).toEqual(new Date('2001-02-03T00:00:00Z'));
    // A date-time keeps its milliseconds through Excel's day fractions.
    const lastContactAt = field('companies', 'lastContactAt');
    expect(
      readCell(lastContactAt, companies[1]?.cells[header.indexOf('lastContactAt')] ?? null, undefined),
    ).toEqual({
      ok: true,
      value: '2026-11-23T16:40:12.345Z',
    });
    const persons = await collect(readRows(Readable.from([bytes]), 'xlsx', DEFAULT_IMPORT_LIMITS, 'PERSONS'));
    expect(persons.map((row) => row.cells[0])).toEqual(['id', 'p1']);
    // The empty class has no sheet.
    await expect(
      collect(readRows(Readable.from([bytes]), 'xlsx', DEFAULT_IMPORT_LIMITS, 'invoices')),
    ).rejects.toThrow(UnreadableFileError);
  });

  it('an empty selection gives the first sheet with its header alone', async () => {
    const { body, done } = writeWorkbook([sheetOf('companies', [])]);
    const rows = await collect(readRows(Readable.from([await bytesOf(body)]), 'xlsx', DEFAULT_IMPORT_LIMITS));
    expect(await done).toEqual({ rows: 0 });
    expect(rows).toHaveLength(1);
  });

  it('a failing page destroys the stream and rejects', async () => {
    const failing: ExportSheet = {
      ...sheetOf('companies', []),
      async *pages() {
        yield [company('c1', 'Acme')];
        throw new Error('store gone');
      },
    };
    const { body, done } = writeWorkbook([failing]);
    await expect(Promise.all([bytesOf(body), done])).rejects.toThrow('store gone');
  });

  it('reads CSV with either delimiter, a BOM, quoted line breaks, and refuses garbage', async () => {
    const csv = '\ufeffa;b;c\r\n1;"two\nlines";\r\n\r\n4;5;6\r\n';
    const rows = await collect(readRows(Readable.from([Buffer.from(csv)]), 'csv', DEFAULT_IMPORT_LIMITS));
    expect(rows.map((row) => row.cells)).toEqual([
      ['a', 'b', 'c'],
      ['1', 'two\nlines', null],
      ['4', '5', '6'],
    ]);
    const comma = await collect(
      readRows(Readable.from([Buffer.from('x,y\n1,2')]), 'csv', DEFAULT_IMPORT_LIMITS),
    );
    expect(comma.map((row) => row.cells)).toEqual([
      ['x', 'y'],
      ['1', '2'],
    ]);
    await expect(
      collect(readRows(Readable.from([Buffer.from('a,"b\n1,2')]), 'csv', DEFAULT_IMPORT_LIMITS)),
    ).rejects.toThrow(UnreadableFileError);
    await expect(
      collect(readRows(Readable.from([Buffer.from('PK\u0003\u0004garbage')]), 'xlsx', DEFAULT_IMPORT_LIMITS)),
    ).rejects.toThrow(UnreadableFileError);
  });
});
