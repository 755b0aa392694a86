/**
 * The scale-out deployment as machines that share nothing but the engines: two api instances and
 * two workers, each with its own empty ODP_DATA_DIR, over MongoDB (the wire server), Elasticsearch,
 * MinIO and Redis, with agenda as the job queue, behind a round-robin proxy that is the
 * deployment's public address (ODP_BASE_URL). Through the proxy: writes and reads, a file uploaded
 * through one instance and downloaded through the other, an event stream on one instance that sees
 * the writes of the other, gateway jobs each delivered once by two workers, a service's rate limit
 * held across the four processes, replicated changes flushed once to the warehouse (BigQuery's API,
 * played by a local stand-in: no BigQuery runs here), a model version stored through one instance
 * or `odp` served by both within seconds, and a tenant deleted everywhere. Afterwards no data directory holds a tenant's data.
 */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeWithEngine } from '@odp/testkit';
import { addCompanyReplicator, startHttpsReceiver } from '@odp/gateways/testing';
import { startBigQueryStandIn } from '@odp/warehouse-bigquery/testing';
import type { BigQueryStandIn, StandInRequest } from '@odp/warehouse-bigquery/testing';
import type { HttpsReceiver } from '@odp/gateways/testing';
import { DEMO, DataApi } from './data-api.js';
import { openEventStream } from './support/event-stream.js';
import type { EventStreamClient } from './support/event-stream.js';
import { createSystemObject, jobsOf, runScript, settled } from './support/jobs.js';
import type { JobView } from './support/jobs.js';
import { addCompanyField } from './support/model-repository.js';
import { startRoundRobinProxy } from './support/round-robin-proxy.js';
import type { RoundRobinProxy } from './support/round-robin-proxy.js';
import { REPO_ROOT, startServer } from './support/server.js';
import type { TestServer } from './support/server.js';
import { startWorkerProcess } from './support/workers.js';
import type { WorkerProcess } from './support/workers.js';

jest.setTimeout(120_000);

/** Webhook calls the tenant may make per day (`ODP_RATE_LIMITS`), across all four processes. */
const CALLS = 8;

/** The tenant's BigQuery service account: its key signs the requests the stand-in verifies. */
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const credentials = JSON.stringify({
  type: 'service_account',
  project_id: 'hosts-analytics',
  private_key_id: 'key-1',
  private_key: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  client_email: 'replicator@hosts-analytics.iam.gserviceaccount.com',
});

/** The object ids a MERGE job of the stand-in wrote or deleted. */
function mergedIds(request: StandInRequest): string[] {
  const query = (request.body?.['configuration'] as { query?: { queryParameters?: unknown[] } } | undefined)
    ?.query;
  const rows = query?.queryParameters?.[0] as
    { parameterValue: { arrayValues: { structValues: { id: { value: string } } }[] } } | undefined;
  return rows?.parameterValue.arrayValues.map((row) => row.structValues.id.value) ?? [];
}

/** Every engine the suite needs; the first one missing skips it with its reason. */
const ENGINES = [
  'ODP_TEST_MONGODB_URL',
  'ODP_TEST_ELASTICSEARCH_URL',
  'ODP_TEST_REDIS_URL',
  'ODP_TEST_S3_ENDPOINT',
] as const;
const missing = ENGINES.find((name) => !process.env[name]?.trim());

/**
 * How long the test waits for an instance to serve a model version made current elsewhere. The
 * switch is announced at once and polled every 2 s; loading the version (and re-deriving a class's
 * rows for a new field) on a machine running every other suite at the same time has taken longer
 * than 5 s. What is asserted is that both instances switch without a restart; how fast is not a
 * test's figure.
 */
const MODEL_SWITCH_MS = 20_000;

describeWithEngine(
  'two api instances and two workers on separate data directories',
  missing ?? ENGINES[0],
  () => {
    const engine = (name: (typeof ENGINES)[number]) => process.env[name]!.trim();
    const run = randomUUID().replace(/-/g, '').slice(0, 12);
    const TENANT_NAME = `Hosts ${run}`;
    let proxy: RoundRobinProxy;
    let receiver: HttpsReceiver;
    let standIn: BigQueryStandIn;
    let modelDir: string;
    const apis: TestServer[] = [];
    const workers: WorkerProcess[] = [];
    const workerDirs: string[] = [];
    const streams: EventStreamClient[] = [];
    /** Through the proxy, and straight to each instance. */
    let balanced: DataApi;
    let direct: [DataApi, DataApi];

    beforeAll(async () => {
      proxy = await startRoundRobinProxy();
      receiver = await startHttpsReceiver();
      standIn = await startBigQueryStandIn(keys.publicKey.export({ type: 'spki', format: 'pem' }).toString());
      modelDir = mkdtempSync(path.join(os.tmpdir(), 'odp-hosts-model-'));
      cpSync(path.join(REPO_ROOT, 'examples/models/crm'), modelDir, { recursive: true });
      addCompanyReplicator(modelDir, { dataset: 'crm', table: 'companies' }, [
        { name: '_flushInterval', value: '1s' },
        { name: 'legalName', formula: 'legalName' },
      ]);
      const env: Record<string, string> = {
        ODP_BASE_URL: proxy.url,
        ODP_SECRET_KEY: randomBytes(32).toString('base64url'),
        ODP_STORE: 'mongodb',
        ODP_MONGODB_URL: `${engine('ODP_TEST_MONGODB_URL').replace(/\/$/, '')}/odp_hosts_${run}`,
        ODP_SEARCH: 'elasticsearch',
        ODP_ELASTICSEARCH_URL: engine('ODP_TEST_ELASTICSEARCH_URL'),
        ODP_REDIS_URL: engine('ODP_TEST_REDIS_URL'),
        ODP_BLOBS: 's3',
        ODP_S3_ENDPOINT: engine('ODP_TEST_S3_ENDPOINT'),
        ODP_S3_BUCKET: 'odp-scale-out',
        ODP_S3_ACCESS_KEY: process.env['ODP_TEST_S3_ACCESS_KEY'] ?? '',
        ODP_S3_SECRET_KEY: process.env['ODP_TEST_S3_SECRET_KEY'] ?? '',
        ODP_JOBS: 'agenda',
        ODP_WAREHOUSE: 'bigquery',
        ODP_BIGQUERY_API_ENDPOINT: standIn.url,
        ODP_JOBS_AGENDA_DATABASE: `odp_hosts_jobs_${run}`,
        ODP_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32',
        ODP_GATEWAY_CA_FILE: receiver.caFile,
        ODP_WORKER_POLL_MS: '50',
        ODP_RATE_LIMITS: JSON.stringify({ services: { webhook: { calls: CALLS, window: 'DAYS' } } }),
      };
      apis.push(await startServer({ entry: 'api', env }), await startServer({ entry: 'api', env }));
      const [one, two] = apis as [TestServer, TestServer];
      proxy.setBackends(apis.map(instanceUrl));
      for (let i = 0; i < 2; i++) {
        const dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-hosts-worker-'));
        workerDirs.push(dataDir);
        workers.push(await startWorkerProcess({ ...one.env, ODP_DATA_DIR: dataDir }));
      }
      const tenant = await one.odp(['tenant', 'create', '--name', TENANT_NAME, '--model', modelDir]);
      const key = await two.odp(['key', 'create', '--tenant', String(tenant['id'])]);
      const [tenantId, systemKey] = [String(tenant['id']), String(key['key'])];
      balanced = new DataApi({ ...one, baseUrl: proxy.url }, tenantId, systemKey);
      direct = [
        new DataApi({ ...one, baseUrl: instanceUrl(one) }, tenantId, systemKey),
        new DataApi({ ...two, baseUrl: instanceUrl(two) }, tenantId, systemKey),
      ];
      const loaded = await balanced.call('POST', '/loadDefaultData');
      if (loaded.status !== 200) throw new Error(`${await loaded.text()}\n${one.output()}\n${two.output()}`);
    });
    afterEach(() => {
      for (const stream of streams.splice(0)) stream.close();
    });
    afterAll(async () => {
      await Promise.all(workers.map((worker) => worker.stop()));
      await Promise.all(apis.map((api) => api.stop()));
      await proxy?.close();
      await receiver?.close();
      await standIn?.close();
      for (const dir of [...workerDirs, modelDir]) if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const instanceUrl = (server: TestServer) => `http://127.0.0.1:${server.env['PORT']}`;

    it('serves writes through the proxy from both instances, and each instance reads what the other wrote', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 6; i++)
        ids.push(await balanced.create('companies', { legalName: `Balanced ${run} ${i}` }));
      for (const id of ids) {
        for (const api of direct) {
          expect((await api.get(`/companies/${id}`))['legalName']).toMatch(/^Balanced /);
        }
      }
      const search = await balanced.get<{ results?: unknown[] } & Record<string, unknown>>(
        `/companies?q=${encodeURIComponent(`Balanced ${run}`)}`,
      );
      expect(JSON.stringify(search)).toContain(ids[0]);
      expect([...proxy.served().values()].every((count) => count > 0)).toBe(true);
      expect(proxy.served().size).toBe(2);
    });

    it('downloads through one instance a file uploaded through the other', async () => {
      const [one, two] = direct;
      const ask = await one.call('GET', '/upload');
      expect(ask.status).toBe(200);
      const uploadUrl = (await ask.json()) as string;
      expect(uploadUrl.startsWith(`${proxy.url}/binaries/`)).toBe(true);
      const bytes = randomBytes(2048);
      const form = new FormData();
      form.append('file', new Blob([bytes], { type: 'application/octet-stream' }), 'shared.bin');
      const uploaded = await fetch(uploadUrl.replace(proxy.url, instanceUrl(apis[0]!)), {
        method: 'POST',
        body: form,
      });
      expect(uploaded.status).toBe(200);
      const [descriptor] = (await uploaded.json()) as { href: string }[];
      const id = await two.create('documents', { title: `shared ${run}`, file: descriptor });
      const document = await two.get(`/documents/${id}`);
      const href = (document['file'] as { href: string }).href;
      const signed = await fetch(`${instanceUrl(apis[1]!)}${href}`, {
        headers: { 'X-API-Key': two.systemKey },
      });
      expect(signed.status).toBe(200);
      const signedUrl = (await signed.json()) as string;
      const download = await fetch(signedUrl.replace(proxy.url, instanceUrl(apis[1]!)));
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    });

    it('delivers to an event stream on one instance the writes made through the other', async () => {
      const [one, two] = direct;
      const stream = await openEventStream(one);
      streams.push(stream);
      expect(stream.response.status).toBe(200);
      const created = await two.create('companies', { legalName: `Streamed ${run}` });
      const [event] = await stream.take(1, 5000);
      expect(event).toMatchObject({ event: 'create', data: { href: one.href('companies', created) } });
    });

    it('delivers each gateway job once, whichever instance queued it and whichever worker claimed it', async () => {
      await createSystemObject(balanced, 'systemSettings', {
        name: 'accountantWebhookUrl',
        value: `${receiver.origin}/hook`,
      });
      receiver.requests.splice(0);
      const statuses = ['sent', 'draft', 'sent', 'draft', 'sent', 'draft'];
      for (const status of statuses) {
        const res = await balanced.call('PATCH', `/invoices/${DEMO.invoice2}`, { body: { status } });
        expect(res.status).toBe(204);
      }
      const jobs = await jobsOf(balanced, `?object=${DEMO.invoice2}`);
      const delivered = jobs.filter((job) => job.gateway === 'Webhook');
      expect(delivered.length).toBeGreaterThan(0);
      for (const job of delivered)
        expect(await settled(balanced, job.id, 60_000)).toMatchObject({ status: 'done' });
      await receiver.waitFor(delivered.length);
      // A moment for a duplicate to arrive, were a job delivered twice.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const deliveries = receiver.requests.map((request) => String(request.headers['x-odp-delivery']));
      expect(deliveries.sort()).toEqual(delivered.map((job) => job.id).sort());
    });

    it('holds the rate limit of a service across both instances and both workers', async () => {
      const answers: number[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await runScript(balanced, 'invoices', DEMO.invoice1, 'notifyAccountant');
        answers.push(res.status);
      }
      expect(answers.every((status) => status === 202 || status === 429)).toBe(true);
      const deadline = Date.now() + 60_000;
      const unsettled = (jobs: JobView[]) =>
        jobs.some((job) => job.attempts === 0 || job.status === 'running');
      let jobs = await jobsOf(balanced, `?object=${DEMO.invoice1}`);
      while (unsettled(jobs) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        jobs = await jobsOf(balanced, `?object=${DEMO.invoice1}`);
      }
      expect(unsettled(jobs)).toBe(false);
      // The calls of the previous case and of this one: the limit, and not one more.
      expect(receiver.requests).toHaveLength(CALLS);
      for (const job of jobs.filter((candidate) => candidate.status === 'pending'))
        expect(job.lastError).toContain('The rate limit of the service webhook is reached');
      for (const api of direct) {
        const refused = await runScript(api, 'invoices', DEMO.invoice1, 'notifyAccountant');
        expect(refused.status).toBe(429);
      }
    });

    it('flushes each replicated change once, whichever worker buffered it and whichever claimed the flush', async () => {
      await createSystemObject(balanced, 'systemSettings', {
        name: 'warehouseProject',
        value: 'hosts-analytics',
      });
      await createSystemObject(balanced, 'secretValues', {
        name: 'warehouseCredentials',
        secretValue: credentials,
      });
      const ids: string[] = [];
      for (let i = 0; i < 6; i++)
        ids.push(await balanced.create('companies', { legalName: `Replicated ${run} ${i}` }));
      const merged = () =>
        standIn.requests
          .filter((request) => request.method === 'POST' && request.path.endsWith('/jobs'))
          .flatMap(mergedIds);
      const deadline = Date.now() + 60_000;
      while (!ids.every((id) => merged().includes(id)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      // Two more flush intervals: a change flushed twice would show by now.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(
        merged()
          .filter((id) => ids.includes(id))
          .sort(),
      ).toEqual([...ids].sort());
      const flushes = (await jobsOf(balanced, '?size=500')).filter((job) => job.gateway === null);
      expect(flushes.every((job) => job.status === 'done')).toBe(true);
    });

    it('serves on both instances within seconds a model version stored through the proxy or by odp', async () => {
      const statusOf = async (api: DataApi) =>
        (await (
          await fetch(`${api.server.baseUrl}/admin/${api.tenant}/modelStatus`, {
            headers: { 'X-API-Key': api.systemKey },
          })
        ).json()) as { state: string; version: number };
      /** Each instance's status once both name `version` (or as they are after MODEL_SWITCH_MS). */
      const servedBy = async (version: number) => {
        const until = Date.now() + MODEL_SWITCH_MS;
        let statuses = await Promise.all(direct.map(statusOf));
        while (statuses.some((status) => status.version !== version) && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          statuses = await Promise.all(direct.map(statusOf));
        }
        return statuses;
      };
      const before = await statusOf(balanced);
      addCompanyField(modelDir, 'reloadedField');
      const reloaded = await fetch(`${proxy.url}/admin/${balanced.tenant}/reloadModel`, {
        method: 'POST',
        headers: { 'X-API-Key': balanced.systemKey },
      });
      const status = (await reloaded.json()) as { state: string; version: number };
      expect(status.state).toBe('LOADED');
      expect(status.version).toBeGreaterThan(before.version);
      expect(await servedBy(status.version)).toEqual([
        expect.objectContaining({ state: 'LOADED', version: status.version }),
        expect.objectContaining({ state: 'LOADED', version: status.version }),
      ]);

      const pushedDir = mkdtempSync(path.join(os.tmpdir(), 'odp-hosts-pushed-'));
      try {
        cpSync(modelDir, pushedDir, { recursive: true });
        addCompanyField(pushedDir, 'pushedField');
        const pushed = await apis[1]!.odp(['model', 'push', '--tenant', balanced.tenant, pushedDir]);
        expect(pushed['version']).toBeGreaterThan(status.version);
        expect(await servedBy(Number(pushed['version']))).toEqual([
          expect.objectContaining({ state: 'LOADED', version: pushed['version'] }),
          expect.objectContaining({ state: 'LOADED', version: pushed['version'] }),
        ]);
      } finally {
        rmSync(pushedDir, { recursive: true, force: true });
      }
    });

    it('deletes the tenant through one instance for every instance; no process kept a file in its data directory', async () => {
      const [one, two] = direct;
      const res = await fetch(
        `${proxy.url}/admin/${balanced.tenant}?name=${encodeURIComponent(TENANT_NAME)}&deleteTenant=true`,
        { method: 'DELETE', headers: { 'X-API-Key': balanced.systemKey } },
      );
      expect(res.status).toBe(200);
      for (const api of [one, two]) expect((await api.call('GET', '/companies')).status).toBe(401);
      // What each process keeps on its own disk: directories, and no file (docs/deployment.md).
      for (const dir of [...apis.map((api) => api.dataDir), ...workerDirs]) {
        const files = readdirSync(dir, { recursive: true, withFileTypes: true })
          .filter((entry) => !entry.isDirectory())
          .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
        expect(files).toEqual([]);
      }
    });
  },
);
