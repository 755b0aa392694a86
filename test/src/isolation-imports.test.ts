/**
 * Tenant isolation of spreadsheet imports (docs/excel.md, "Limits"): an attacker with an ordinary
 * member key imports a shared-strings bomb (4 MB of .xlsx, 4 GB inflated), a 90 MB CSV file of one
 * line, and several bombs at once. The api survives each (a later request answers), the attacker's
 * imports end `failed` naming the limit they met, a tenant's import past `ODP_TENANT_IMPORTS` gets
 * 429 problem+json with `Retry-After`, and a second tenant's get-one requests, sent throughout, all
 * answer 200.
 */
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';
import { createAccounts } from './support/accounts.js';
import { createCrmTenant } from './support/tenants.js';
import { sharedStringsBomb } from './support/xlsx-bomb.js';

interface ImportStatus {
  readonly state: string;
  readonly error?: { message: string };
}

let api: DataApi;
let attackerKey: string;
let tenantB: string;
let keyB: string;

beforeAll(async () => {
  api = await startDataServer();
  attackerKey = (await createAccounts(api, [{ name: 'mallory', role: 'member', objectId: DEMO.ann }])).get(
    'mallory',
  )!.key;
  ({ id: tenantB, key: keyB } = await createCrmTenant(api.server, 'Bystander', { defaultData: true }));
}, 120_000);
afterAll(async () => {
  await api?.server.stop();
});

/** Tenant B's get one, sent one after another (with a short pause) until `stop` is called. */
function bystander(): { stop: () => Promise<{ statuses: number[]; errors: string[] }> } {
  const statuses: number[] = [];
  const errors: string[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const res = await fetch(`${api.server.baseUrl}/data/${tenantB}/companies/${DEMO.globex}`, {
          headers: { 'X-API-Key': keyB },
        });
        await res.arrayBuffer();
        statuses.push(res.status);
      } catch (error) {
        errors.push(String(error));
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { statuses, errors };
    },
  };
}

async function upload(body: Blob, fileName: string): Promise<Json> {
  const url = (await (await api.call('GET', '/upload', { key: attackerKey })).json()) as string;
  const form = new FormData();
  form.append('file', body, fileName);
  const res = await fetch(url, { method: 'POST', body: form });
  expect(res.status).toBe(200);
  return ((await res.json()) as Json[])[0]!;
}

function startImport(file: Json): Promise<Response> {
  return api.call('POST', '/import', { body: { file, typeName: 'companies' }, key: attackerKey });
}

/** Starts an import of `file` (201) and waits for its end. */
async function importedToEnd(file: Json): Promise<ImportStatus> {
  const res = await startImport(file);
  expect(res.status).toBe(201);
  return finished(res.headers.get('location') ?? '');
}

async function finished(location: string): Promise<ImportStatus> {
  for (let attempt = 0; attempt < 1200; attempt++) {
    const res = await fetch(`${api.server.baseUrl}${location}`, { headers: { 'X-API-Key': attackerKey } });
    expect(res.status).toBe(200);
    const status = (await res.json()) as ImportStatus;
    if (status.state !== 'running') return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the import did not finish');
}

/** Runs `attack` while tenant B reads; B's reads all answered 200 and the api still answers. */
async function whileBystanderReads<T>(attack: () => Promise<T>): Promise<T> {
  const reads = bystander();
  const result = await attack();
  const { statuses, errors } = await reads.stop();
  expect(errors).toEqual([]);
  expect(statuses.length).toBeGreaterThan(0);
  expect(statuses.filter((status) => status !== 200)).toEqual([]);
  expect((await api.call('GET', `/companies/${DEMO.acme}`)).status).toBe(200);
  return result;
}

const bombBlob = () => new Blob([sharedStringsBomb()]);

describe('an import cannot crash, stall or starve the api', () => {
  it('a shared-strings bomb (4 MB deflated, 4 GB inflated) ends failed at the shared-string limit', async () => {
    const file = await upload(bombBlob(), 'bomb.xlsx');
    const status = await whileBystanderReads(() => importedToEnd(file));
    expect(status.state).toBe('failed');
    expect(status.error?.message).toBe(
      "The file exceeds an import limit: the workbook's shared strings hold more than 67108864 bytes (ODP_IMPORT_MAX_SHARED_STRING_BYTES).",
    );
  }, 120_000);

  it('a CSV file of one 90 MB line ends failed at the row limit', async () => {
    const mib = Buffer.alloc(1024 * 1024, 'x');
    const file = await upload(new Blob(Array<Buffer>(90).fill(mib), { type: 'text/csv' }), 'line.csv');
    const status = await whileBystanderReads(() => importedToEnd(file));
    expect(status.state).toBe('failed');
    expect(status.error?.message).toBe(
      'The file exceeds an import limit: a line of the file is longer than 4194304 bytes (ODP_IMPORT_MAX_ROW_BYTES).',
    );
  }, 120_000);

  it('concurrent bombs: past ODP_TENANT_IMPORTS (2) a 429 with Retry-After, the others end failed', async () => {
    const files: Json[] = [];
    for (let index = 0; index < 3; index += 1) files.push(await upload(bombBlob(), `bomb-${index}.xlsx`));
    const outcomes = await whileBystanderReads(async () => {
      const responses = await Promise.all(files.map((file) => startImport(file)));
      const refused = responses.filter((res) => res.status === 429);
      const accepted = responses.filter((res) => res.status === 201);
      expect(accepted).toHaveLength(2);
      expect(refused).toHaveLength(1);
      expect(refused[0]!.headers.get('retry-after')).toBe('5');
      expect(refused[0]!.headers.get('content-type')).toContain('application/problem+json');
      expect(await refused[0]!.json()).toMatchObject({
        type: 'urn:odp:problem:rate-limited',
        status: 429,
        retryAfter: 5,
      });
      return Promise.all(accepted.map((res) => finished(res.headers.get('location') ?? '')));
    });
    for (const status of outcomes) {
      expect(status.state).toBe('failed');
      expect(status.error?.message).toContain('ODP_IMPORT_MAX_SHARED_STRING_BYTES');
    }
    // The tenant's slots are free again once its imports ended.
    expect((await importedToEnd(files[2]!)).state).toBe('failed');
  }, 180_000);

  it('no failed import is logged as a crash of the process', () => {
    expect(api.server.output()).not.toContain('heap out of memory');
    expect(api.server.output()).not.toContain('"status":500');
  });
});
