/**
 * Usage records and rate limits of external services through real processes (docs/worker.md):
 * every webhook call leaves one `system.serviceCallLog` record, `ODP_RATE_LIMITS` refuses a MANUAL
 * script with 429 once its service's calls are used up, and a queued job past the limit is retried
 * like a 429 instead of calling. With the api and two separate worker processes, the limit holds
 * across the workers: on the SQLite counters of one machine, and on Redis (ODP_REDIS_URL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeWithEngine } from '@odp/testkit';
import { startHttpsReceiver } from '@odp/gateways/testing';
import type { HttpsReceiver } from '@odp/gateways/testing';
import { DEMO, DataApi, startDataServer } from './data-api.js';
import type { Json } from './data-api.js';
import { createSystemObject, jobsOf, runScript, settled, usageRecords } from './support/jobs.js';
import { startServer } from './support/server.js';
import { startWorkerProcess } from './support/workers.js';
import type { WorkerProcess } from './support/workers.js';

jest.setTimeout(180_000);

/** A DAYS window: the suite never straddles a roll-over except at midnight UTC. */
const limits = (calls: number) =>
  JSON.stringify({ services: { webhook: { calls, window: 'DAYS', budgetEur: 25 } } });

async function expectRefused(res: Response): Promise<void> {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  const problem = (await res.json()) as Json;
  expect(String(problem['detail'])).toMatch(
    /^The rate limit of the service webhook is reached \(\d+ calls? per day\)/,
  );
}

describe('usage records and rate limits, api and worker in one process', () => {
  let receiver: HttpsReceiver;
  let api: DataApi;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    api = await startDataServer({
      env: {
        ODP_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32',
        ODP_GATEWAY_CA_FILE: receiver.caFile,
        ODP_WORKER_POLL_MS: '50',
        ODP_RATE_LIMITS: limits(2),
      },
    });
    await createSystemObject(api, 'systemSettings', {
      name: 'accountantWebhookUrl',
      value: `${receiver.origin}/hook`,
    });
  });
  afterAll(async () => {
    await api?.server.stop();
    await receiver?.close();
  });

  it('writes one usage record per webhook call, failed calls included', async () => {
    receiver.respondWith(410);
    const res = await runScript(api, 'invoices', DEMO.invoice1, 'notifyAccountant');
    const failed = await settled(api, ((await res.json()) as { job: { id: string } }).job.id);
    expect(failed).toMatchObject({ status: 'failed', lastError: 'The webhook answered HTTP 410.' });
    const delivered = await runScript(api, 'invoices', DEMO.invoice1, 'notifyAccountant');
    expect(await settled(api, ((await delivered.json()) as { job: { id: string } }).job.id)).toMatchObject({
      status: 'done',
    });
    const records = await usageRecords(api);
    expect(records).toHaveLength(2);
    expect(records.map((record) => record['success']).sort()).toEqual([false, true]);
    for (const record of records) {
      expect(record).toMatchObject({
        service: 'webhook',
        reference: api.href('invoices', DEMO.invoice1),
        cost: 0,
        costLocal: 0,
      });
      expect(Date.now() - Date.parse(String(record['timestamp']))).toBeLessThan(60_000);
    }
    const aggregations = await fetch(
      `${api.server.baseUrl}/system/${api.tenant}/serviceCallLogs/aggregations`,
      {
        headers: { 'X-API-Key': api.systemKey },
      },
    );
    // The usage response shows the limits with their informational budget.
    expect(await aggregations.json()).toMatchObject({
      total: 2,
      sum: { costLocal: 0 },
      rateLimits: { webhook: { calls: 2, window: 'DAYS', units: null, budgetEur: 25 } },
    });
  });

  it('answers a MANUAL script past the limit with 429 and queues nothing', async () => {
    const before = (await jobsOf(api, `?object=${DEMO.invoice1}`)).length;
    await expectRefused(await runScript(api, 'invoices', DEMO.invoice1, 'notifyAccountant'));
    expect(await jobsOf(api, `?object=${DEMO.invoice1}`)).toHaveLength(before);
    // A script whose condition is false would make no call: still 202, nothing queued.
    const condition = await runScript(api, 'invoices', DEMO.invoice3, 'notifyAccountant');
    expect(condition.status).toBe(202);
  });

  it('retries the job of a write past the limit like a 429, without calling', async () => {
    receiver.requests.splice(0);
    const res = await api.call('PATCH', `/invoices/${DEMO.invoice2}`, { body: { status: 'sent' } });
    expect(res.status).toBe(204);
    const [job] = await jobsOf(api, `?object=${DEMO.invoice2}`);
    const deadline = Date.now() + 10_000;
    let seen = job;
    while (seen?.lastError == null && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      [seen] = await jobsOf(api, `?object=${DEMO.invoice2}`);
    }
    expect(seen).toMatchObject({ status: 'pending', attempts: 1 });
    expect(seen?.lastError).toMatch(/^The rate limit of the service webhook is reached \(2 calls per day\)/);
    expect(receiver.requests).toEqual([]);
    expect(await usageRecords(api)).toHaveLength(2);
  });
});

/**
 * Twelve MANUAL runs queued while no worker runs (nothing called yet, so none is refused), then two
 * worker processes: exactly `calls` deliveries and usage records, the rest retried, and the next
 * MANUAL run refused by the api.
 */
function describeAcrossWorkers(title: string, extraEnv: () => Record<string, string>): void {
  describe(title, () => {
    const CALLS = 5;
    let receiver: HttpsReceiver;
    let dataDir: string;
    let api: DataApi;
    const workers: WorkerProcess[] = [];
    let env: Record<string, string>;

    beforeAll(async () => {
      receiver = await startHttpsReceiver();
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-limits-'));
      const first = await startDataServer({ dataDir });
      await first.server.stop();
      env = {
        ...extraEnv(),
        ODP_DATA_DIR: dataDir,
        ODP_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32',
        ODP_GATEWAY_CA_FILE: receiver.caFile,
        ODP_WORKER_POLL_MS: '50',
        ODP_RATE_LIMITS: limits(CALLS),
      };
      const server = await startServer({ dataDir, entry: 'api', env });
      api = new DataApi(server, first.tenant, first.systemKey);
      await createSystemObject(api, 'systemSettings', {
        name: 'accountantWebhookUrl',
        value: `${receiver.origin}/hook`,
      });
    });
    afterAll(async () => {
      await Promise.all(workers.map((worker) => worker.kill()));
      await api?.server.stop();
      await receiver?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('lets exactly `calls` of twelve queued jobs through two workers, then refuses MANUAL runs', async () => {
      const queued: string[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await runScript(api, 'invoices', DEMO.invoice1, 'notifyAccountant');
        expect(res.status).toBe(202);
        queued.push(((await res.json()) as { job: { id: string } }).job.id);
      }
      workers.push(...(await Promise.all([startWorkerProcess(env), startWorkerProcess(env)])));
      const deadline = Date.now() + 30_000;
      let jobs = await jobsOf(api, `?object=${DEMO.invoice1}`);
      while (jobs.some((job) => job.attempts === 0 || job.status === 'running') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        jobs = await jobsOf(api, `?object=${DEMO.invoice1}`);
      }
      expect(jobs.filter((job) => job.status === 'done')).toHaveLength(CALLS);
      const refused = jobs.filter((job) => job.status === 'pending');
      expect(refused).toHaveLength(12 - CALLS);
      for (const job of refused)
        expect(job.lastError).toContain('The rate limit of the service webhook is reached');
      expect(receiver.requests).toHaveLength(CALLS);
      expect(await usageRecords(api)).toHaveLength(CALLS);
      await expectRefused(await runScript(api, 'invoices', DEMO.invoice1, 'notifyAccountant'));
      expect(queued.sort()).toEqual(jobs.map((job) => job.id).sort());
    });
  });
}

describeAcrossWorkers('rate limits across two worker processes, counters in SQLite', () => ({}));

describeWithEngine(
  'rate limits across two worker processes, counters in Redis',
  'ODP_TEST_REDIS_URL',
  (redisUrl) => {
    describeAcrossWorkers('over ODP_REDIS_URL', () => ({ ODP_REDIS_URL: redisUrl }));
  },
);
