/**
 * Conditional requests on objects through the real server, on the demo tenant: Get one's `ETag`
 * (the object's version, moved by every write of it, recalculated derived values included),
 * `If-None-Match` (304) and `If-Match` on Patch, Delete and Merge (412, nothing written), checked
 * atomically with the write; without the headers the last write wins.
 */
import { startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';

let api: DataApi;
let counter = 0;

beforeAll(async () => {
  api = await startDataServer();
});
afterAll(async () => {
  await api?.server.stop();
});

const unique = () => `${Date.now().toString(36)}-c${(counter += 1)}`;
const company = () => api.create('companies', { legalName: `Co ${unique()}` });

async function etagOf(route: string): Promise<string> {
  const res = await api.call('GET', route);
  expect(res.status).toBe(200);
  return res.headers.get('etag') ?? '';
}

async function problem(res: Response, status: number): Promise<Json> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  return (await res.json()) as Json;
}

describe('ETag and If-None-Match on Get one', () => {
  it('answers a strong ETag naming the version, 304 to If-None-Match with it, 200 once changed', async () => {
    const id = await company();
    const route = `/companies/${id}`;
    const res = await api.call('GET', route);
    const object = (await res.json()) as Json;
    const etag = res.headers.get('etag') ?? '';
    expect(etag).toBe(`"${String(object['_modificationDate'])}"`);

    const cached = await api.call('GET', route, { headers: { 'If-None-Match': `"other", ${etag}` } });
    expect(cached.status).toBe(304);
    expect(await cached.text()).toBe('');
    expect(cached.headers.get('etag')).toBe(etag);
    expect((await api.call('GET', route, { headers: { 'If-None-Match': `W/${etag}` } })).status).toBe(304);

    expect((await api.call('PATCH', route, { body: { legalName: `Renamed ${unique()}` } })).status).toBe(204);
    const fresh = await api.call('GET', route, { headers: { 'If-None-Match': etag } });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('etag')).not.toBe(etag);
  });

  it('changes when a derived value is recalculated by a write to another object', async () => {
    const client = await company();
    const invoice = await api.create('invoices', {
      invoiceNumber: `E-${unique()}`,
      amount: 10,
      client: api.href('companies', client),
    });
    const before = await etagOf(`/invoices/${invoice}`);
    await api.call('PATCH', `/companies/${client}`, { body: { legalName: `Derived ${unique()}` } });
    const after = await etagOf(`/invoices/${invoice}`);
    expect(after).not.toBe(before);
  });
});

describe('If-Match on Patch, Delete and Merge', () => {
  it('patches with the current version (204, new ETag) and refuses a stale one with 412, writing nothing', async () => {
    const id = await company();
    const route = `/companies/${id}`;
    const first = await etagOf(route);
    const ok = await api.call('PATCH', route, {
      body: { legalName: `First ${unique()}` },
      headers: { 'If-Match': first },
    });
    expect(ok.status).toBe(204);
    const second = await etagOf(route);
    expect(second).not.toBe(first);

    const stale = await api.call('PATCH', route, {
      body: { legalName: 'Stale write' },
      headers: { 'If-Match': first },
    });
    const body = await problem(stale, 412);
    expect(body).toMatchObject({ type: 'urn:odp:problem:precondition-failed', status: 412, etag: second });
    expect((await api.get(route))['legalName']).not.toBe('Stale write');
    expect(await etagOf(route)).toBe(second);
  });

  it('refuses a weak or malformed tag (strong comparison) and accepts *', async () => {
    const id = await company();
    const route = `/companies/${id}`;
    const etag = await etagOf(route);
    for (const header of [`W/${etag}`, 'not-a-tag']) {
      await problem(await api.call('PATCH', route, { body: {}, headers: { 'If-Match': header } }), 412);
    }
    expect((await api.call('PATCH', route, { body: {}, headers: { 'If-Match': '*' } })).status).toBe(204);
  });

  it('deletes only the named version', async () => {
    const id = await company();
    const route = `/companies/${id}`;
    const stale = await etagOf(route);
    await api.call('PATCH', route, { body: { legalName: `Moved ${unique()}` } });
    await problem(await api.call('DELETE', route, { headers: { 'If-Match': stale } }), 412);
    expect((await api.call('GET', route)).status).toBe(200);
    const current = await etagOf(route);
    expect((await api.call('DELETE', route, { headers: { 'If-Match': current } })).status).toBe(200);
    expect((await api.call('GET', route)).status).toBe(404);
  });

  it('merges only into the named version of the winner', async () => {
    const winner = await company();
    const loser = await company();
    const route = `/companies/${winner}`;
    const stale = await etagOf(route);
    await api.call('PATCH', route, { body: { legalName: `Winner ${unique()}` } });
    const body = { loser: api.href('companies', loser) };
    await problem(await api.call('POST', `${route}/merge`, { body, headers: { 'If-Match': stale } }), 412);
    expect((await api.call('GET', `/companies/${loser}`)).status).toBe(200);
  });

  it('lets exactly one of two concurrent patches naming the same version through', async () => {
    const id = await company();
    const route = `/companies/${id}`;
    const etag = await etagOf(route);
    const statuses = await Promise.all(
      ['One', 'Two', 'Three'].map((name) =>
        api.call('PATCH', route, {
          body: { legalName: `${name} ${unique()}` },
          headers: { 'If-Match': etag },
        }),
      ),
    ).then((responses) => responses.map((res) => res.status).sort());
    expect(statuses).toEqual([204, 412, 412]);
  });

  it('without If-Match, the last write wins', async () => {
    const id = await company();
    const route = `/companies/${id}`;
    await api.call('PATCH', route, { body: { legalName: 'Writer A' } });
    expect((await api.call('PATCH', route, { body: { legalName: 'Writer B' } })).status).toBe(204);
    expect((await api.get(route))['legalName']).toBe('Writer B');
  });
});
