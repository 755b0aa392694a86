/**
 * The background half through real processes (docs/worker.md): scripts fired by writes and by
 * `POST /scripts/...`, delivered by the worker to a real HTTPS receiver on 127.0.0.1 (reachable only
 * because the test configuration lists it in ODP_GATEWAY_ALLOWED_NETWORKS), the job list under
 * `/admin/{tenant}/jobs`, and, with the api and separate worker processes on each job queue
 * (`ODP_JOBS=sqlite`, and `agenda` when a MongoDB runs): two workers without
 * duplicates, and a worker killed with SIGKILL in the middle of a job.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { describeWithEngine } from '@odp/testkit';
import { startHttpsReceiver, startSmtpReceiver } from '@odp/gateways/testing';
import type { HttpsReceiver, ReceivedRequest, SmtpReceiver } from '@odp/gateways/testing';
import { DEMO, DataApi, startDataServer } from './data-api.js';
import type { Json } from './data-api.js';
import { createProfile, createProfileKey } from './support/accounts.js';
import { createSystemObject, jobsOf, runScript as runObjectScript, settled } from './support/jobs.js';
import { REPO_ROOT, startServer } from './support/server.js';
import { startWorkerProcess } from './support/workers.js';
import type { WorkerProcess } from './support/workers.js';

jest.setTimeout(60_000);

/** The server's log line of the job (waits for it: output arrives through a pipe). */
async function logLine(api: DataApi, jobId: string, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = api.server
      .output()
      .split('\n')
      .find((candidate) => candidate.includes(`"jobId":"${jobId}"`));
    if (line !== undefined) return line;
    if (Date.now() > deadline) throw new Error(`no log line for job ${jobId}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function verifySignature(request: ReceivedRequest, secret: string): boolean {
  const timestamp = String(request.headers['x-odp-timestamp']);
  const signed = `${timestamp}\n${request.method}\n${request.url}\n${request.body}`;
  const expected = `sha256=${createHmac('sha256', secret).update(signed).digest('hex')}`;
  return request.headers['x-odp-signature'] === expected;
}

async function setWebhookUrl(api: DataApi, url: string): Promise<void> {
  await createSystemObject(api, 'systemSettings', { name: 'accountantWebhookUrl', value: url });
}

/** Runs a script of an invoice. */
const runScript = (api: DataApi, id: string, script: string, key?: string) =>
  runObjectScript(api, 'invoices', id, script, key);

describe('worker inside pnpm start', () => {
  let receiver: HttpsReceiver;
  let api: DataApi;
  let secret: string;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    api = await startDataServer({
      env: {
        ODP_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32',
        ODP_GATEWAY_CA_FILE: receiver.caFile,
        ODP_WORKER_POLL_MS: '50',
      },
    });
    secret = String((await api.server.odp(['model', 'webhook', '--tenant', api.tenant]))['secret']);
    await setWebhookUrl(api, `${receiver.origin}/hook`);
  });
  afterAll(async () => {
    await api?.server.stop();
    await receiver?.close();
  });
  beforeEach(() => receiver.requests.splice(0));

  it('delivers the signed webhook of an update that meets the condition, once', async () => {
    const res = await api.call('PATCH', `/invoices/${DEMO.invoice2}`, { body: { status: 'sent' } });
    expect(res.status).toBe(204);
    const [job, ...others] = await jobsOf(api, `?object=${DEMO.invoice2}`);
    expect(others).toEqual([]);
    expect(job).toMatchObject({
      gateway: 'Webhook',
      script: 'notifyAccountant',
      trigger: 'UPDATE',
      object: api.href('invoices', DEMO.invoice2),
    });
    expect(await settled(api, job!.id)).toMatchObject({ status: 'done', attempts: 1, lastError: null });
    const [request] = await receiver.waitFor(1);
    expect(request).toMatchObject({ method: 'POST', url: '/hook' });
    const body = JSON.parse(request!.body) as Json;
    expect(body).toMatchObject({ invoice: api.href('invoices', DEMO.invoice2) });
    expect(String(body['summary'])).toMatch(/^Invoice 2026-0002 for .+ \(status sent\)$/);
    expect(Number(body['total'])).toBeGreaterThan(0);
    expect(request!.headers).toMatchObject({
      'x-source': 'odp',
      'content-type': 'application/json',
      'x-odp-delivery': job!.id,
    });
    expect(verifySignature(request!, secret)).toBe(true);
    expect(verifySignature(request!, 'another secret')).toBe(false);
    // The job's log line is written after its status; it reaches the output a moment later.
    const logged = await logLine(api, job!.id);
    expect(JSON.parse(logged)).toMatchObject({
      level: 'info',
      message: 'job done',
      jobId: job!.id,
      gateway: 'Webhook',
      script: 'notifyAccountant',
      status: 'done',
      attempt: 1,
    });
    expect(logged).not.toContain(receiver.origin);
  });

  it('fires nothing for a write that is refused or does not meet the condition', async () => {
    const before = (await jobsOf(api, `?object=${DEMO.invoice1}`)).length;
    const refused = await api.call('PATCH', `/invoices/${DEMO.invoice1}`, {
      body: { status: 'sent', amount: 'many' },
    });
    expect(refused.status).toBe(400);
    const draft = await api.call('PATCH', `/invoices/${DEMO.invoice3}`, { body: { internalNote: 'x' } });
    expect(draft.status).toBe(204);
    expect(await jobsOf(api, `?object=${DEMO.invoice1}`)).toHaveLength(before);
    expect(await jobsOf(api, `?object=${DEMO.invoice3}`)).toEqual([]);
  });

  it('runs a MANUAL script: 202, then the delivery', async () => {
    const res = await runScript(api, DEMO.invoice1, 'notifyAccountant');
    expect(res.status).toBe(202);
    const body = (await res.json()) as { queued: boolean; job: { id: string; href: string } };
    expect(body.queued).toBe(true);
    expect(await settled(api, body.job.id)).toMatchObject({ status: 'done', trigger: 'MANUAL' });
    const one = await fetch(`${api.server.baseUrl}${body.job.href}`, {
      headers: { 'X-API-Key': api.systemKey },
    });
    expect(one.status).toBe(200);
    expect(await one.json()).toMatchObject({ id: body.job.id, status: 'done' });
    const [request] = await receiver.waitFor(1);
    expect(JSON.parse(request!.body)).toMatchObject({ invoice: api.href('invoices', DEMO.invoice1) });
  });

  it('answers a MANUAL script whose condition is false with 202 and queues nothing', async () => {
    const res = await runScript(api, DEMO.invoice3, 'notifyAccountant');
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ queued: false });
    expect(await jobsOf(api, `?object=${DEMO.invoice3}`)).toEqual([]);
  });

  it('refuses MANUAL runs: unknown script or object 404, viewer 403, other tenants 401', async () => {
    expect((await runScript(api, DEMO.invoice1, 'nope')).status).toBe(404);
    expect((await runScript(api, DEMO.invoice1, 'setDueDate')).status).toBe(404);
    expect((await runScript(api, '00000000-0000-4000-8000-000000000000', 'notifyAccountant')).status).toBe(
      404,
    );
    expect((await runScript(api, 'not-a-uuid', 'notifyAccountant')).status).toBe(404);
    const viewer = await createProfileKey(
      api,
      await createProfile(api, { sub: 'script-viewer', role: 'viewer' }),
    );
    const forbidden = await runScript(api, DEMO.invoice1, 'notifyAccountant', viewer);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('content-type')).toContain('application/problem+json');
    expect((await runScript(api, DEMO.invoice1, 'notifyAccountant', 'odp_unknown')).status).toBe(401);
  });

  it('does not retry a 4xx answer and shows the error in the job list', async () => {
    receiver.respondWith(410);
    const res = await runScript(api, DEMO.invoice1, 'notifyAccountant');
    const { job } = (await res.json()) as { job: { id: string } };
    expect(await settled(api, job.id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastError: 'The webhook answered HTTP 410.',
    });
    expect(receiver.requests).toHaveLength(1);
  });

  it('shows jobs to admins only and validates the size', async () => {
    const member = await createProfileKey(
      api,
      await createProfile(api, { sub: 'jobs-member', role: 'member' }),
    );
    const res = await fetch(`${api.server.baseUrl}/admin/${api.tenant}/jobs`, {
      headers: { 'X-API-Key': member },
    });
    expect(res.status).toBe(403);
    const bad = await fetch(`${api.server.baseUrl}/admin/${api.tenant}/jobs?size=0`, {
      headers: { 'X-API-Key': api.systemKey },
    });
    expect(bad.status).toBe(400);
    const all = await jobsOf(api);
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(all)).not.toContain(receiver.origin);
    const missing = await fetch(`${api.server.baseUrl}/admin/${api.tenant}/jobs/nope`, {
      headers: { 'X-API-Key': api.systemKey },
    });
    expect(missing.status).toBe(404);
  });
});

describe('secret values', () => {
  let receiver: HttpsReceiver;
  let api: DataApi;
  const TOKEN = 's3cr3t-t0ken-value';
  const post = (body: unknown, key?: string | null) =>
    fetch(`${api.server.baseUrl}/system/${api.tenant}/secretValues`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(key === null ? {} : { 'X-API-Key': key ?? api.systemKey }),
      },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    api = await startDataServer({
      env: {
        ODP_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32',
        ODP_GATEWAY_CA_FILE: receiver.caFile,
        ODP_WORKER_POLL_MS: '50',
      },
    });
  });
  afterAll(async () => {
    await api?.server.stop();
    await receiver?.close();
  });

  it('stores a secret value: 201, replaced: 200, never returned', async () => {
    const created = await post({ name: 'accountantWebhookUrl', secretValue: 'https://first.example.test/' });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ name: 'accountantWebhookUrl' });
    const replaced = await post({
      name: 'accountantWebhookUrl',
      secretValue: `${receiver.origin}/hook?token=${TOKEN}`,
    });
    expect(replaced.status).toBe(200);
    const listed = await fetch(`${api.server.baseUrl}/system/${api.tenant}/secretValues`, {
      headers: { 'X-API-Key': api.systemKey },
    });
    expect(listed.status).toBe(200);
    const text = await listed.text();
    expect(text).toContain('accountantWebhookUrl');
    expect(text).not.toContain(TOKEN);
  });

  it('refuses bad bodies (400), non-admins (403) and no credential (401), never echoing the value', async () => {
    const bad = await post({ name: '', secretValue: `x${TOKEN}` });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(await bad.text()).not.toContain(TOKEN);
    expect((await post({ name: 'n' })).status).toBe(400);
    const member = await createProfileKey(
      api,
      await createProfile(api, { sub: 'secret-member', role: 'member' }),
    );
    expect((await post({ name: 'n', secretValue: 'v' }, member)).status).toBe(403);
    expect((await post({ name: 'n', secretValue: 'v' }, null)).status).toBe(401);
  });

  it('resolves systemSetting() in gateway parameters, keeping it out of the job store and the log', async () => {
    const res = await runScript(api, DEMO.invoice1, 'notifyAccountant');
    expect(res.status).toBe(202);
    const { job } = (await res.json()) as { job: { id: string } };
    expect(await settled(api, job.id)).toMatchObject({ status: 'done' });
    const [request] = await receiver.waitFor(1);
    expect(request?.url).toBe(`/hook?token=${TOKEN}`);
    // The queue is in WAL mode: recent rows are in the -wal file, older ones in the database file.
    for (const file of ['jobs.sqlite', 'jobs.sqlite-wal']) {
      const bytes = readFileSync(path.join(api.server.dataDir, file)).toString('latin1');
      expect(bytes).not.toContain(TOKEN);
    }
    expect(readFileSync(path.join(api.server.dataDir, 'jobs.sqlite-wal')).toString('latin1')).toContain(
      job.id,
    );
    expect(api.server.output()).not.toContain(TOKEN);
    expect(JSON.stringify(await jobsOf(api))).not.toContain(TOKEN);
  });
});

describe('usage records under /system', () => {
  let api: DataApi;
  const ids: string[] = [];
  const get = (route: string, key?: string) =>
    fetch(`${api.server.baseUrl}/system/${api.tenant}/serviceCallLogs${route}`, {
      headers: { 'X-API-Key': key ?? api.systemKey },
    });

  beforeAll(async () => {
    api = await startDataServer();
    const record = (service: string, costUnits: number, costLocal: number) => ({
      service,
      timestamp: '2026-03-01T10:00:00Z',
      success: true,
      costUnits,
      costUnit: 'tokens',
      cost: costLocal,
      costLocal,
      reference: api.href('invoices', DEMO.invoice1),
    });
    ids.push(await createSystemObject(api, 'serviceCallLogs', record('ai-model', 1200, 0.5)));
    ids.push(await createSystemObject(api, 'serviceCallLogs', record('ai-model', 800, 0.25)));
    ids.push(await createSystemObject(api, 'serviceCallLogs', record('address-enrichment', 1, 0.07)));
  });
  afterAll(async () => {
    await api?.server.stop();
  });

  it('lists them with the data filters, sort and paging, linked under /system', async () => {
    const res = await get('?service=ai-model&sort=costUnits,desc');
    expect(res.status).toBe(200);
    const page = (await res.json()) as {
      _embedded: Record<string, Json[]>;
      _links: Record<string, { href: string }>;
    };
    const rows = Object.values(page._embedded)[0] ?? [];
    expect(rows.map((row) => row['costUnits'])).toEqual([1200, 800]);
    const self = (rows[0]?.['_links'] as { _self: { href: string } })._self.href;
    expect(self).toBe(`/system/${api.tenant}/serviceCallLogs/${ids[0]}`);
    expect(JSON.stringify(page)).not.toContain(`/data/${api.tenant}/serviceCallLogs`);
    const paged = (await (await get('?size=1')).json()) as { _embedded: Record<string, Json[]> };
    expect(Object.values(paged._embedded)[0]).toHaveLength(1);
  });

  it('reads one record, 404 for an unknown id', async () => {
    const res = await get(`/${ids[2]}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ service: 'address-enrichment', costUnits: 1, costLocal: 0.07 });
    expect((await get('/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('aggregates the sum of costUnits and costLocal by default, with filters', async () => {
    const all = (await (await get('/aggregations')).json()) as { total: number; sum: Record<string, number> };
    expect(all.total).toBe(3);
    expect(all.sum['costUnits']).toBe(2001);
    expect(all.sum['costLocal']).toBeCloseTo(0.82, 10);
    const ai = (await (await get('/aggregations?service=ai-model&count=costUnits')).json()) as Json;
    expect(ai).toMatchObject({ total: 2, count: { costUnits: 2 } });
    expect(ai['sum']).toBeUndefined();
  });

  it('is for admins only', async () => {
    const member = await createProfileKey(
      api,
      await createProfile(api, { sub: 'usage-member', role: 'member' }),
    );
    expect((await get('', member)).status).toBe(403);
    expect((await api.call('GET', '/serviceCallLogs', { key: member })).status).toBe(404);
  });
});

describe('Mail over SMTP', () => {
  let smtp: SmtpReceiver;
  let api: DataApi;
  let modelDir: string;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    // The example CRM with a MANUAL Mail script on invoices, in a tenant of its own.
    modelDir = mkdtempSync(path.join(os.tmpdir(), 'odp-mail-model-'));
    cpSync(path.join(REPO_ROOT, 'examples/models/crm'), modelDir, { recursive: true });
    const file = path.join(modelDir, 'classes/crm/invoice.json');
    const invoice = JSON.parse(readFileSync(file, 'utf8')) as { scripts: unknown[] };
    invoice.scripts.push({
      name: 'mailContact',
      type: 'CONSUMER_GATEWAY',
      gateway: 'Mail',
      scope: 'OBJECT',
      trigger: ['MANUAL'],
      condition: 'contact != null',
      parameters: [
        { name: 'to', formula: 'contact.email' },
        { name: 'subject', formula: "concat('Invoice ', invoiceNumber)" },
        { name: 'body', templateFile: 'templates/invoice-summary.hbs' },
        { name: 'ctaHref', formula: "concat(sysInfo('baseUrl'), _href)" },
        { name: 'ctaName', value: 'Open the invoice' },
      ],
    });
    writeFileSync(file, JSON.stringify(invoice));
    const server = await startServer({
      env: {
        ODP_SMTP_URL: smtp.url,
        ODP_MAIL_FROM: 'ODP <no-reply@odp.example.test>',
        ODP_WORKER_POLL_MS: '50',
      },
    });
    const tenant = await server.odp(['tenant', 'create', '--name', 'mail', '--model', modelDir]);
    const key = await server.odp(['key', 'create', '--tenant', String(tenant['id'])]);
    api = new DataApi(server, String(tenant['id']), String(key['key']));
    expect((await api.call('POST', '/loadDefaultData')).status).toBe(200);
  });
  afterAll(async () => {
    await api?.server.stop();
    await smtp?.close();
    rmSync(modelDir, { recursive: true, force: true });
  });

  it('sends the e-mail of a MANUAL Mail script to the contact, rendered from its template', async () => {
    const res = await fetch(
      `${api.server.baseUrl}/scripts/${api.tenant}/invoices/${DEMO.invoice1}/mailContact`,
      {
        method: 'POST',
        headers: { 'X-API-Key': api.systemKey },
      },
    );
    expect(res.status).toBe(202);
    const { job } = (await res.json()) as { job: { id: string } };
    expect(await settled(api, job.id)).toMatchObject({ status: 'done', gateway: 'Mail', attempts: 1 });
    const [mail] = await smtp.waitFor(1);
    expect(mail).toMatchObject({
      from: 'no-reply@odp.example.test',
      to: ['ann@acme.example'],
      subject: 'Invoice 2026-0001',
    });
    expect(mail?.text).toMatch(/^Invoice 2026-0001 for .+: 1210 \(status sent\)/);
    expect(mail?.text).toContain(
      `Open the invoice: ${api.server.baseUrl}${api.href('invoices', DEMO.invoice1)}`,
    );
    expect(mail?.html).toContain(`href="${api.server.baseUrl}${api.href('invoices', DEMO.invoice1)}"`);
    expect(mail?.headers['x-odp-delivery']).toBe(job.id);
  });

  it('sends a text template as text whatever markup its values hold: escaped in the HTML part', async () => {
    smtp.messages.splice(0);
    const markup = '<a href="https://evil.example/">Pay now</a><script>alert(1)</script>';
    const patched = await api.call('PATCH', `/invoices/${DEMO.invoice1}`, {
      body: { invoiceNumber: markup },
    });
    expect(patched.status).toBe(204);
    const res = await fetch(
      `${api.server.baseUrl}/scripts/${api.tenant}/invoices/${DEMO.invoice1}/mailContact`,
      { method: 'POST', headers: { 'X-API-Key': api.systemKey } },
    );
    const { job } = (await res.json()) as { job: { id: string } };
    expect(await settled(api, job.id)).toMatchObject({ status: 'done' });
    const [mail] = await smtp.waitFor(1);
    expect(mail?.text).toContain(`Invoice ${markup} for`);
    expect(mail?.html).not.toContain('<script>');
    expect(mail?.html).not.toContain('href="https://evil.example/"');
    expect(mail?.html).toContain('Invoice &lt;a href=&quot;https://evil.example/&quot;&gt;Pay now&lt;/a&gt;');
  });

  it('queues nothing for an invoice without a contact (the condition)', async () => {
    const res = await fetch(
      `${api.server.baseUrl}/scripts/${api.tenant}/invoices/${DEMO.invoice2}/mailContact`,
      {
        method: 'POST',
        headers: { 'X-API-Key': api.systemKey },
      },
    );
    expect(await res.json()).toMatchObject({ queued: false });
  });
});

describe('without the test allow-list', () => {
  let receiver: HttpsReceiver;
  let api: DataApi;
  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    api = await startDataServer({ env: { ODP_GATEWAY_CA_FILE: receiver.caFile, ODP_WORKER_POLL_MS: '50' } });
  });
  afterAll(async () => {
    await api?.server.stop();
    await receiver?.close();
  });

  it('refuses to call 127.0.0.1 and never connects', async () => {
    await setWebhookUrl(api, `${receiver.origin}/hook`);
    const res = await runScript(api, DEMO.invoice1, 'notifyAccountant');
    const { job } = (await res.json()) as { job: { id: string } };
    const settledJob = await settled(api, job.id);
    expect(settledJob).toMatchObject({ status: 'failed', attempts: 1 });
    expect(settledJob.lastError).toContain('127.0.0.1');
    expect(receiver.requests).toEqual([]);
  });
});

/**
 * The api alone and separate worker processes on the job queue `queueEnv` selects (`ODP_JOBS`):
 * jobs queued while no worker runs, two workers without duplicates, a worker killed mid-job.
 */
function describeScaleOut(queue: 'sqlite' | 'agenda', queueEnv: Record<string, string>): void {
  describe(`scale-out: the api and separate worker processes, jobs in ${queue}`, () => {
    let receiver: HttpsReceiver;
    let dataDir: string;
    let api: DataApi;
    const workers: WorkerProcess[] = [];
    let env: Record<string, string>;

    async function startWorker(): Promise<WorkerProcess> {
      const worker = await startWorkerProcess(env);
      workers.push(worker);
      return worker;
    }

    beforeAll(async () => {
      receiver = await startHttpsReceiver();
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-worker-'));
      env = {
        ODP_DATA_DIR: dataDir,
        ODP_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32',
        ODP_GATEWAY_CA_FILE: receiver.caFile,
        ODP_WORKER_POLL_MS: '50',
        ODP_WORKER_LEASE_MS: '3000',
        ODP_WORKER_SWEEP_MS: '500',
        ...queueEnv,
      };
      // The first start creates the demo tenant; the api then runs alone on the same data.
      const first = await startDataServer({ dataDir, env });
      await first.server.stop();
      const server = await startServer({ dataDir, entry: 'api', env });
      api = new DataApi(server, first.tenant, first.systemKey);
      await setWebhookUrl(api, `${receiver.origin}/hook`);
    });
    afterAll(async () => {
      await Promise.all(workers.map((worker) => worker.kill()));
      await api?.server.stop();
      await receiver?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('queues jobs while no worker runs; two workers then deliver each exactly once', async () => {
      const queued: string[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await runScript(api, DEMO.invoice1, 'notifyAccountant');
        expect(res.status).toBe(202);
        queued.push(((await res.json()) as { job: { id: string } }).job.id);
      }
      expect((await jobsOf(api, `?object=${DEMO.invoice1}`)).every((job) => job.status === 'pending')).toBe(
        true,
      );
      expect(existsSync(path.join(dataDir, 'jobs.sqlite'))).toBe(queue === 'sqlite');
      const [a, b] = await Promise.all([startWorker(), startWorker()]);
      for (const id of queued) expect(await settled(api, id)).toMatchObject({ status: 'done', attempts: 1 });
      const deliveries = receiver.requests.map((request) => String(request.headers['x-odp-delivery']));
      expect(deliveries.sort()).toEqual([...queued].sort());
      expect(await Promise.all([a!.stop(), b!.stop()])).toEqual([0, 0]);
    });

    it('re-runs the job of a worker killed with SIGKILL in the middle of it exactly once more', async () => {
      receiver.requests.splice(0);
      receiver.respondWith('hang');
      const victim = await startWorker();
      const res = await runScript(api, DEMO.invoice1, 'notifyAccountant');
      const { job } = (await res.json()) as { job: { id: string } };
      await receiver.waitFor(1);
      await victim.kill();
      const [running] = (await jobsOf(api, `?object=${DEMO.invoice1}`)).filter(
        (entry) => entry.id === job.id,
      );
      expect(running).toMatchObject({ status: 'running', attempts: 1 });
      await startWorker();
      expect(await settled(api, job.id)).toMatchObject({ status: 'done', attempts: 2 });
      // Another lease period later, nothing more has been delivered.
      await new Promise((resolve) => setTimeout(resolve, 3500));
      expect(receiver.requests.map((request) => request.headers['x-odp-delivery'])).toEqual([job.id, job.id]);
      expect(
        (await jobsOf(api, `?object=${DEMO.invoice1}`)).find((entry) => entry.id === job.id),
      ).toMatchObject({
        status: 'done',
        attempts: 2,
      });
    });
  });
}

describeScaleOut('sqlite', { ODP_JOBS: 'sqlite' });

describeWithEngine('scale-out on the agenda job queue', 'ODP_TEST_MONGODB_URL', (mongodbUrl) => {
  const database = `odp_test_worker_${randomUUID().slice(0, 8)}`;
  afterAll(async () => {
    const client = await MongoClient.connect(mongodbUrl);
    await client.db(database).dropDatabase();
    await client.close();
  });
  describeScaleOut('agenda', {
    ODP_JOBS: 'agenda',
    ODP_MONGODB_URL: mongodbUrl,
    ODP_JOBS_AGENDA_DATABASE: database,
  });
});
