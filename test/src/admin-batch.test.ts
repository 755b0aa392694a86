/**
 * The admin branch's batch work and the report documents through the real server (docs/admin.md,
 * docs/reports.md): class recalculation and sync with their progress and one job of each kind at a
 * time, tenant deletion with its typed confirmation and what a deleted tenant answers afterwards,
 * report documents in HTML and PDF behind signed URLs, and the matching `odp` commands.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pdfText } from '@odp/reports/testing';
import { DataApi, DEMO } from './data-api.js';
import type { Json } from './data-api.js';
import { createAccount } from './support/accounts.js';
import { REPO_ROOT, startServer } from './support/server.js';
import type { TestServer } from './support/server.js';

let server: TestServer;
const modelDirs: string[] = [];

interface Sent {
  readonly status: number;
  readonly body: unknown;
  readonly location: string | null;
  readonly contentType: string | null;
}

async function send(method: string, route: string, key: string | null): Promise<Sent> {
  const res = await fetch(`${server.baseUrl}${route}`, {
    method,
    headers: key === null ? {} : { 'X-API-Key': key },
  });
  const contentType = res.headers.get('content-type');
  const body = contentType?.includes('json') ? ((await res.json()) as unknown) : await res.text();
  return { status: res.status, body, location: res.headers.get('location'), contentType };
}

const json = (sent: Sent): Json => sent.body as Json;

/** A tenant of its own on a private copy of the CRM model, with a system key and the default data. */
async function crmTenant(name: string): Promise<{ api: DataApi; modelDir: string }> {
  const modelDir = mkdtempSync(path.join(os.tmpdir(), 'odp-admin-batch-model-'));
  modelDirs.push(modelDir);
  cpSync(path.join(REPO_ROOT, 'examples/models/crm'), modelDir, { recursive: true });
  const tenant = String((await server.odp(['tenant', 'create', '--name', name, '--model', modelDir]))['id']);
  const key = String((await server.odp(['key', 'create', '--tenant', tenant]))['key']);
  const api = new DataApi(server, tenant, key);
  const loaded = await api.call('POST', '/loadDefaultData');
  if (loaded.status !== 200) throw new Error(`loadDefaultData: ${loaded.status}`);
  return { api, modelDir };
}

function editModel(modelDir: string, file: string, edit: (value: Json) => Json): void {
  const full = path.join(modelDir, file);
  writeFileSync(full, JSON.stringify(edit(JSON.parse(readFileSync(full, 'utf8')) as Json), null, 2));
}

async function reloadModel(api: DataApi): Promise<void> {
  const reload = await send('POST', `/admin/${api.tenant}/reloadModel`, api.systemKey);
  if (reload.status !== 200) throw new Error(`reloadModel: ${reload.status} ${JSON.stringify(reload.body)}`);
}

/** Polls the tenant's job of `kind` until it no longer runs. */
async function settled(api: DataApi, kind: 'recalculate' | 'sync'): Promise<Json> {
  for (let attempt = 0; attempt < 2400; attempt += 1) {
    const status = json(await send('GET', `/admin/${api.tenant}/${kind}`, api.systemKey));
    if (status['state'] !== 'running') return status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${kind} did not finish`);
}

beforeAll(async () => {
  server = await startServer();
}, 120_000);
afterAll(async () => {
  await server?.stop();
  for (const dir of modelDirs) rmSync(dir, { recursive: true, force: true });
});

/** Uploads `csv` and imports it as companies into `api`'s tenant; resolves the import's address once it completed. */
async function finishedImport(api: DataApi, csv: string): Promise<string> {
  const url = (await (await api.call('GET', '/upload')).json()) as string;
  const form = new FormData();
  form.append('file', new Blob([csv]), 'companies.csv');
  const [file] = (await (await fetch(url, { method: 'POST', body: form })).json()) as unknown[];
  const started = await api.call('POST', '/import', { body: { file, typeName: 'companies' } });
  expect(started.status).toBe(201);
  const location = started.headers.get('location') ?? '';
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const status = json(await send('GET', location, api.systemKey));
    if (status['state'] !== 'running') {
      expect(status['state']).toBe('completed');
      return location;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the import did not finish');
}

describe('POST /admin/{tenant}/{typeName}/recalculate', () => {
  let api: DataApi;
  let modelDir: string;

  beforeAll(async () => {
    ({ api, modelDir } = await crmTenant('Recalc'));
  }, 60_000);

  it('recalculates every object of the class and the objects whose formulas read them, with progress', async () => {
    const lineBefore = await api.get(`/invoiceLines/${DEMO.line1}`);
    expect(lineBefore['amount']).toBe(800);
    expect((await api.get(`/invoices/${DEMO.invoice1}`))['linesTotal']).toBe(1000);
    // The model now computes line amounts differently; stored values stay until recalculated.
    editModel(modelDir, 'classes/crm/invoiceLine.json', (cls) => ({
      ...cls,
      fields: (cls['fields'] as Json[]).map((field) =>
        field['name'] === 'amount' ? { ...field, formula: 'round(quantity * unitPrice * 2, 2)' } : field,
      ),
    }));
    await reloadModel(api);
    expect((await api.get(`/invoiceLines/${DEMO.line1}`))['amount']).toBe(800);

    const started = await send('POST', `/admin/${api.tenant}/invoiceLines/recalculate`, api.systemKey);
    expect(started.status).toBe(202);
    expect(started.location).toBe(`/admin/${api.tenant}/recalculate`);
    expect(started.body).toMatchObject({ state: 'running', kind: 'recalculate', typeName: 'invoiceLines' });
    expect(await settled(api, 'recalculate')).toMatchObject({
      state: 'done',
      kind: 'recalculate',
      typeName: 'invoiceLines',
      processed: 3,
      total: 3,
      error: null,
    });

    const lineAfter = await api.get(`/invoiceLines/${DEMO.line1}`);
    expect(lineAfter['amount']).toBe(1600);
    expect(lineAfter['_modificationDate']).not.toBe(lineBefore['_modificationDate']);
    expect((await api.get(`/invoiceLines/${DEMO.line3}`))['amount']).toBe(8400);
    // Dependants in another class: the invoices' sum over their lines.
    expect((await api.get(`/invoices/${DEMO.invoice1}`))['linesTotal']).toBe(2000);
    expect((await api.get(`/invoices/${DEMO.invoice3}`))['linesTotal']).toBe(8400);
  }, 60_000);

  it('answers 404 for an unknown class, 403 for a member, and has no GET on the class path', async () => {
    const unknown = await send('POST', `/admin/${api.tenant}/nothings/recalculate`, api.systemKey);
    expect(unknown.status).toBe(404);
    expect(unknown.contentType).toContain('application/problem+json');
    expect((await send('POST', `/admin/${api.tenant}/items/recalculate`, api.systemKey)).status).toBe(404);
    const member = await createAccount(api, { name: 'recalc-member', role: 'member' });
    expect((await send('POST', `/admin/${api.tenant}/invoiceLines/recalculate`, member.key)).status).toBe(
      403,
    );
    expect((await send('GET', `/admin/${api.tenant}/recalculate`, member.key)).status).toBe(403);
    expect((await send('GET', `/admin/${api.tenant}/invoiceLines/recalculate`, api.systemKey)).status).toBe(
      404,
    );
    expect((await send('POST', `/admin/${api.tenant}/invoiceLines/recalculate`, null)).status).toBe(401);
  });

  it('runs one job of each kind per tenant at a time: 409 for a second one and for deleting the tenant', async () => {
    // Enough objects that the job spans several batches (and event-loop turns) on any store.
    for (let chunk = 0; chunk < 15; chunk += 1) {
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          api.create('persons', {
            firstName: `P${chunk}-${i}`,
            lastName: 'Batch',
            email: `p${chunk}-${i}@batch.example`,
          }),
        ),
      );
    }
    const [first, second] = await Promise.all([
      send('POST', `/admin/${api.tenant}/persons/recalculate`, api.systemKey),
      send('POST', `/admin/${api.tenant}/persons/recalculate`, api.systemKey),
    ]);
    expect([first.status, second.status].sort()).toEqual([202, 409]);
    const refused = first.status === 409 ? first : second;
    expect(refused.contentType).toContain('application/problem+json');
    // Another kind may run meanwhile; deleting the tenant may not.
    expect((await send('POST', `/admin/${api.tenant}/persons/sync`, api.systemKey)).status).toBe(202);
    // While both run, an unknown class is still a 404 (the class is resolved before the running job).
    const [deletion, unknownSync, unknownRecalculation] = await Promise.all([
      send('DELETE', `/admin/${api.tenant}?name=Recalc`, api.systemKey),
      send('POST', `/admin/${api.tenant}/nothings/sync`, api.systemKey),
      send('POST', `/admin/${api.tenant}/nothings/recalculate`, api.systemKey),
    ]);
    expect(deletion.status).toBe(409);
    expect([unknownSync.status, unknownRecalculation.status]).toEqual([404, 404]);
    expect((await settled(api, 'recalculate'))['state']).toBe('done');
    expect(await settled(api, 'sync')).toMatchObject({ state: 'done', processed: 153, total: 153 });
    // The requests in between were served while the jobs ran, and the data is still there.
    expect((await api.call('GET', `/persons/${DEMO.ann}`)).status).toBe(200);
  }, 300_000);
});

describe('POST /admin/{tenant}/{typeName}/sync', () => {
  let api: DataApi;
  let modelDir: string;

  beforeAll(async () => {
    ({ api, modelDir } = await crmTenant('Sync'));
  }, 60_000);

  it("re-derives the class's ACL rows after a model change without changing its data", async () => {
    editModel(modelDir, 'accessControl/companyTeam.json', (definition) => ({
      ...definition,
      nodes: (definition['nodes'] as Json[]).filter((node) => node['id'] !== 'n-lines'),
    }));
    await reloadModel(api);
    const access = () => send('GET', `/audit/${api.tenant}/invoiceLines/${DEMO.line1}/access`, api.systemKey);
    expect(json(await access())['unresolved']).toEqual([
      { acId: expect.stringMatching(/^[0-9a-f-]{36}$/), nodeId: 'n-lines', definition: 'companyTeam' },
    ]);
    const before = await api.get(`/invoiceLines/${DEMO.line1}`);

    const started = await send('POST', `/admin/${api.tenant}/invoiceLines/sync`, api.systemKey);
    expect(started.status).toBe(202);
    expect(started.location).toBe(`/admin/${api.tenant}/sync`);
    expect(await settled(api, 'sync')).toMatchObject({ state: 'done', kind: 'sync', processed: 3, total: 3 });

    expect(json(await access())['unresolved']).toEqual([]);
    const after = await api.get(`/invoiceLines/${DEMO.line1}`);
    expect(after).toEqual(before);
    // Only the class synced: an invoice's rows of the removed node were never there; its other rows stay.
    expect(
      json(await send('GET', `/audit/${api.tenant}/invoices/${DEMO.invoice1}/access`, api.systemKey))[
        'unresolved'
      ],
    ).toEqual([]);
  }, 60_000);

  it('answers 404 for an unknown class and for a system class', async () => {
    expect((await send('POST', `/admin/${api.tenant}/nothings/sync`, api.systemKey)).status).toBe(404);
    expect((await send('POST', `/admin/${api.tenant}/logEntries/sync`, api.systemKey)).status).toBe(404);
  });
});

describe('GET /data/{tenant}/{typeName}/{id}/reports/{reportName}', () => {
  let api: DataApi;

  beforeAll(async () => {
    ({ api } = await crmTenant('Reports'));
  }, 60_000);

  const report = (route: string, key: string | null = api.systemKey) =>
    send('GET', `/data/${api.tenant}/invoices/${DEMO.invoice1}/reports/${route}`, key);

  async function download(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
    const res = await fetch(url);
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      bytes: Buffer.from(await res.arrayBuffer()),
    };
  }

  it('renders the HTML report in the requested language with the object and its relations, behind a signed URL', async () => {
    const answered = await report('invoice?language=nl');
    expect(answered.status).toBe(200);
    const url = String(answered.body);
    expect(url.startsWith(`${server.baseUrl}/binaries/`)).toBe(true);
    expect(answered.location).toBe(url);
    const file = await download(url);
    expect(file.status).toBe(200);
    expect(file.type).toContain('text/html');
    const html = file.bytes.toString('utf8');
    expect(html).toContain('Factuur 2026-0001');
    expect(html).toContain('Klant: Acme BV');
    // The signed URL is the only credential: a credential header there is refused.
    expect((await fetch(url, { headers: { 'X-API-Key': api.systemKey } })).status).toBe(400);
  });

  it('falls back to the primary language, then to the first language of the report', async () => {
    const html = async (query: string) =>
      (await download(String((await report(`invoice${query}`)).body))).bytes.toString('utf8');
    expect(await html('?language=nl-BE')).toContain('Factuur 2026-0001');
    expect(await html('?language=fr')).toContain('Invoice 2026-0001');
    expect(await html('')).toContain('Client: Acme BV');
  });

  it('renders the PDF report; its extracted text is the rendered invoice', async () => {
    const answered = await report('invoicePdf?language=en');
    expect(answered.status).toBe(200);
    const file = await download(String(answered.body));
    expect(file.type).toBe('application/pdf');
    const { pages, text } = await pdfText(file.bytes);
    expect(pages).toBe(1);
    expect(text).toContain('Invoice 2026-0001');
    expect(text).toContain('Client: Acme BV');
    expect(text).toContain('1210');
  });

  it('answers 404 for an unknown report, class or object, 400 for a malformed language, 401 without a key', async () => {
    expect((await report('nothing')).status).toBe(404);
    expect(
      (await send('GET', `/data/${api.tenant}/nothings/${DEMO.invoice1}/reports/invoice`, api.systemKey))
        .status,
    ).toBe(404);
    expect(
      (await send('GET', `/data/${api.tenant}/companies/${DEMO.acme}/reports/invoice`, api.systemKey)).status,
    ).toBe(404);
    expect(
      (
        await send(
          'GET',
          `/data/${api.tenant}/invoices/00000000-0000-4000-8000-000000000000/reports/invoice`,
          api.systemKey,
        )
      ).status,
    ).toBe(404);
    const bad = await report('invoice?language=..%2Fetc');
    expect(bad.status).toBe(400);
    expect(bad.contentType).toContain('application/problem+json');
    expect((await report('invoice', null)).status).toBe(401);
  });
});

describe('DELETE /admin/{tenant}?name=<name>&deleteTenant=<boolean>', () => {
  let api: DataApi;

  beforeAll(async () => {
    ({ api } = await crmTenant('Doomed Co'));
  }, 60_000);

  const remove = (query: string, key: string | null = api.systemKey) =>
    send('DELETE', `/admin/${api.tenant}${query}`, key);

  it('refuses a wrong or missing confirmation name, a bad deleteTenant and a non-admin, deleting nothing', async () => {
    for (const query of [
      '',
      '?name=',
      '?name=doomed%20co',
      '?name=Doomed',
      '?name=Doomed%20Co&deleteTenant=yes',
    ]) {
      const refused = await remove(query);
      expect(refused.status).toBe(400);
      expect(refused.contentType).toContain('application/problem+json');
    }
    const member = await createAccount(api, { name: 'doomed-member', role: 'member' });
    expect((await remove('?name=Doomed%20Co', member.key)).status).toBe(403);
    expect((await remove('?name=Doomed%20Co', null)).status).toBe(401);
    expect((await api.rows('/invoices')).length).toBe(3);
  });

  it('deleteTenant=false deletes the data, files and jobs; the tenant, its model and keys stay', async () => {
    const reportUrl = String(
      (await send('GET', `/data/${api.tenant}/invoices/${DEMO.invoice1}/reports/invoice`, api.systemKey))
        .body,
    );
    expect((await fetch(reportUrl)).status).toBe(200);
    // A write whose script queues a background job (the invoice is `sent`).
    expect((await api.call('PATCH', `/invoices/${DEMO.invoice1}`, { body: { amount: 1001 } })).status).toBe(
      204,
    );
    expect(
      (json(await send('GET', `/admin/${api.tenant}/jobs`, api.systemKey))['jobs'] as Json[]).length,
    ).toBeGreaterThan(0);
    const importRecord = await finishedImport(api, 'legalName,active\nImported Co,true\n');

    const deleted = await remove('?name=Doomed%20Co&deleteTenant=false');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({
      id: api.tenant,
      name: 'Doomed Co',
      dataDeleted: true,
      tenantDeleted: false,
    });

    expect(await api.rows('/invoices')).toEqual([]);
    expect((await api.call('GET', `/invoices/${DEMO.invoice1}`)).status).toBe(404);
    expect((await fetch(reportUrl)).status).toBe(404);
    expect(json(await send('GET', `/admin/${api.tenant}/jobs`, api.systemKey))['jobs']).toEqual([]);
    // The import's record went with the data.
    expect((await send('GET', importRecord, api.systemKey)).status).toBe(404);
    expect(json(await send('GET', `/admin/${api.tenant}/modelStatus`, api.systemKey))['state']).toBe(
      'LOADED',
    );
    const reloaded = await api.call('POST', '/loadDefaultData');
    expect(await reloaded.json()).toMatchObject({ created: expect.any(Number), skipped: 0 });
    expect((await api.rows('/invoices')).length).toBe(3);
  }, 60_000);

  it('deleteTenant=true deletes the tenant with its keys and profiles: its routes answer 401 afterwards', async () => {
    const admin = await createAccount(api, { name: 'doomed-admin', role: 'admin' });
    const deleted = await remove('?name=Doomed%20Co&deleteTenant=true', admin.key);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: api.tenant, dataDeleted: true, tenantDeleted: true });

    for (const key of [api.systemKey, admin.key]) {
      expect((await api.call('GET', '/invoices', { key })).status).toBe(401);
      expect((await remove('?name=Doomed%20Co&deleteTenant=true', key)).status).toBe(401);
      expect((await send('GET', `/admin/${api.tenant}/modelStatus`, key)).status).toBe(401);
    }
    // Another tenant's key names the deleted tenant in vain, as any foreign tenant.
    expect((await api.call('GET', '/invoices', { key: server.systemKey })).status).toBe(401);
    const tenants = (await server.odp(['tenant', 'list']))['tenants'] as Json[];
    expect(tenants.map((tenant) => tenant['id'])).not.toContain(api.tenant);
    const keys = await server.odpRaw(['key', 'list', '--tenant', api.tenant]);
    expect(keys.code).toBe(1);
    expect(keys.stderr).toContain(`No tenant ${api.tenant}`);
  }, 60_000);
});

describe('odp recalculate, sync and tenant delete', () => {
  let api: DataApi;

  beforeAll(async () => {
    ({ api } = await crmTenant('Odp Batch'));
  }, 60_000);

  it('recalculate and sync run the class job with a progress bar on stderr and print the status', async () => {
    const done = await server.odp(['recalculate', '--tenant', api.tenant, '--class', 'invoiceLines']);
    expect(done).toMatchObject({
      tenant: api.tenant,
      state: 'done',
      kind: 'recalculate',
      processed: 3,
      total: 3,
    });
    const text = await server.odpRaw(['sync', '--tenant', api.tenant, '--class', 'invoices']);
    expect(text.code).toBe(0);
    expect(text.stderr).toContain(`sync invoices [${'#'.repeat(30)}] 3/3 100%`);
    expect(text.stdout).toContain('3 object(s), done');
  }, 60_000);

  it('refuses an unknown class (1), a missing option (2) and an unknown tenant (1)', async () => {
    const unknown = await server.odpRaw(['sync', '--tenant', api.tenant, '--class', 'nothings', '--json']);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toContain('Unknown class');
    expect((await server.odpRaw(['recalculate', '--tenant', api.tenant])).code).toBe(2);
    const noTenant = await server.odpRaw(['recalculate', '--tenant', 'nope', '--class', 'persons']);
    expect(noTenant).toMatchObject({ code: 1 });
    expect(noTenant.stderr).toContain('No tenant nope');
  });

  it('tenant delete removes the tenant from every backend: its report files answer 404', async () => {
    const reportUrl = String(
      (await send('GET', `/data/${api.tenant}/invoices/${DEMO.invoice1}/reports/invoice`, api.systemKey))
        .body,
    );
    expect((await fetch(reportUrl)).status).toBe(200);
    expect(await server.odp(['tenant', 'delete', '--id', api.tenant])).toEqual({
      id: api.tenant,
      deleted: true,
    });
    expect((await fetch(reportUrl)).status).toBe(404);
    expect((await api.call('GET', '/invoices')).status).toBe(401);
  }, 60_000);
});
