import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from '@odp/core';
import {
  AddressPolicy,
  MailGateway,
  ServiceUsage,
  UserInvitationGateway,
  WebhookGateway,
} from '@odp/gateways';
import type { ServiceCallRecord, ServiceLimit } from '@odp/gateways';
import { startHttpsReceiver, startSmtpReceiver } from '@odp/gateways/testing';
import type { HttpsReceiver } from '@odp/gateways/testing';
import { openSqliteJobQueue, openSqlitePlatformRegistry, SqliteWindowCounters } from '@odp/store-sqlite';
import type { SqlitePlatformRegistry, SqliteJobQueue } from '@odp/store-sqlite';
import { gatewayHandler } from './gateway-handler.js';
import { JobRunner } from './runner.js';

const TENANT = 'c0c0c0c0-0000-4000-8000-000000000001';
const T0 = new Date('2030-01-01T00:00:00.000Z');

let receiver: HttpsReceiver;
let dir: string;
let queue: SqliteJobQueue;
let clock: Date;
let lines: { level: string; message: string; fields: Record<string, unknown> }[];
let exhausted: { job: Job; error: string }[];
let mail: MailGateway | null;
let counters: SqliteWindowCounters;
let registry: SqlitePlatformRegistry;
let limits: Record<string, ServiceLimit>;
let usageRecords: ServiceCallRecord[];

beforeAll(async () => {
  receiver = await startHttpsReceiver();
});
afterAll(() => receiver.close());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'odp-runner-'));
  queue = openSqliteJobQueue(join(dir, 'jobs.sqlite'));
  clock = T0;
  lines = [];
  exhausted = [];
  mail = null;
  counters = new SqliteWindowCounters(join(dir, 'counters.sqlite'));
  registry = openSqlitePlatformRegistry(join(dir, 'platform.sqlite'));
  limits = {};
  usageRecords = [];
  receiver.requests.splice(0);
});
afterEach(async () => {
  await queue.close();
  await counters.close();
  await registry.close();
  rmSync(dir, { recursive: true, force: true });
});

let tokens = 0;

function runner(workerId = 'w1', timeoutMs = 10_000): JobRunner {
  const webhook = new WebhookGateway({
    policy: new AddressPolicy(['127.0.0.1/32']),
    ca: [receiver.ca],
    now: () => clock,
    timeoutMs,
  });
  return new JobRunner({
    queue,
    workerId,
    leaseMs: 30_000,
    now: () => clock,
    log: {
      info: (message, fields = {}) => lines.push({ level: 'info', message, fields }),
      error: (message, fields = {}) => lines.push({ level: 'error', message, fields }),
    },
    handlers: {
      gateway: gatewayHandler({
        webhook,
        mail,
        invitations: new UserInvitationGateway({
          registry,
          updatePerson: async () => true,
          newToken: () => ({ token: `odpi_${++tokens}`, hash: `hash-${tokens}` }),
          baseUrl: 'https://odp.example.test',
          now: () => clock,
        }),
        usage: new ServiceUsage({
          counters,
          limits,
          exchangeRates: {},
          now: () => clock,
          write: async (_tenantId, record) => {
            usageRecords.push(record);
          },
        }),
        secretOf: async (id) => (id === TENANT ? 'secret' : null),
        parametersOf: (payload) => payload['parameters'] as Record<string, string | null>,
      }),
    },
    onRetriesExhausted: async (job, error) => {
      exhausted.push({ job, error });
    },
  });
}

async function enqueue(gateway = 'Webhook', tenantId = TENANT, id = 'job-1'): Promise<void> {
  await queue.enqueue([
    {
      id,
      tenantId,
      kind: 'gateway',
      objectId: 'o1',
      payload: {
        gateway,
        script: 'notify',
        parameters: { url: `${receiver.origin}/hook`, payload_invoice: '/data/t/invoices/o1' },
      },
      createdAt: T0.toISOString(),
    },
  ]);
}

const advance = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};

it('delivers a webhook and logs one line for the job', async () => {
  await enqueue();
  const result = await runner().runOnce();
  expect(result?.outcome).toBe('done');
  expect(receiver.requests).toHaveLength(1);
  expect(receiver.requests[0]?.headers['x-odp-delivery']).toBe('job-1');
  expect(await queue.get('job-1')).toMatchObject({ status: 'done', attempts: 1 });
  expect(lines).toEqual([
    {
      level: 'info',
      message: 'job done',
      fields: expect.objectContaining({
        jobId: 'job-1',
        tenantId: TENANT,
        kind: 'gateway',
        gateway: 'Webhook',
        script: 'notify',
        attempt: 1,
        status: 'done',
      }),
    },
  ]);
  expect(await runner().runOnce()).toBeNull();
});

it('retries a transient failure after 10 s, 60 s and 15 min, then gives up with the last error', async () => {
  await enqueue();
  receiver.respondWith(503, 429, 500, 502);
  const worker = runner();
  const outcomes: (string | undefined)[] = [];
  outcomes.push((await worker.runOnce())?.outcome);
  for (const delay of [10_000, 60_000, 15 * 60_000]) {
    advance(delay - 1);
    expect(await worker.runOnce()).toBeNull();
    advance(1);
    outcomes.push((await worker.runOnce())?.outcome);
  }
  expect(outcomes).toEqual(['retry', 'retry', 'retry', 'failed']);
  expect(receiver.requests).toHaveLength(4);
  expect(await queue.get('job-1')).toMatchObject({
    status: 'failed',
    attempts: 4,
    lastError: 'The webhook answered HTTP 502.',
  });
  expect(exhausted.map((entry) => [entry.job.id, entry.error])).toEqual([
    ['job-1', 'The webhook answered HTTP 502.'],
  ]);
  advance(24 * 3_600_000);
  expect(await worker.runOnce()).toBeNull();
});

it('fails bad parameters before any call: nothing counted, no usage record', async () => {
  limits['webhook'] = { calls: 1, window: 'HOURS', units: null, budgetEur: null };
  await queue.enqueue([
    {
      id: 'plain-http',
      tenantId: TENANT,
      kind: 'gateway',
      objectId: 'o1',
      payload: { gateway: 'Webhook', script: 'notify', parameters: { url: 'http://example.test/hook' } },
      createdAt: T0.toISOString(),
    },
  ]);
  await enqueue('Webhook', TENANT, 'good');
  const worker = runner();
  expect((await worker.runOnce())?.outcome).toBe('failed');
  expect(await queue.get('plain-http')).toMatchObject({ lastError: 'The webhook url must be HTTPS.' });
  expect(usageRecords).toEqual([]);
  expect((await worker.runOnce())?.outcome).toBe('done');
  expect(usageRecords).toEqual([expect.objectContaining({ service: 'webhook', success: true })]);
});

it('does not retry a 4xx other than 429, nor write the exhaustion entry', async () => {
  await enqueue();
  receiver.respondWith(404);
  expect((await runner().runOnce())?.outcome).toBe('failed');
  expect(await queue.get('job-1')).toMatchObject({ status: 'failed', attempts: 1 });
  expect(exhausted).toEqual([]);
  expect(lines[0]).toMatchObject({ level: 'error', message: 'job failed' });
});

it('fails a gateway this release does not run, and a job of a deleted tenant, without retry', async () => {
  await enqueue('DatastoreReplicator', TENANT, 'invite');
  await enqueue('Webhook', 'c0c0c0c0-0000-4000-8000-00000000dead', 'gone');
  const worker = runner();
  await worker.runOnce();
  await worker.runOnce();
  expect(await queue.get('invite')).toMatchObject({
    status: 'failed',
    lastError: 'The DatastoreReplicator gateway is not available in this release.',
  });
  expect(await queue.get('gone')).toMatchObject({
    status: 'failed',
    lastError: expect.stringContaining('tenant'),
  });
  expect(receiver.requests).toEqual([]);
});

it('writes one usage record per webhook call; past the rate limit the try is refused and retried like a 429', async () => {
  limits['webhook'] = { calls: 1, window: 'HOURS', units: null, budgetEur: null };
  await enqueue('Webhook', TENANT, 'first');
  await enqueue('Webhook', TENANT, 'second');
  const worker = runner();
  expect((await worker.runOnce())?.outcome).toBe('done');
  expect((await worker.runOnce())?.outcome).toBe('retry');
  expect(receiver.requests).toHaveLength(1);
  expect(await queue.get('second')).toMatchObject({
    status: 'pending',
    lastError:
      'The rate limit of the service webhook is reached (1 call per hour); it resets at 2030-01-01T01:00:00.000Z.',
  });
  expect(usageRecords).toEqual([
    expect.objectContaining({ service: 'webhook', success: true, reference: null, cost: 0, costLocal: 0 }),
  ]);
  // 10 s later the hour has not rolled over: refused again; after the 60 s and 15 min retries too.
  for (const delay of [10_000, 60_000, 15 * 60_000]) {
    advance(delay);
    await worker.runOnce();
  }
  expect(await queue.get('second')).toMatchObject({ status: 'failed', attempts: 4 });
  expect(exhausted.map((entry) => entry.job.id)).toEqual(['second']);
  expect(receiver.requests).toHaveLength(1);
});

it('runs the job of a worker that died holding it once more after the lease', async () => {
  await enqueue();
  await queue.claim('dead-worker', 30_000, clock);
  const survivor = runner('w2');
  expect(await survivor.runOnce()).toBeNull();
  advance(30_000);
  expect((await survivor.runOnce())?.outcome).toBe('done');
  expect(await queue.get('job-1')).toMatchObject({ status: 'done', attempts: 2 });
  expect(receiver.requests).toHaveLength(1);
});

it('runs until stopped, picking up jobs as they come', async () => {
  const worker = runner();
  worker.start({ pollMs: 20 });
  await enqueue('Webhook', TENANT, 'a');
  worker.poke();
  await receiver.waitFor(1, 5000);
  await enqueue('Webhook', TENANT, 'b');
  await receiver.waitFor(2, 5000);
  await worker.stop();
  expect((await queue.list({ tenantId: TENANT, limit: 10 })).map((job) => job.status)).toEqual([
    'done',
    'done',
  ]);
});

it('sends the e-mail of a Mail job to the SMTP server, and fails it without a configured server', async () => {
  const smtp = await startSmtpReceiver();
  try {
    const parameters = { to: 'ann@example.test', subject: 'Hello', body: 'Invoice sent' };
    const enqueueMail = (id: string) =>
      queue.enqueue([
        {
          id,
          tenantId: TENANT,
          kind: 'gateway',
          objectId: 'o1',
          payload: { gateway: 'Mail', script: 'mailClient', parameters },
          createdAt: T0.toISOString(),
        },
      ]);
    await enqueueMail('unconfigured');
    expect((await runner().runOnce())?.outcome).toBe('failed');
    expect(await queue.get('unconfigured')).toMatchObject({
      lastError: 'No mail server is configured (ODP_SMTP_URL).',
    });
    mail = new MailGateway({ smtpUrl: smtp.url, from: 'no-reply@odp.example.test' });
    await enqueueMail('mail-1');
    expect((await runner().runOnce())?.outcome).toBe('done');
    expect(usageRecords).toEqual([expect.objectContaining({ service: 'mail', success: true })]);
    const [message] = await smtp.waitFor(1);
    expect(message).toMatchObject({ to: ['ann@example.test'], subject: 'Hello' });
    expect(message?.headers['x-odp-delivery']).toBe('mail-1');
  } finally {
    mail?.close();
    await smtp.close();
  }
});

it('runs several jobs at once: a receiver that does not answer holds up only its own job', async () => {
  receiver.respondWith('hang');
  const worker = runner('w1', 1500);
  worker.start({ pollMs: 20, concurrency: 2 });
  await enqueue('Webhook', TENANT, 'slow');
  await receiver.waitFor(1, 5000);
  await enqueue('Webhook', TENANT, 'fast');
  worker.poke();
  await receiver.waitFor(2, 5000);
  const deadline = Date.now() + 5000;
  while ((await queue.get('fast'))?.status !== 'done' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(await queue.get('fast')).toMatchObject({ status: 'done' });
  expect(await queue.get('slow')).toMatchObject({ status: 'running' });
  await worker.stop();
  expect(await queue.get('slow')).toMatchObject({
    status: 'pending',
    lastError: expect.stringContaining('timed out'),
  });
});
