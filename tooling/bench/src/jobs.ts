/**
 * Jobs end to end (docs/performance.md, "Jobs"): write -> script job queued in the write's
 * transaction -> claimed by a worker -> webhook delivered to a real HTTPS receiver on 127.0.0.1.
 * The api runs alone (`apps/api/src/main.ts`) with 1, then 2 worker processes (`apps/worker`), on each
 * job queue of the stack (job-queues.ts: `sqlite` embedded; `agenda` and `redis` scale-out). Each
 * round patches fresh draft invoices to `sent` (the example model's `notifyAccountant` script
 * fires on that update) from 10 concurrent clients and measures, from the first patch, how long
 * until the receiver got every delivery (jobs per second end to end), then how fast the workers
 * empty a queue filled while none ran. A round passes only when every job was delivered exactly
 * once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { runCli } from '@odp/admin-cli';
import { startHttpsReceiver } from '@odp/gateways/testing';
import type { HttpsReceiver } from '@odp/gateways/testing';
import { benchQueues } from './job-queues.js';
import type { BenchQueue, JobQueueName } from './job-queues.js';
import { REPO_ROOT, SOURCE_API, startChild } from './processes.js';
import type { Child } from './processes.js';
import type { Stack } from './stack.js';

export interface JobsRound {
  readonly queue: JobQueueName;
  readonly workers: number;
  readonly jobs: number;
  readonly seconds: number;
  readonly jobsPerSecond: number;
  /** Patches per second the api acknowledged during the round (the writes that queued the jobs). */
  readonly writesPerSecond: number;
  /** Jobs per second the workers delivered from a queue filled before they started. */
  readonly drainPerSecond: number;
  /** Every job delivered once, none twice. */
  readonly complete: boolean;
}

export interface JobsBench {
  /** What the api ran on (`Stack.description`). */
  readonly stack: string;
  readonly rounds: JobsRound[];
}

const CLIENTS = 10;
const ACME = '3c9d2b71-0f4e-4a8b-8c2d-0000000c0001';

interface Api {
  readonly child: Child;
  readonly tenantId: string;
  readonly key: string;
}

async function call(api: Api, method: string, route: string, body?: unknown): Promise<Response> {
  return fetch(`${api.child.baseUrl}${route}`, {
    method,
    headers: { 'X-API-Key': api.key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function expectStatus(response: Promise<Response>, status: number, what: string): Promise<Response> {
  const res = await response;
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${await res.text()}`);
  return res;
}

/** Runs `odp` in this process against `env`; the parsed `--json` output. */
async function odp(env: Record<string, string>, args: string[]): Promise<Record<string, unknown>> {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...args, '--json'], {
    env: { ...process.env, ...env },
    cwd: REPO_ROOT,
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  if (code !== 0) throw new Error(`odp ${args.join(' ')}: ${stderr}`);
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** Runs `work` on `count` items from {@link CLIENTS} concurrent clients. */
async function concurrently(count: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let index = next++; index < count; index = next++) await work(index);
    }),
  );
}

async function createDrafts(api: Api, round: number, count: number): Promise<string[]> {
  const ids: string[] = new Array<string>(count);
  await concurrently(count, async (index) => {
    const res = await expectStatus(
      call(api, 'POST', `/data/${api.tenantId}/invoices`, {
        invoiceNumber: `JOB-${round}-${index}`,
        amount: 100 + index,
        client: `/data/${api.tenantId}/companies/${ACME}`,
      }),
      201,
      'create invoice',
    );
    ids[index] = (res.headers.get('location') ?? '').slice(-36);
  });
  return ids;
}

/** Patches the drafts to `sent` from {@link CLIENTS} clients; resolves the seconds it took. */
async function sendAll(api: Api, ids: readonly string[]): Promise<number> {
  const started = performance.now();
  await concurrently(ids.length, async (index) => {
    await expectStatus(
      call(api, 'PATCH', `/data/${api.tenantId}/invoices/${ids[index]}`, { status: 'sent' }),
      204,
      'patch invoice',
    );
  });
  return (performance.now() - started) / 1000;
}

async function startWorkers(env: Record<string, string>, count: number): Promise<Child[]> {
  const children: Child[] = [];
  for (let i = 0; i < count; i++) {
    children.push(await startChild('apps/worker/src/main.ts', env, 'ODP_WORKER_READY'));
  }
  return children;
}

/** Waits for `jobs` more deliveries after `before`; whether each came exactly once. */
async function deliveredOnce(receiver: HttpsReceiver, before: number, jobs: number): Promise<boolean> {
  await receiver.waitFor(before + jobs, 120_000);
  // Let a duplicate delivery (a job run twice) show up before counting.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const delivered = receiver.requests
    .slice(before)
    .map((request) => String(request.headers['x-odp-delivery']));
  return delivered.length === jobs && new Set(delivered).size === jobs;
}

/**
 * One round with `workers` worker processes: `endToEnd` patches while the workers run (jobs/s as
 * the writes produce them); `drain` queues the same number of jobs with no worker running, then
 * starts the workers and times how fast they empty the queue (what the workers themselves sustain).
 */
async function runRound(
  api: Api,
  env: Record<string, string>,
  receiver: HttpsReceiver,
  round: { readonly queue: JobQueueName; readonly workers: number; readonly jobs: number },
): Promise<JobsRound> {
  const { workers, jobs } = round;
  const live = await createDrafts(api, workers * 10, jobs);
  const queued = await createDrafts(api, workers * 10 + 1, jobs);
  let children = await startWorkers(env, workers);
  let before = receiver.requests.length;
  const started = performance.now();
  const writeSeconds = await sendAll(api, live);
  let complete = await deliveredOnce(receiver, before, jobs);
  const seconds = (performance.now() - started) / 1000;
  for (const child of children) await child.stop();

  await sendAll(api, queued);
  before = receiver.requests.length;
  children = await startWorkers(env, workers);
  try {
    // Timed from the first delivery, so the workers' start-up is not counted as draining.
    await receiver.waitFor(before + 1, 120_000);
    const draining = performance.now();
    complete = (await deliveredOnce(receiver, before, jobs)) && complete;
    const drainSeconds = (performance.now() - draining) / 1000;
    return {
      queue: round.queue,
      workers,
      jobs,
      seconds,
      jobsPerSecond: jobs / seconds,
      writesPerSecond: jobs / writeSeconds,
      drainPerSecond: (jobs - 1) / drainSeconds,
      complete,
    };
  } finally {
    for (const child of children) await child.stop();
  }
}

export async function measureJobs(options: {
  quick: boolean;
  stack: Stack;
  log: (line: string) => void;
}): Promise<JobsBench> {
  const rounds: JobsRound[] = [];
  for (const queue of benchQueues(options.stack)) {
    try {
      rounds.push(...(await measureQueue(queue, options)));
    } finally {
      await queue.forget();
    }
  }
  return { stack: options.stack.description, rounds };
}

/** The rounds of one job queue: a fresh data directory, tenant and api, then 1 and 2 workers. */
async function measureQueue(
  queue: BenchQueue,
  options: { quick: boolean; stack: Stack; log: (line: string) => void },
): Promise<JobsRound[]> {
  const jobs = options.quick ? 40 : 1000;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-bench-jobs-'));
  const receiver = await startHttpsReceiver();
  const env: Record<string, string> = {
    ...options.stack.env,
    ...queue.env,
    ODP_DATA_DIR: dataDir,
    ODP_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32',
    ODP_GATEWAY_CA_FILE: receiver.caFile,
    ODP_WORKER_POLL_MS: '20',
    // The one tenant is the only client: the fair share that keeps tenants from starving each other
    // would refuse its 10 clients on a slow store (429), which is not what this measures.
    ODP_TENANT_WORK_MS: '600000',
  };
  const tenant = await odp(env, ['tenant', 'create', '--name', 'Jobs', '--model', 'examples/models/crm']);
  const tenantId = String(tenant['id']);
  const key = String((await odp(env, ['key', 'create', '--tenant', tenantId]))['key']);
  const child = await startChild(SOURCE_API, env, 'ODP_READY');
  const api: Api = { child, tenantId, key };
  try {
    await expectStatus(call(api, 'POST', `/data/${tenantId}/loadDefaultData`), 200, 'loadDefaultData');
    await expectStatus(
      call(api, 'POST', `/system/${tenantId}/systemSettings`, {
        name: 'accountantWebhookUrl',
        value: `${receiver.origin}/hook`,
      }),
      201,
      'webhook setting',
    );
    const rounds: JobsRound[] = [];
    for (const workers of [1, 2]) {
      options.log(`  jobs (${queue.name}): ${jobs} webhook deliveries with ${workers} worker(s)`);
      const round = await runRound(api, env, receiver, { queue: queue.name, workers, jobs });
      options.log(
        `  jobs (${queue.name}, ${workers} worker(s)): ${round.jobsPerSecond.toFixed(1)} jobs/s end to end, ` +
          `${round.drainPerSecond.toFixed(1)} draining, ${round.complete ? 'each delivered once' : 'NOT each once'}`,
      );
      rounds.push(round);
    }
    return rounds;
  } finally {
    await child.stop();
    await receiver.close();
    await options.stack.forget([tenantId]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function jobsTable(bench: JobsBench): string {
  const lines = [
    `Stack: ${bench.stack}.`,
    '',
    '| queue | workers | jobs | seconds | jobs/s end to end | writes/s acknowledged | jobs/s draining a full queue | every job delivered once |',
    '|---|---|---|---|---|---|---|---|',
    ...bench.rounds.map(
      (round) =>
        `| ${round.queue} | ${round.workers} | ${round.jobs} | ${round.seconds.toFixed(1)} | ${round.jobsPerSecond.toFixed(0)} | ` +
        `${round.writesPerSecond.toFixed(0)} | ${round.drainPerSecond.toFixed(0)} | ${round.complete ? 'yes' : 'NO'} |`,
    ),
  ];
  return lines.join('\n');
}
