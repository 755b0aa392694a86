/**
 * The DatastoreReplicator in-process, with `startWorker` on an injected clock (flush intervals pass
 * without waiting) and the embedded DuckDB warehouse in the data directory: the flush interval and
 * the rules of the interface spec that concern the flush (3 column types, 4 schema evolution, 5
 * de-duplication, 6 retry of a failed flush). The pipeline rules (1, 2, 7, 8) run through real api
 * and worker processes in test/src/replicator.test.ts.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, warehouseDir } from '@odp/config';
import type { Account } from '@odp/core';
import { SecretCipher, unsealParameters } from '@odp/data';
import { addCompanyReplicator } from '@odp/gateways/testing';
import type { JobRunner } from '@odp/job-runner';
import { projectFile } from '@odp/warehouse-duckdb';
import { readWarehouseTable } from '@odp/warehouse-duckdb/testing';
import type { WarehouseTable } from '@odp/warehouse-duckdb/testing';
import { openPlatform } from './platform.js';
import type { Platform } from './platform.js';
import { startWorker } from './worker.js';

const EXAMPLES = path.resolve(__dirname, '../../../examples/models');
const ACME = '3c9d2b71-0f4e-4a8b-8c2d-0000000c0001';
const GLOBEX = '3c9d2b71-0f4e-4a8b-8c2d-0000000c0002';
const TARGET = { projectId: 'acme-analytics', dataset: 'crm', table: 'companies' };
/** 2030-01-01T00:00:00Z: a whole number of 15-minute intervals since the epoch. */
const T0 = new Date('2030-01-01T00:00:00.000Z');
const MINUTE = 60_000;

let dir: string;
let modelDir: string;
let platform: Platform;
let worker: JobRunner | undefined;
let clock: Date;
let tenantId: string;
let system: Account;

/** The crm example with a DatastoreReplicator script on companies, with these column parameters. */
function writeModel(columns: readonly Record<string, string>[]): void {
  addCompanyReplicator(modelDir, TARGET, columns);
}

const COLUMNS: readonly Record<string, string>[] = [
  { name: 'legalName', formula: 'legalName' },
  { name: 'employeeCount', formula: 'employeeCount' },
  { name: 'revenue', formula: 'revenue' },
  { name: 'active', formula: 'active' },
  { name: 'foundedOn', formula: 'foundedOn' },
  { name: 'lastContactAt', formula: 'lastContactAt' },
  { name: 'openingTime', formula: 'openingTime' },
  { name: 'revenuePerEmployee', formula: 'revenue / employeeCount' },
  { name: 'large', formula: 'employeeCount > 40' },
  { name: 'companyType', formula: 'companyType' },
  { name: 'source', value: 'odp' },
];

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'odp-replicator-'));
  modelDir = path.join(dir, 'model');
  cpSync(path.join(EXAMPLES, 'crm'), modelDir, { recursive: true });
  writeModel(COLUMNS);
  const config = loadConfig({ ODP_DATA_DIR: path.join(dir, 'data'), ODP_WORKER_POLL_MS: '10' });
  platform = await openPlatform(config, fileURLToPath(new URL(`file://${EXAMPLES}/`)));
  clock = new Date(T0.getTime() + 5 * MINUTE);
  tenantId = await addReplicatedTenant('r', TARGET.projectId);
  system = { kind: 'system', tenantId };
});
/**
 * A tenant of the model whose settings name `projectId` as the warehouse project, with the example
 * data loaded (each company's creation queues its replication); resolves its id.
 */
async function addReplicatedTenant(name: string, projectId: string): Promise<string> {
  const id = (await platform.registry.createTenant({ name, modelSource: modelDir })).id;
  const account: Account = { kind: 'system', tenantId: id };
  const runtime = await platform.runtimes.get(id);
  await runtime.system().create(account, 'systemSettings', { name: 'warehouseProject', value: projectId });
  await runtime
    .system()
    .storeSecretValue({ name: 'warehouseCredentials', secretValue: '{"type":"service_account"}' });
  await runtime.data().objects.jobs.loadDefaultData(account);
  return id;
}

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await platform.close();
  rmSync(dir, { recursive: true, force: true });
});

const data = async () => (await platform.runtimes.get(tenantId)).data();
const table = (): Promise<WarehouseTable> =>
  readWarehouseTable(warehouseDir(platform.config), { ...TARGET, tenantId });

/** Runs due jobs until none is left (the worker's loop, without its timers). */
async function drain(): Promise<void> {
  worker ??= startWorker(platform, { now: () => clock });
  await worker.stop();
  while ((await worker.runOnce()) !== null);
}

async function flushJobs(): Promise<{ status: string; runAt: string; lastError: string | null }[]> {
  return (await platform.jobs.list({ tenantId, limit: 500 })).filter(
    (job) => job.kind === 'replication-flush',
  );
}

it('buffers changes and writes them at the end of the flush interval, not before', async () => {
  await drain();
  expect(await flushJobs()).toEqual([
    expect.objectContaining({ status: 'pending', runAt: '2030-01-01T00:15:00.000Z' }),
  ]);
  expect((await table()).rows).toEqual([]);
  clock = new Date(T0.getTime() + 15 * MINUTE - 1);
  await drain();
  expect((await table()).rows).toEqual([]);
  clock = new Date(T0.getTime() + 15 * MINUTE);
  await drain();
  expect((await table()).rows.map((row) => row['legalName'])).toEqual(['Acme BV', 'Globex NV']);
  expect(await flushJobs()).toEqual([expect.objectContaining({ status: 'done' })]);
});

it('rule 3: types each column by the field or formula it reads', async () => {
  await drain();
  clock = new Date(T0.getTime() + 15 * MINUTE);
  await drain();
  const { columns, rows } = await table();
  expect(columns).toEqual({
    id: 'VARCHAR',
    legalName: 'VARCHAR',
    employeeCount: 'BIGINT',
    revenue: 'DECIMAL(38,9)',
    active: 'BOOLEAN',
    foundedOn: 'DATE',
    lastContactAt: 'TIMESTAMP',
    openingTime: 'TIME',
    revenuePerEmployee: 'DECIMAL(38,9)',
    large: 'BOOLEAN',
    companyType: 'VARCHAR',
    source: 'VARCHAR',
  });
  expect(rows.find((row) => row['id'] === ACME)).toMatchObject({
    legalName: 'Acme BV',
    employeeCount: '42',
    revenue: '1250000.000000000',
    active: true,
    foundedOn: '2004-03-01',
    openingTime: '08:30:00',
    large: true,
    companyType: 'bv',
    source: 'odp',
  });
});

it('rule 4: adds the columns a changed script brings and keeps the ones it no longer has', async () => {
  await drain();
  clock = new Date(T0.getTime() + 15 * MINUTE);
  await drain();
  writeModel([
    { name: 'legalName', formula: 'legalName' },
    { name: 'tenant', formula: "sysInfo('tenantId')" },
  ]);
  expect((await (await platform.runtimes.get(tenantId)).reloadModel()).state).toBe('LOADED');
  await (await data()).patch(system, 'companies', ACME, { legalName: 'Acme Holding BV' });
  await drain();
  clock = new Date(T0.getTime() + 30 * MINUTE);
  await drain();
  const { columns, rows } = await table();
  expect(Object.keys(columns)).toEqual([...['id', ...COLUMNS.map((column) => column.name)], 'tenant']);
  expect(rows.find((row) => row['id'] === ACME)).toMatchObject({
    legalName: 'Acme Holding BV',
    tenant: tenantId,
    employeeCount: null,
  });
  expect(rows.find((row) => row['id'] === GLOBEX)).toMatchObject({ legalName: 'Globex NV', tenant: null });
});

it('rule 5: writes the latest change per object of a flush, once', async () => {
  const service = await data();
  for (const employeeCount of [43, 44, 45]) await service.patch(system, 'companies', ACME, { employeeCount });
  await drain();
  expect(
    await platform.replication.buffer.pending(tenantId, 'acme-analytics/crm/companies', 100),
  ).toHaveLength(5);
  clock = new Date(T0.getTime() + 15 * MINUTE);
  await drain();
  const rows = (await table()).rows.filter((row) => row['id'] === ACME);
  expect(rows).toEqual([expect.objectContaining({ employeeCount: '45' })]);
  expect(await platform.replication.buffer.pending(tenantId, 'acme-analytics/crm/companies', 100)).toEqual(
    [],
  );
});

it('rule 6: keeps the changes of a failed flush and writes them on the next cycle', async () => {
  await drain();
  // The warehouse file cannot be opened while a directory stands in its place.
  const file = projectFile(warehouseDir(platform.config), tenantId, TARGET.projectId);
  mkdirSync(file, { recursive: true });
  clock = new Date(T0.getTime() + 15 * MINUTE);
  await drain();
  const failed = (await flushJobs()).find((job) => job.runAt === '2030-01-01T00:15:00.000Z');
  expect(failed).toMatchObject({ status: 'failed' });
  expect(failed?.lastError).toContain('stay buffered for the next flush at 2030-01-01T00:30:00.000Z');
  expect(failed?.lastError).not.toContain('service_account');
  expect(await flushJobs()).toContainEqual(
    expect.objectContaining({ status: 'pending', runAt: '2030-01-01T00:30:00.000Z' }),
  );
  rmSync(file, { recursive: true });
  clock = new Date(T0.getTime() + 30 * MINUTE);
  await drain();
  expect((await table()).rows.map((row) => row['id'])).toEqual([ACME, GLOBEX]);
});

it('leaves the changes to a flush of the same destination already writing, and writes them on the next cycle', async () => {
  await drain();
  // Another worker's flush of the destination, still writing.
  const held = await platform.coordination.locks.acquire(
    `replication-flush:${tenantId}:acme-analytics/crm/companies`,
    60_000,
  );
  expect(held).not.toBeNull();
  clock = new Date(T0.getTime() + 15 * MINUTE);
  await drain();
  expect((await table()).rows).toEqual([]);
  expect(
    await platform.replication.buffer.pending(tenantId, 'acme-analytics/crm/companies', 100),
  ).toHaveLength(2);
  const byRunAt = (await flushJobs()).sort((a, b) => a.runAt.localeCompare(b.runAt));
  expect(byRunAt).toEqual([
    expect.objectContaining({ status: 'done', runAt: '2030-01-01T00:15:00.000Z' }),
    expect.objectContaining({ status: 'pending', runAt: '2030-01-01T00:30:00.000Z' }),
  ]);
  await held!.release();
  clock = new Date(T0.getTime() + 30 * MINUTE);
  await drain();
  expect((await table()).rows.map((row) => row['id'])).toEqual([ACME, GLOBEX]);
});

it('rule 1: a delete removes the row by id and evaluates no column formula', async () => {
  const service = await data();
  const { id } = await service.create(system, 'companies', { legalName: 'Short-lived BV', employeeCount: 2 });
  await drain();
  clock = new Date(T0.getTime() + 15 * MINUTE);
  await drain();
  expect((await table()).rows.map((row) => row['id'])).toContain(id);
  await service.remove(system, 'companies', id);
  await drain();
  const [deleted] = await platform.replication.buffer.pending(tenantId, 'acme-analytics/crm/companies', 10);
  expect(deleted).toMatchObject({
    objectId: id,
    payload: { trigger: 'DELETE', replication: { columns: {} } },
  });
  const parameters = unsealParameters(deleted!.payload, new SecretCipher(platform.config.secretKey));
  expect(Object.keys(parameters ?? {}).sort()).toEqual([
    '_credentials',
    '_dataset',
    '_projectId',
    '_table',
    '_type',
  ]);
  clock = new Date(T0.getTime() + 30 * MINUTE);
  await drain();
  expect((await table()).rows.map((row) => row['id'])).toEqual([ACME, GLOBEX]);
});

it('fails a change whose _projectId the warehouse cannot have, once, with the reason, and buffers nothing', async () => {
  const bad = await addReplicatedTenant('bad project', '../acme');
  for (const minutes of [0, 15, 30, 45]) {
    clock = new Date(T0.getTime() + (5 + minutes) * MINUTE);
    await drain();
  }
  const jobs = await platform.jobs.list({ tenantId: bad, limit: 500 });
  const replications = jobs.filter((job) => job.kind !== 'replication-flush');
  expect(replications.length).toBeGreaterThan(0);
  for (const job of replications) {
    expect(job).toMatchObject({ status: 'failed', attempts: 1 });
    expect(job.lastError).toContain("_projectId '../acme' is not a project name");
  }
  expect(jobs.filter((job) => job.status === 'pending')).toEqual([]);
  expect(await platform.replication.buffer.pending(bad, '../acme/crm/companies', 100)).toEqual([]);
});

it('keeps the warehouse of each tenant apart, also when two tenants name the same _projectId', async () => {
  const other = await addReplicatedTenant('r2', TARGET.projectId);
  const otherSystem: Account = { kind: 'system', tenantId: other };
  const otherData = (await platform.runtimes.get(other)).data();
  await otherData.patch(otherSystem, 'companies', ACME, { legalName: 'Acme of the other tenant' });
  await drain();
  clock = new Date(T0.getTime() + 15 * MINUTE);
  await drain();
  const names = async (tenant: string) =>
    (await readWarehouseTable(warehouseDir(platform.config), { ...TARGET, tenantId: tenant })).rows.map(
      (row) => row['legalName'],
    );
  expect(await names(tenantId)).toEqual(['Acme BV', 'Globex NV']);
  expect(await names(other)).toEqual(['Acme of the other tenant', 'Globex NV']);
});
