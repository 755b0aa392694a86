/**
 * Deleting a tenant's data while its requests keep coming (docs/admin.md, "Delete tenant data"):
 * `DELETE /admin/{tenant}?deleteTenant=false` keeps the tenant, and the reads that arrive while the
 * deletion runs, or right after it, see the tenant before or after - 200 or 404, a 503 to retry -
 * never a 500 from a half-closed runtime. Runs on the configured stack (the scale-out pass of
 * .ci/run runs it on MongoDB, Elasticsearch, S3 and Redis).
 */
import { DataApi, DEMO } from './data-api.js';
import { REPO_ROOT, startServer } from './support/server.js';
import type { TestServer } from './support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

it('answers the reads racing a data deletion with 200, 404 or 503, and 404 once it is done', async () => {
  const name = 'Racing Reads';
  const model = `${REPO_ROOT}/examples/models/crm`;
  const tenant = String((await server.odp(['tenant', 'create', '--name', name, '--model', model]))['id']);
  const key = String((await server.odp(['key', 'create', '--tenant', tenant]))['key']);
  const api = new DataApi(server, tenant, key);
  expect((await api.call('POST', '/loadDefaultData')).status).toBe(200);

  const deletion = fetch(
    `${server.baseUrl}/admin/${tenant}?name=${encodeURIComponent(name)}&deleteTenant=false`,
    { method: 'DELETE', headers: { 'X-API-Key': key } },
  );
  let deleted = false;
  void deletion.then(() => (deleted = true));
  const reads: Promise<Response>[] = [];
  // Reads keep arriving while the deletion runs, at most 16 under way at once: within the tenant's
  // fair share of requests under way (ODP_TENANT_REQUESTS), so each gets a real answer.
  while (!deleted) {
    const underWay = reads.slice(-16);
    if (underWay.length === 16) await underWay[0];
    reads.push(api.call('GET', `/persons/${DEMO.ann}`));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  // Those that arrive right after the deletion, while this process hears its own announcement.
  for (let i = 0; i < 20; i += 1) reads.push(api.call('GET', `/persons/${DEMO.ann}`));

  expect((await deletion).status).toBe(200);
  const statuses = await Promise.all(reads.map(async (read) => (await read).status));
  expect(statuses.filter((status) => ![200, 404, 503].includes(status))).toEqual([]);
  expect(statuses.at(-1)).toBe(404);
  expect((await api.call('GET', `/persons/${DEMO.ann}`)).status).toBe(404);
  expect((await api.call('GET', '/persons')).status).toBe(200);
}, 120_000);
