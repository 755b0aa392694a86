/**
 * The job queue on Redis (`ODP_JOBS=redis`) with real processes: the api alone and `apps/worker`
 * processes, jobs delivered to a real HTTPS receiver on 127.0.0.1. Two workers take the queued
 * jobs without duplicates; a worker killed with SIGKILL in the middle of a job leaves it to the
 * next claim after its lease, which runs it exactly once more.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { describeWithEngine } from '@odp/core/contract';
import { startHttpsReceiver } from '@odp/gateways/testing';
import type { HttpsReceiver } from '@odp/gateways/testing';
import { DEMO, DataApi, startDataServer } from './data-api.js';
import { startServer } from './support/server.js';
import { startWorkerProcess } from './support/workers.js';
import type { WorkerProcess } from './support/workers.js';

jest.setTimeout(60_000);

interface JobView {
  id: string;
  status: string;
  attempts: number;
}

describeWithEngine('scale-out jobs on Redis', 'ODP_TEST_REDIS_URL', (redisUrl) => {
  const prefix = `odp-test:worker-redis:${randomUUID()}:`;
  let receiver: HttpsReceiver;
  let dataDir: string;
  let api: DataApi;
  let env: Record<string, string>;
  const workers: WorkerProcess[] = [];

  const startWorker = async () => {
    const worker = await startWorkerProcess(env);
    workers.push(worker);
    return worker;
  };

  async function job(id: string): Promise<JobView> {
    const res = await fetch(`${api.server.baseUrl}/admin/${api.tenant}/jobs/${id}`, {
      headers: { 'X-API-Key': api.systemKey },
    });
    return (await res.json()) as JobView;
  }

  async function settled(id: string, timeoutMs = 20_000): Promise<JobView> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const view = await job(id);
      if (view.status !== 'pending' && view.status !== 'running') return view;
      if (Date.now() > deadline) throw new Error(`job ${id} not settled: ${JSON.stringify(view)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function runScript(): Promise<string> {
    const res = await fetch(
      `${api.server.baseUrl}/scripts/${api.tenant}/invoices/${DEMO.invoice1}/notifyAccountant`,
      { method: 'POST', headers: { 'X-API-Key': api.systemKey } },
    );
    expect(res.status).toBe(202);
    return ((await res.json()) as { job: { id: string } }).job.id;
  }

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-worker-redis-'));
    env = {
      ODP_DATA_DIR: dataDir,
      ODP_JOBS: 'redis',
      ODP_REDIS_URL: redisUrl,
      ODP_JOBS_REDIS_PREFIX: prefix,
      ODP_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32',
      ODP_GATEWAY_CA_FILE: receiver.caFile,
      ODP_WORKER_POLL_MS: '50',
      ODP_WORKER_LEASE_MS: '3000',
      ODP_WORKER_SWEEP_MS: '500',
    };
    // The first start creates the demo tenant; the api then runs alone on the same data.
    const first = await startDataServer({ dataDir, env });
    await first.server.stop();
    const server = await startServer({ dataDir, entry: 'api', env });
    api = new DataApi(server, first.tenant, first.systemKey);
    const res = await fetch(`${server.baseUrl}/system/${api.tenant}/systemSettings`, {
      method: 'POST',
      headers: { 'X-API-Key': api.systemKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'accountantWebhookUrl', value: `${receiver.origin}/hook` }),
    });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await api?.server.stop();
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('queues in Redis while no worker runs; two workers then deliver each job exactly once', async () => {
    const queued: string[] = [];
    for (let i = 0; i < 12; i++) queued.push(await runScript());
    const redis = new Redis(redisUrl);
    try {
      expect(await redis.zcard(`${prefix}due`)).toBe(12);
    } finally {
      await redis.quit();
    }
    for (const id of queued) expect(await job(id)).toMatchObject({ status: 'pending', attempts: 0 });
    const [a, b] = await Promise.all([startWorker(), startWorker()]);
    for (const id of queued) expect(await settled(id)).toMatchObject({ status: 'done', attempts: 1 });
    const deliveries = receiver.requests.map((request) => String(request.headers['x-odp-delivery']));
    expect(deliveries.sort()).toEqual([...queued].sort());
    expect(await Promise.all([a!.stop(), b!.stop()])).toEqual([0, 0]);
  });

  it('re-runs the job of a worker killed with SIGKILL in the middle of it exactly once more', async () => {
    receiver.requests.splice(0);
    receiver.respondWith('hang');
    const victim = await startWorker();
    const id = await runScript();
    await receiver.waitFor(1);
    await victim.kill();
    expect(await job(id)).toMatchObject({ status: 'running', attempts: 1 });
    await startWorker();
    expect(await settled(id)).toMatchObject({ status: 'done', attempts: 2 });
    // Another lease period later, nothing more has been delivered.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect(receiver.requests.map((request) => request.headers['x-odp-delivery'])).toEqual([id, id]);
  });
});
