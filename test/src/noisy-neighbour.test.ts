/**
 * Noisy neighbour (docs/configuration.md, "Fair share between tenants"): with a small work budget
 * per tenant (`ODP_TENANT_WORK_MS=40`: two lists of 400 companies under way, each measured at 15 ms or
 * more), tenant A flooding the api with `size=1000` lists gets 429 problem+json with
 * `Retry-After` past its share, while tenant B's requests (get one, and its own lists) still answer
 * 200, and A's own cheap requests, which have shares of their own, are never held back.
 */
import { createNeighbour, DEMO, startDataServer } from './data-api.js';
import type { DataApi } from './data-api.js';
import { expectWellFormedRefusals, outcome } from './support/outcome.js';

let api: DataApi;
let tenantB: string;
let keyB: string;

beforeAll(async () => {
  api = await startDataServer({ env: { ODP_TENANT_WORK_MS: '40' } });
  ({ tenant: tenantB, key: keyB } = await createNeighbour(api, 'Neighbour'));
  // Enough companies that a size=1000 list of A does real work: it is charged what it costs, and
  // a cheap list would have a share of many at once.
  for (let index = 0; index < 400; index += 1) {
    await api.create('companies', { legalName: `Flood ${index}`, active: true });
  }
}, 120_000);
afterAll(async () => {
  await api?.server.stop();
});

function call(tenant: string, key: string, route: string, method = 'GET'): Promise<Response> {
  return fetch(`${api.server.baseUrl}/data/${tenant}${route}`, { method, headers: { 'X-API-Key': key } });
}

/**
 * A's flood of 30 concurrent size=1000 lists, with B's and A's cheap requests sent amid it. B reads
 * one object first, so the flood meets an active neighbour: a tenant alone is never held back.
 */
async function flood() {
  expect((await call(tenantB, keyB, `/companies/${DEMO.globex}`)).status).toBe(200);
  const floodA = Array.from({ length: 30 }, () =>
    outcome(call(api.tenant, api.systemKey, '/companies?size=1000')),
  );
  const amid = {
    bGetOne: Array.from({ length: 5 }, () => outcome(call(tenantB, keyB, `/companies/${DEMO.globex}`))),
    bList: outcome(call(tenantB, keyB, '/invoices?size=1000')),
    aGetOne: outcome(call(api.tenant, api.systemKey, `/companies/${DEMO.acme}`)),
  };
  return {
    a: await Promise.all(floodA),
    bGetOne: await Promise.all(amid.bGetOne),
    bList: await amid.bList,
    aGetOne: await amid.aGetOne,
  };
}

describe('a tenant flooding expensive requests cannot starve another tenant', () => {
  it("A past its share gets 429 problem+json with Retry-After; B and A's get-one answer 200", async () => {
    const result = await flood();
    const refused = result.a.filter((entry) => entry.status === 429);
    const served = result.a.filter((entry) => entry.status === 200);
    expect(refused.length).toBeGreaterThan(0);
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(refused.length + served.length).toBe(result.a.length);
    expect(expectWellFormedRefusals(result.a)).toBe(refused.length);
    expect(result.bGetOne.map((entry) => entry.status)).toEqual([200, 200, 200, 200, 200]);
    expect(result.bList.status).toBe(200);
    expect(result.aGetOne.status).toBe(200);
  });

  it('the share frees up as requests finish: A lists again afterwards', async () => {
    await flood();
    for (let index = 0; index < 3; index += 1) {
      expect((await call(api.tenant, api.systemKey, '/companies?size=1000')).status).toBe(200);
    }
  });

  it("A's lists do not hold back its capabilities and metadata, which have shares of their own", async () => {
    const busy = Array.from({ length: 30 }, () => call(api.tenant, api.systemKey, '/companies?size=1000'));
    const cheap = await Promise.all([
      call(api.tenant, api.systemKey, `/companies/${DEMO.acme}/capabilities`),
      call(api.tenant, api.systemKey, '/companies/capabilities'),
      fetch(`${api.server.baseUrl}/metadata/${api.tenant}/dataObject?classes=companies`, {
        headers: { 'X-API-Key': api.systemKey },
      }),
    ]);
    await Promise.all(busy);
    expect(cheap.map((res) => res.status)).toEqual([200, 200, 200]);
  });

  it('a refused request is logged as a 429, never as an error', () => {
    expect(api.server.output()).toContain('"status":429');
    expect(api.server.output()).not.toContain('request failed');
  });
});
