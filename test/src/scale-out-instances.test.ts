/**
 * Two api processes of one deployment (one data directory, one Redis through ODP_REDIS_URL), driven
 * over HTTP like a client behind a load balancer: a write through A reaches an event stream on B
 * well before B's heartbeat poll; a key revoked or a profile suspended through `odp` on A's
 * configuration is refused by B on its next request; create-related requests spread over both
 * instances lose no link; a tenant's rebuild runs on one instance at a time (409 on the other).
 * Without a Redis answering at ODP_REDIS_URL, neither the api nor `odp` starts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openRedisCoordination } from '@odp/redis';
import { describeWithEngine } from '@odp/testkit';
import { DataApi, startDataServer } from './data-api.js';
import type { Json } from './data-api.js';
import { createProfile, createProfileKey } from './support/accounts.js';
import { openEventStream } from './support/event-stream.js';
import type { EventStreamClient } from './support/event-stream.js';
import { freePort, runOdpProcess, startServer } from './support/server.js';

/** Well below the event stream's 15 s heartbeat poll: an event this fast came through the fan-out. */
const PROMPT_MS = 3000;

describeWithEngine('two api instances over one Redis', 'ODP_TEST_REDIS_URL', (redisUrl) => {
  let a: DataApi;
  let b: DataApi;
  const streams: EventStreamClient[] = [];

  beforeAll(async () => {
    a = await startDataServer({ env: { ODP_REDIS_URL: redisUrl } });
    const second = await startServer({ instanceOf: a.server });
    b = new DataApi(second, a.tenant, a.systemKey);
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(async () => {
    await b?.server.stop();
    await a?.server.stop();
  });

  const stream = async (api: DataApi, key?: string) => {
    const opened = await openEventStream(api, key === undefined ? {} : { key });
    streams.push(opened);
    expect(opened.response.status).toBe(200);
    return opened;
  };

  it('serves the same tenant on both instances', async () => {
    expect(b.server.tenantId).toBe(a.tenant);
    expect(await b.ids(`/companies?orderBy=legalName`)).toEqual(await a.ids(`/companies?orderBy=legalName`));
  });

  it('delivers a write through A to an event stream on B promptly, and one through B to A', async () => {
    const onB = await stream(b);
    const onA = await stream(a);
    const first = await a.create('companies', { legalName: 'Fan-out A' });
    const [fromA] = await onB.take(1, PROMPT_MS);
    expect(fromA).toMatchObject({ event: 'create', data: { href: a.href('companies', first) } });
    const second = await b.create('companies', { legalName: 'Fan-out B' });
    const seenOnA = await onA.take(2, PROMPT_MS);
    expect(seenOnA.map((event) => event.data['href'])).toEqual([
      a.href('companies', first),
      a.href('companies', second),
    ]);
    const [fromB] = await onB.take(1, PROMPT_MS);
    expect(fromB?.data['href']).toBe(a.href('companies', second));
  });

  it('refuses on B, on the next request, a key revoked through odp on A', async () => {
    const created = await a.server.odp(['key', 'create', '--tenant', a.tenant]);
    const key = String(created['key']);
    expect((await b.call('GET', '/companies', { key })).status).toBe(200);
    expect((await b.call('GET', '/companies', { key })).status).toBe(200);
    await a.server.odp(['key', 'revoke', '--tenant', a.tenant, '--id', String(created['id'])]);
    expect((await b.call('GET', '/companies', { key })).status).toBe(401);
    expect((await a.call('GET', '/companies', { key })).status).toBe(401);
  });

  it('refuses on B, on the next request, the key of a profile suspended through odp on A', async () => {
    const profile = await createProfile(a, { sub: 'scale-out-member', role: 'member' });
    const key = await createProfileKey(a, profile);
    expect((await b.call('GET', '/companies', { key })).status).toBe(200);
    await a.server.odp(['profile', 'suspend', '--tenant', a.tenant, '--id', profile]);
    expect((await b.call('GET', '/companies', { key })).status).toBe(401);
    await a.server.odp(['profile', 'activate', '--tenant', a.tenant, '--id', profile]);
    expect((await b.call('GET', '/companies', { key })).status).toBe(200);
  });

  // Known to fail until object writes carry an expected version (the store port re-cut of the
  // scale-out work): Create related through a multiple forward relation reads the parent, appends the
  // new id to its links and writes the parent whole, so concurrent requests overwrite each other's
  // link. It fails on one instance as well; two instances only widen the window.
  it('loses no link when create-related requests for one parent run on both instances at once', async () => {
    const parent = await a.create('companies', { legalName: 'Concurrent parent' });
    const count = 24;
    const results = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        (i % 2 === 0 ? a : b).call('POST', `/companies/${parent}/employees`, {
          body: { firstName: 'Concurrent', lastName: `Employee ${i}` },
        }),
      ),
    );
    const statuses = results.map((res) => res.status);
    expect(statuses).toEqual(Array(count).fill(201));
    const created = results.map((res) => (res.headers.get('location') ?? '').slice(-36)).sort();
    const linkedOnA = (await a.ids(`/companies/${parent}/employees?size=100`)).sort();
    const linkedOnB = (await b.ids(`/companies/${parent}/employees?size=100`)).sort();
    expect(linkedOnA).toEqual(created);
    expect(linkedOnB).toEqual(created);
  });

  describe('rebuild lease', () => {
    const post = (api: DataApi, route: string) =>
      fetch(`${api.server.baseUrl}/admin/${api.tenant}/${route}`, {
        method: 'POST',
        headers: { 'X-API-Key': api.systemKey },
      });
    const statusOn = async (api: DataApi): Promise<Json> =>
      (await (
        await fetch(`${api.server.baseUrl}/admin/${api.tenant}/rebuild`, {
          headers: { 'X-API-Key': api.systemKey },
        })
      ).json()) as Json;
    const settled = async (api: DataApi) => {
      for (let i = 0; i < 200; i++) {
        if ((await statusOn(api))['state'] !== 'running') return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('rebuild did not finish');
    };

    it('answers 409 on both instances while another holder runs the tenant rebuild, 202 once it is free', async () => {
      const holder = await openRedisCoordination(redisUrl);
      try {
        const lease = await holder.locks.acquire(`rebuild:${a.tenant}`, 30_000);
        expect(lease).not.toBeNull();
        for (const api of [a, b]) {
          for (const route of ['rebuild', 'rebuildAccessControl']) {
            const res = await post(api, route);
            expect(res.status).toBe(409);
            expect(res.headers.get('content-type')).toContain('application/problem+json');
            expect(((await res.json()) as Json)['detail'] ?? '').toContain('another instance');
          }
        }
        await lease!.release();
        expect((await post(b, 'rebuild')).status).toBe(202);
        await settled(b);
      } finally {
        await holder.close();
      }
    });

    it('never runs rebuilds asked of both instances at once at the same time', async () => {
      const [onA, onB] = await Promise.all([post(a, 'rebuild'), post(b, 'rebuild')]);
      await settled(a);
      await settled(b);
      const statuses = [onA.status, onB.status].sort();
      if (statuses[1] === 409) {
        expect(statuses).toEqual([202, 409]);
      } else {
        // Both accepted: legitimate only if the first job had ended before the second one started.
        expect(statuses).toEqual([202, 202]);
        const [jobA, jobB] = [await statusOn(a), await statusOn(b)];
        const [first, second] = [jobA, jobB].sort((x, y) =>
          String(x['startedAt']).localeCompare(String(y['startedAt'])),
        );
        expect(String(first!['finishedAt']) <= String(second!['startedAt'])).toBe(true);
      }
      // Free again once the job ended: the lease was released, not left to expire.
      expect((await post(a, 'rebuild')).status).toBe(202);
      await settled(a);
    });
  });
});

describe('ODP_REDIS_URL without a Redis answering', () => {
  it('stops the api before it serves, with one line naming the variable and the address, never the password', async () => {
    const port = await freePort();
    const failure = await startServer({ env: { ODP_REDIS_URL: `redis://:hunter2@127.0.0.1:${port}` } }).then(
      async (server) => {
        await server.stop();
        return 'started';
      },
      (error: unknown) => String(error),
    );
    expect(failure).toContain('server exited with 2 before it was ready');
    expect(failure).toContain(
      `odp: configuration error: ODP_REDIS_URL: no Redis answers at 127.0.0.1:${port} (ECONNREFUSED)\n`,
    );
    expect(failure).not.toContain('hunter2');
    expect(failure).not.toMatch(/\n\s+at /);
  });

  it('stops odp the same way', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-test-'));
    const env = { ODP_DATA_DIR: dataDir, ODP_REDIS_URL: `redis://127.0.0.1:${port}` };
    const result = await runOdpProcess(env, ['tenant', 'list']).finally(() =>
      rmSync(dataDir, { recursive: true, force: true }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `odp: configuration error: ODP_REDIS_URL: no Redis answers at 127.0.0.1:${port} (ECONNREFUSED)\n`,
    );
  });
});
