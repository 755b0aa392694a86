/**
 * The DatastoreReplicator through real processes (the api alone and an `apps/worker` process, the
 * scale-out layout): the rules of the interface spec that are about the pipeline from a write to
 * the warehouse. 1: CREATE, UPDATE and DELETE reach the table, a delete removes the row; 2: the
 * `id` column is always there, a tenant column only when the script adds one; 7: without
 * connection parameters nothing is written and no job fails; 8: `_credentials` only from a
 * secret value. The flush interval is one second here; the interval itself, and the rules about
 * the flush (3-6), are tested with an injected clock in packages/platform/src/replicator.test.ts.
 */
import { existsSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addCompanyReplicator } from '@odp/gateways/testing';
import { readWarehouseTable } from '@odp/warehouse-duckdb/testing';
import type { WarehouseTable } from '@odp/warehouse-duckdb/testing';
import { DEMO, DataApi } from './data-api.js';
import type { Json } from './data-api.js';
import { REPO_ROOT, startServer } from './support/server.js';
import type { TestServer } from './support/server.js';
import { startWorkerProcess } from './support/workers.js';
import type { WorkerProcess } from './support/workers.js';

jest.setTimeout(60_000);

const TARGET = { projectId: 'replica-test', dataset: 'crm', table: 'companies' };

interface JobView {
  id: string;
  kind: string;
  status: string;
  lastError: string | null;
  gateway: string | null;
}

let modelDir: string;
let server: TestServer;
let worker: WorkerProcess;
let api: DataApi;

beforeAll(async () => {
  modelDir = mkdtempSync(path.join(os.tmpdir(), 'odp-replicator-model-'));
  cpSync(path.join(REPO_ROOT, 'examples/models/crm'), modelDir, { recursive: true });
  addCompanyReplicator(modelDir, TARGET, [
    { name: '_flushInterval', value: '1s' },
    { name: 'legalName', formula: 'legalName' },
    { name: 'employeeCount', formula: 'employeeCount' },
    { name: 'tenantId', formula: "sysInfo('tenantId')" },
  ]);
  server = await startServer({
    entry: 'api',
    env: { ODP_WORKER_POLL_MS: '50', ODP_WORKER_SWEEP_MS: '500' },
  });
  const tenant = await server.odp(['tenant', 'create', '--name', 'replicator', '--model', modelDir]);
  const key = await server.odp(['key', 'create', '--tenant', String(tenant['id'])]);
  api = new DataApi(server, String(tenant['id']), String(key['key']));
  worker = await startWorkerProcess(server.env);
  // The default data's companies are created before any connection parameter exists (rule 7).
  const loaded = await api.call('POST', '/loadDefaultData');
  if (loaded.status !== 200) throw new Error(`${await loaded.text()}\n${server.output()}`);
});
afterAll(async () => {
  await worker?.stop();
  await server?.stop();
  rmSync(modelDir, { recursive: true, force: true });
});

const warehouseDir = () => path.join(server.dataDir, 'warehouse');

async function system(method: string, route: string, body?: Json): Promise<Response> {
  return fetch(`${server.baseUrl}/system/${api.tenant}${route}`, {
    method,
    headers: { 'X-API-Key': api.systemKey, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function jobs(query = ''): Promise<JobView[]> {
  const res = await fetch(`${server.baseUrl}/admin/${api.tenant}/jobs?size=500${query}`, {
    headers: { 'X-API-Key': api.systemKey },
  });
  return ((await res.json()) as { jobs: JobView[] }).jobs;
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let last: unknown = null; ;) {
    const value = await probe().catch((error: unknown) => void (last = error));
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`${what}: not in time (${String(last)})\n${worker.output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The replicated table once `accept` holds for it (read between flushes: the worker closes the file). */
function tableWhen(accept: (table: WarehouseTable) => boolean, what: string): Promise<WarehouseTable> {
  return until(async () => {
    const table = await readWarehouseTable(warehouseDir(), { ...TARGET, tenantId: api.tenant });
    return accept(table) ? table : undefined;
  }, what);
}

/** The replication jobs of an object once none is pending or running. */
async function settledJobs(objectId: string): Promise<JobView[]> {
  return until(async () => {
    const mine = (await jobs(`&object=${objectId}`)).filter((job) => job.gateway === 'DatastoreReplicator');
    return mine.length > 0 && mine.every((job) => job.status === 'done' || job.status === 'failed')
      ? mine
      : undefined;
  }, `jobs of ${objectId}`);
}

it('rule 7: without connection parameters the changes are dropped silently', async () => {
  const done = await settledJobs(DEMO.acme);
  expect(done).toEqual([expect.objectContaining({ status: 'done', lastError: null })]);
  expect((await settledJobs(DEMO.globex)).map((job) => job.status)).toEqual(['done']);
  expect((await jobs()).filter((job) => job.kind === 'replication-flush')).toEqual([]);
  expect(existsSync(warehouseDir())).toBe(false);
});

it('rule 8: refuses _credentials from a plain setting, and replicates once they come from a secret value', async () => {
  expect(
    (await system('POST', '/systemSettings', { name: 'warehouseProject', value: TARGET.projectId })).status,
  ).toBe(201);
  const plain = await system('POST', '/systemSettings', {
    name: 'warehouseCredentials',
    value: '{"key":"plain-credentials-value"}',
  });
  expect(plain.status).toBe(201);
  expect((await api.call('PATCH', `/companies/${DEMO.acme}`, { body: { employeeCount: 43 } })).status).toBe(
    204,
  );
  const refused = (await settledJobs(DEMO.acme)).find((job) => job.status === 'failed');
  expect(refused?.lastError).toContain('_credentials must come from a system.secretValue');
  expect(refused?.lastError).not.toContain('plain-credentials-value');
  expect(existsSync(warehouseDir())).toBe(false);

  const settingId = (plain.headers.get('location') ?? '').slice(-36);
  expect((await system('DELETE', `/systemSettings/${settingId}`)).status).toBe(200);
  const secret = await system('POST', '/secretValues', {
    name: 'warehouseCredentials',
    secretValue: '{"type":"service_account"}',
  });
  expect(secret.status).toBe(201);
  expect((await api.call('PATCH', `/companies/${DEMO.acme}`, { body: { employeeCount: 44 } })).status).toBe(
    204,
  );
  const table = await tableWhen((t) => t.rows.length === 1, 'the first replicated row');
  expect(table.rows).toEqual([
    { id: DEMO.acme, legalName: 'Acme BV', employeeCount: '44', tenantId: api.tenant },
  ]);
});

it('rules 1 and 2: a created, changed and deleted object reaches the table by its id, and leaves it', async () => {
  const id = await api.create('companies', { legalName: 'Replica BV', employeeCount: 3 });
  await tableWhen((t) => t.rows.some((row) => row['id'] === id), 'the created row');
  expect(
    (await api.call('PATCH', `/companies/${id}`, { body: { legalName: 'Replica Holding BV' } })).status,
  ).toBe(204);
  const changed = await tableWhen(
    (t) => t.rows.some((row) => row['id'] === id && row['legalName'] === 'Replica Holding BV'),
    'the changed row',
  );
  // id is always written; the tenant column exists because the script declares it.
  expect(changed.columns).toEqual({
    id: 'VARCHAR',
    legalName: 'VARCHAR',
    employeeCount: 'BIGINT',
    tenantId: 'VARCHAR',
  });
  expect(changed.rows.find((row) => row['id'] === id)).toEqual({
    id,
    legalName: 'Replica Holding BV',
    employeeCount: '3',
    tenantId: api.tenant,
  });
  expect((await api.call('DELETE', `/companies/${id}`)).status).toBe(200);
  const after = await tableWhen((t) => !t.rows.some((row) => row['id'] === id), 'the deleted row gone');
  expect(after.rows.map((row) => row['id'])).toEqual([DEMO.acme]);
  expect((await settledJobs(id)).map((job) => job.status)).toEqual(['done', 'done', 'done']);
});
