/**
 * `Idempotency-Key` on Create, Create related and the batch, through the real server on the demo
 * tenant: a retry with the same key and body answers the first response and writes nothing; the
 * same key with another request is 422; concurrent requests with one key write once; keys are per
 * account; a key is forgotten after `ODP_IDEMPOTENCY_TTL_SECONDS` (set low here).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';
import { createAccounts } from './support/accounts.js';

const TTL_SECONDS = 5;

let api: DataApi;
let userKeys: string[];
let counter = 0;

beforeAll(async () => {
  api = await startDataServer({ env: { ODP_IDEMPOTENCY_TTL_SECONDS: String(TTL_SECONDS) } });
  const accounts = await createAccounts(api, [
    { name: 'ada', role: 'admin' },
    { name: 'max', role: 'admin' },
  ]);
  userKeys = [...accounts.values()].map((account) => account.key);
}, 120_000);
afterAll(async () => {
  await api?.server.stop();
});

const unique = () => `${Date.now().toString(36)}-i${(counter += 1)}`;

function post(
  route: string,
  body: unknown,
  key: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return api.call('POST', route, { body, headers: { 'Idempotency-Key': key, ...headers } });
}

async function countCompanies(legalName: string): Promise<number> {
  return (await api.rows(`/companies?legalName=${encodeURIComponent(legalName)}`)).length;
}

describe('a retry with the same key and body', () => {
  it('answers the first create again (status, Location) and creates nothing', async () => {
    const key = `create-${unique()}`;
    const body = { legalName: `Keyed ${unique()}` };
    const first = await post('/companies', body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await post('/companies', { ...body }, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(await again.text()).toBe('');
    expect(await countCompanies(body.legalName)).toBe(1);
  });

  it('answers the first body of a create with return=representation, not the object as it is now', async () => {
    const key = `represent-${unique()}`;
    const body = { legalName: `Represented ${unique()}` };
    const prefer = { Prefer: 'return=representation' };
    const first = await post('/companies', body, key, prefer);
    expect(first.status).toBe(201);
    const firstBody = (await first.json()) as Json;
    const id = (first.headers.get('location') ?? '').slice(-36);
    const patched = await api.call('PATCH', `/companies/${id}`, {
      body: { legalName: `${body.legalName} b` },
    });
    expect(patched.status).toBe(204);
    const again = await post('/companies', body, key, prefer);
    expect(again.status).toBe(201);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('preference-applied')).toBe('return=representation');
    expect(await again.json()).toEqual(firstBody);
    expect(firstBody['legalName']).toBe(body.legalName);
  });

  it('answers a create related again and links one object', async () => {
    const company = await api.create('companies', { legalName: `Parent ${unique()}` });
    const key = `related-${unique()}`;
    const body = { invoiceNumber: `K-${unique()}`, amount: 10 };
    const first = await post(`/companies/${company}/invoices`, body, key);
    const again = await post(`/companies/${company}/invoices`, body, key);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(await api.ids(`/companies/${company}/invoices`)).toEqual([
      (first.headers.get('location') ?? '').slice(-36),
    ]);
  });

  it('matches the body whatever the order of its members', async () => {
    const key = `order-${unique()}`;
    const legalName = `Ordered ${unique()}`;
    const first = await post('/companies', { legalName, employeeCount: 12, active: true }, key);
    const again = await post('/companies', { active: true, legalName, employeeCount: 12 }, key);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(await countCompanies(legalName)).toBe(1);
  });

  it('answers a batch again with its first results and writes nothing', async () => {
    const key = `batch-${unique()}`;
    const legalName = `Batched ${unique()}`;
    const body = {
      operations: [
        { method: 'POST', path: '/companies', body: { legalName } },
        { method: 'PATCH', path: `/companies/${DEMO.globex}`, body: { employeeCount: counter } },
      ],
    };
    const first = await post('/batch', body, key);
    expect(first.status).toBe(200);
    const firstResults = (await first.json()) as Json;
    const again = await post('/batch', body, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(firstResults);
    expect(await countCompanies(legalName)).toBe(1);
  });
});

describe('concurrent requests with one key', () => {
  it('create one object and all answer its Location', async () => {
    const key = `concurrent-${unique()}`;
    const body = { legalName: `Concurrent ${unique()}` };
    const answers = await Promise.all([1, 2, 3, 4].map(() => post('/companies', body, key)));
    expect(answers.map((res) => res.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(answers.map((res) => res.headers.get('location'))).size).toBe(1);
    expect(await countCompanies(body.legalName)).toBe(1);
  });

  it('write one batch', async () => {
    const key = `concurrent-batch-${unique()}`;
    const legalName = `Concurrent batch ${unique()}`;
    const body = { operations: [{ method: 'POST', path: '/companies', body: { legalName } }] };
    const answers = await Promise.all([1, 2, 3].map(() => post('/batch', body, key)));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    const locations = await Promise.all(
      answers.map(async (res) => ((await res.json()) as { results: Json[] }).results[0]?.['location']),
    );
    expect(new Set(locations).size).toBe(1);
    expect(await countCompanies(legalName)).toBe(1);
  });
});

describe('the same key with another request', () => {
  it('is 422 with its own problem type and writes nothing', async () => {
    const key = `reused-${unique()}`;
    const legalName = `Reused ${unique()}`;
    expect((await post('/companies', { legalName }, key)).status).toBe(201);
    for (const [route, body] of [
      ['/companies', { legalName: `${legalName} other` }],
      ['/persons', { lastName: `${legalName} other` }],
      ['/batch', { operations: [{ method: 'POST', path: '/companies', body: { legalName } }] }],
    ] as const) {
      const res = await post(route, body, key);
      expect({ route, status: res.status }).toEqual({ route, status: 422 });
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(((await res.json()) as Json)['type']).toBe('urn:odp:problem:idempotency-key-reused');
    }
    expect(await countCompanies(legalName)).toBe(1);
    expect(await countCompanies(`${legalName} other`)).toBe(0);
  });

  it('runs when the first request with the key was refused (nothing was recorded)', async () => {
    const key = `refused-${unique()}`;
    const refused = await post(
      '/companies',
      { legalName: `Refused ${unique()}`, foundedOn: 'not a date' },
      key,
    );
    expect(refused.status).toBe(400);
    const legalName = `After refusal ${unique()}`;
    expect((await post('/companies', { legalName }, key)).status).toBe(201);
    expect(await countCompanies(legalName)).toBe(1);
  });
});

describe('keys', () => {
  it('are per account: other accounts with the same key create their own objects', async () => {
    const key = `shared-${unique()}`;
    const body = { legalName: `Shared ${unique()}` };
    const headers = { 'Idempotency-Key': key };
    const answers = [
      await post('/companies', body, key),
      ...(await Promise.all(
        userKeys.map((user) => api.call('POST', '/companies', { body, key: user, headers })),
      )),
    ];
    expect(answers.map((res) => res.status)).toEqual([201, 201, 201]);
    expect(answers.map((res) => res.headers.get('idempotent-replayed'))).toEqual([null, null, null]);
    expect(new Set(answers.map((res) => res.headers.get('location'))).size).toBe(3);
    expect(await countCompanies(body.legalName)).toBe(3);
    const replayed = await api.call('POST', '/companies', { body, key: userKeys[0] ?? '', headers });
    expect(replayed.headers.get('location')).toBe(answers[1]?.headers.get('location'));
  });

  it('must be 1 to 255 visible ASCII characters (400 otherwise, nothing written)', async () => {
    const legalName = `Bad key ${unique()}`;
    for (const key of ['x'.repeat(256), 'with space']) {
      const res = await post('/companies', { legalName }, key);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { errors: Json[] }).errors[0]?.['field']).toBe('Idempotency-Key');
    }
    expect(await countCompanies(legalName)).toBe(0);
  });

  it(`are forgotten after ODP_IDEMPOTENCY_TTL_SECONDS: a later request with the key runs again`, async () => {
    const key = `expiring-${unique()}`;
    const body = { legalName: `Expiring ${unique()}` };
    const first = await post('/companies', body, key);
    expect(first.status).toBe(201);
    await sleep(TTL_SECONDS * 1000 + 500);
    const later = await post('/companies', body, key);
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.headers.get('location')).not.toBe(first.headers.get('location'));
    expect(await countCompanies(body.legalName)).toBe(2);
  }, 30_000);
});

describe('the OpenAPI document', () => {
  it('declares Idempotency-Key and its 422 on Create, Create related and the batch', async () => {
    const res = await fetch(`${api.server.baseUrl}/metadata/${api.tenant}/openapi.json`, {
      headers: { 'X-API-Key': api.systemKey },
    });
    const document = (await res.json()) as {
      paths: Record<string, Record<string, { parameters?: Json[]; responses: Json }>>;
      components: { parameters: Record<string, Json> };
    };
    expect(document.components.parameters['IdempotencyKey']).toMatchObject({
      name: 'Idempotency-Key',
      in: 'header',
    });
    const tenant = '/data/{tenant}';
    for (const path of [`${tenant}/companies`, `${tenant}/companies/{id}/invoices`, `${tenant}/batch`]) {
      const post = document.paths[path]?.['post'];
      expect({ path, parameters: post?.parameters }).toMatchObject({
        path,
        parameters: expect.arrayContaining([{ $ref: '#/components/parameters/IdempotencyKey' }]),
      });
      expect(post?.responses['422']).toEqual({ $ref: '#/components/responses/Problem422' });
    }
  });
});
