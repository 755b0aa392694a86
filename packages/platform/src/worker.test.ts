/**
 * `startWorker` in-process with an injected clock: a gateway call that keeps failing is retried on
 * the schedule without the test waiting for it, and its exhaustion writes the tenant's
 * `consumer_gateway_retry` log entry; jobs left in a tenant outbox are relayed by the sweep.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@odp/config';
import type { Account } from '@odp/core';
import { startHttpsReceiver } from '@odp/gateways/testing';
import type { HttpsReceiver } from '@odp/gateways/testing';
import type { JobRunner } from '@odp/job-runner';
import { openPlatform } from './platform.js';
import type { Platform } from './platform.js';
import { startWorker } from './worker.js';

const EXAMPLES = path.resolve(__dirname, '../../../examples/models');
const INVOICE = '9e7b4c10-2a3d-4f5e-8a6b-0000000f0001';

let receiver: HttpsReceiver;
let dir: string;
let platform: Platform;
let worker: JobRunner | undefined;
let clock: Date;
let tenantId: string;
let system: Account;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
});
afterAll(() => receiver.close());
beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'odp-worker-'));
  const config = loadConfig({
    ODP_DATA_DIR: dir,
    ODP_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32',
    ODP_WORKER_POLL_MS: '20',
    ODP_WORKER_SWEEP_MS: '20',
    ODP_GATEWAY_CA_FILE: receiver.caFile,
  });
  platform = await openPlatform(config, fileURLToPath(new URL(`file://${EXAMPLES}/`)));
  const tenant = await platform.registry.createTenant({ name: 't', modelSource: path.join(EXAMPLES, 'crm') });
  tenantId = tenant.id;
  system = { kind: 'system', tenantId };
  const data = (await platform.runtimes.get(tenantId)).data();
  await data.objects.jobs.loadDefaultData(system);
  await (await platform.runtimes.get(tenantId)).system().create(system, 'systemSettings', {
    name: 'accountantWebhookUrl',
    value: `${receiver.origin}/hook`,
  });
  clock = new Date('2030-01-01T00:00:00.000Z');
  receiver.requests.splice(0);
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await platform.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('retries on the schedule by the clock, then writes the consumer_gateway_retry log entry', async () => {
  receiver.respondWith(503, 503, 429, 502);
  worker = startWorker(platform, { now: () => clock });
  const data = (await platform.runtimes.get(tenantId)).data();
  const job = await data.runScript(system, 'invoices', INVOICE, 'notifyAccountant');
  expect(job).not.toBeNull();
  const attempts = async (n: number) =>
    until(async () => {
      const current = await platform.jobs.get(job!.id);
      return current && current.attempts === n && current.status !== 'running' ? current : undefined;
    });
  expect(await attempts(1)).toMatchObject({ status: 'pending' });
  for (const [delay, n] of [
    [10_000, 2],
    [60_000, 3],
    [15 * 60_000, 4],
  ] as const) {
    clock = new Date(clock.getTime() + delay);
    worker.poke();
    await attempts(n);
  }
  const failed = await platform.jobs.get(job!.id);
  expect(failed).toMatchObject({
    status: 'failed',
    attempts: 4,
    lastError: 'The webhook answered HTTP 502.',
  });
  expect(receiver.requests).toHaveLength(4);
  const entries = await until(async () => {
    const systemClasses = (await platform.runtimes.get(tenantId)).system();
    const page = await systemClasses.list(system, { typeName: 'logEntries' }, new URLSearchParams());
    const rows = Object.values(page._embedded)[0] ?? [];
    return rows.length > 0 ? rows : undefined;
  });
  expect(entries).toHaveLength(1);
  expect(entries[0]).toMatchObject({
    category: 'consumer_gateway_retry',
    level: 'ERROR',
    gateway: 'Webhook',
    message: failed!.lastError,
    reference: `/data/${tenantId}/invoices/${INVOICE}`,
  });
});

it('relays jobs left in a tenant outbox by a crash between the commit and the relay', async () => {
  const runtime = await platform.runtimes.get(tenantId);
  // A write whose relay did not happen: the job sits in the outbox of the tenant database.
  const { openSqliteTenantStore } = await import('@odp/store-sqlite');
  const store = openSqliteTenantStore({ file: path.join(runtime.dataDir, 'documents.sqlite') });
  await store.applyModel(runtime.model.model!);
  await store.write({
    jobs: [
      {
        id: 'left-behind',
        tenantId,
        kind: 'gateway',
        objectId: INVOICE,
        payload: { gateway: 'DatastoreReplicator', script: 's', parameters: {} },
        createdAt: clock.toISOString(),
      },
    ],
  });
  await store.close();
  expect(await platform.jobs.get('left-behind')).toBeNull();
  worker = startWorker(platform, { now: () => clock });
  // A replication without connection parameters: run and done, writing nothing (rule 7).
  const relayed = await until(async () => {
    const job = await platform.jobs.get('left-behind');
    return job?.status === 'done' ? job : undefined;
  });
  expect(relayed).toMatchObject({ attempts: 1, lastError: null });
});
