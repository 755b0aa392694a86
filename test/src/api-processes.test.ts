/**
 * The embedded api as two processes over one data directory (`ODP_API_PROCESSES=2`), driven over
 * HTTP. Each request that must reach "the other process" goes on a connection of its own: the
 * primary hands each new connection to the next process in turn, so consecutive fresh connections
 * alternate between the two (a keep-alive connection stays with one process). A write is read on
 * every connection; an event stream hears, well before its heartbeat poll, every write of a series
 * that alternates between the processes; a model reloaded through one is served by both; the
 * rate limit of an external service holds across both; a process killed with SIGKILL is replaced
 * while the other keeps answering; SIGTERM stops them all gracefully.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startHttpsReceiver } from '@odp/gateways/testing';
import type { HttpsReceiver } from '@odp/gateways/testing';
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';
import { createAccount } from './support/accounts.js';
import { openEventStream } from './support/event-stream.js';
import type { EventStreamClient } from './support/event-stream.js';
import { createSystemObject, settled } from './support/jobs.js';
import { REPO_ROOT } from './support/server.js';
import type { TestServer } from './support/server.js';

jest.setTimeout(120_000);

const PROCESSES = 2;
/** Well below the event stream's 15 s heartbeat poll: an event this fast came through a wake-up. */
const PROMPT_MS = 3000;
const WEBHOOK_CALLS = 2;

interface Answer {
  readonly status: number;
  readonly body: string;
  /** The id at the end of the `Location` header (a create's new object); '' without one. */
  readonly createdId: string;
}

/** One request on a connection of its own, closed after the response (no keep-alive). */
function fresh(
  server: TestServer,
  method: string,
  route: string,
  key: string,
  body?: unknown,
): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'X-API-Key': key, Connection: 'close' };
    if (payload !== undefined) headers['Content-Type'] = 'application/json';
    const request = http.request(`${server.baseUrl}${route}`, { method, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: text,
          createdId: (res.headers.location ?? '').slice(-36),
        }),
      );
    });
    request.on('error', reject);
    request.end(payload);
  });
}

/** The same request on `count` fresh connections, one after the other (so on both processes). */
async function onEveryProcess(count: number, ask: () => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i++) answers.push(await ask());
  return answers;
}

/** The api processes the primary runs (its child processes). */
function apiProcesses(server: TestServer): number[] {
  const children = readFileSync(`/proc/${server.pid}/task/${server.pid}/children`, 'utf8');
  return children.split(/\s+/).filter(Boolean).map(Number);
}

async function waitFor(
  what: string,
  ok: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the embedded api as two processes over one data directory', () => {
  let receiver: HttpsReceiver;
  let api: DataApi;
  let server: TestServer;
  const streams: EventStreamClient[] = [];
  const get = (route: string, key = api.systemKey) => fresh(server, 'GET', route, key);

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    api = await startDataServer({
      env: {
        ODP_API_PROCESSES: String(PROCESSES),
        ODP_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32',
        ODP_GATEWAY_CA_FILE: receiver.caFile,
        ODP_WORKER_POLL_MS: '50',
        ODP_RATE_LIMITS: JSON.stringify({ services: { webhook: { calls: WEBHOOK_CALLS, window: 'DAYS' } } }),
      },
    });
    server = api.server;
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it('runs the configured number of api processes under one primary', () => {
    expect(apiProcesses(server)).toHaveLength(PROCESSES);
  });

  it('reads a write made through one connection on every other, and a change of it too', async () => {
    const created = await fresh(server, 'POST', api.path('/companies'), api.systemKey, {
      legalName: 'Written once',
    });
    expect(created.status).toBe(201);
    const href = api.href('companies', created.createdId);
    for (const answer of await onEveryProcess(4, () => get(href))) {
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ legalName: 'Written once' });
    }
    expect((await fresh(server, 'PATCH', href, api.systemKey, { legalName: 'Written twice' })).status).toBe(
      204,
    );
    for (const answer of await onEveryProcess(4, () => get(href))) {
      expect(JSON.parse(answer.body)).toMatchObject({ legalName: 'Written twice' });
    }
  });

  it('applies access granted or revoked through one process on the very next request to the other', async () => {
    const bob = await createAccount(api, { name: 'bob', role: 'viewer', objectId: DEMO.bob });
    const created = await fresh(server, 'POST', api.path('/companies'), api.systemKey, { legalName: 'Held' });
    const href = api.href('companies', created.createdId);
    const asBob = () => onEveryProcess(4, () => get(href, bob.key));
    // Both processes now remember what Bob holds (nothing).
    expect((await asBob()).map((answer) => answer.status)).toEqual([404, 404, 404, 404]);
    const employees = (persons: string[]) =>
      fresh(server, 'PATCH', href, api.systemKey, { employees: persons });
    expect((await employees([api.href('persons', DEMO.bob)])).status).toBe(204);
    expect((await asBob()).map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect((await employees([])).status).toBe(204);
    expect((await asBob()).map((answer) => answer.status)).toEqual([404, 404, 404, 404]);
  });

  it('wakes every event stream, on either process, for each write of a series that alternates between them', async () => {
    for (let i = 0; i < 4; i++) {
      const opened = await openEventStream(api);
      expect(opened.response.status).toBe(200);
      streams.push(opened);
    }
    for (let i = 0; i < 6; i++) {
      const created = await fresh(server, 'POST', api.path('/companies'), api.systemKey, {
        legalName: `Streamed ${i}`,
      });
      expect(created.status).toBe(201);
      // Each stream must hear this write now, whichever process it and the write are on: a stream
      // woken only by writes of its own process would wait for its heartbeat poll.
      for (const stream of streams) {
        const [event] = await stream.take(1, PROMPT_MS);
        expect(event).toMatchObject({ event: 'create' });
        expect(event?.data['href']).toBe(api.href('companies', created.createdId));
      }
    }
  });

  it('serves a model reloaded through one process from both', async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'odp-processes-model-'));
    try {
      cpSync(path.join(REPO_ROOT, 'examples/models/crm'), repo, { recursive: true });
      const tenant = String(
        (await server.odp(['tenant', 'create', '--name', 'Reloaded', '--model', repo]))['id'],
      );
      const key = String((await server.odp(['key', 'create', '--tenant', tenant]))['key']);
      const openApi = () => get(`/metadata/${tenant}/openapi.json`, key);
      for (const answer of await onEveryProcess(4, openApi)) {
        expect(answer.status).toBe(200);
        expect(answer.body).not.toContain('nickname');
      }
      const companyFile = path.join(repo, 'classes/crm/company.json');
      const company = JSON.parse(readFileSync(companyFile, 'utf8')) as { fields: Json[] };
      company.fields.push({ name: 'nickname', type: 'TEXT' });
      writeFileSync(companyFile, JSON.stringify(company));

      const reloaded = await fresh(server, 'POST', `/admin/${tenant}/reloadModel`, key);
      expect(reloaded.status).toBe(200);
      // The other process reloads on the announcement, as soon as it arrives.
      await waitFor('the new model on both processes', async () =>
        (await onEveryProcess(4, openApi)).every((answer) => answer.body.includes('nickname')),
      );
      for (const answer of await onEveryProcess(4, () =>
        fresh(server, 'POST', `/data/${tenant}/companies`, key, { legalName: 'Nicknamed', nickname: 'N' }),
      )) {
        expect(answer.status).toBe(201);
      }
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it("holds an external service's rate limit across both processes", async () => {
    await createSystemObject(api, 'systemSettings', {
      name: 'accountantWebhookUrl',
      value: `${receiver.origin}/hook`,
    });
    const script = `/scripts/${api.tenant}/invoices/${DEMO.invoice1}/notifyAccountant`;
    for (let i = 0; i < WEBHOOK_CALLS; i++) {
      const queued = await fresh(server, 'POST', script, api.systemKey);
      expect(queued.status).toBe(202);
      const job = (JSON.parse(queued.body) as { job: { id: string } }).job;
      expect(await settled(api, job.id)).toMatchObject({ status: 'done' });
    }
    for (const answer of await onEveryProcess(4, () => fresh(server, 'POST', script, api.systemKey))) {
      expect(answer.status).toBe(429);
    }
    expect(receiver.requests).toHaveLength(WEBHOOK_CALLS);
  });

  it('replaces a process killed with SIGKILL while the other keeps answering', async () => {
    const [killed, survivor] = apiProcesses(server);
    process.kill(killed ?? 0, 'SIGKILL');
    await waitFor('the primary to see the process end', () => !apiProcesses(server).includes(killed ?? 0));
    for (const answer of await onEveryProcess(4, () => get(api.href('companies', DEMO.acme)))) {
      expect(answer.status).toBe(200);
    }
    await waitFor('a replacement', () => apiProcesses(server).length === PROCESSES);
    await waitFor('the replacement to listen', () =>
      server.output().includes('api process ended; starting another'),
    );
    const now = apiProcesses(server);
    expect(now).toContain(survivor);
    expect(now).not.toContain(killed);
    await waitFor('both processes to answer', async () =>
      (await onEveryProcess(4, () => get(api.href('companies', DEMO.acme)))).every((a) => a.status === 200),
    );
  });

  it('stops every process on SIGTERM, with exit code 0', async () => {
    const children = apiProcesses(server);
    expect(await server.stop()).toBe(0);
    for (const pid of children) expect(existsSync(`/proc/${pid}`)).toBe(false);
  });
});
