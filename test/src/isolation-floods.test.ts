/**
 * Tenant isolation under floods of every kind (docs/configuration.md, "Fair share between
 * tenants"): tenant A runs 16 concurrent request loops of small creates, then of creates carrying
 * 1 MB values, then sends 7 MB bodies of 600k unknown keys, then floods a metadata route, while
 * tenant B reads one object throughout. Every one of B's requests answers 200; A past its share gets
 * 429 problem+json with `Retry-After`; the 600k-key body gets its 413. Outcomes only: the latency
 * B sees is measured by `pnpm bench`.
 */
import { createNeighbour, DEMO, startDataServer } from './data-api.js';
import type { DataApi } from './data-api.js';
import { expectWellFormedRefusals, outcome } from './support/outcome.js';
import type { Outcome } from './support/outcome.js';

/** A's loops: as many as a client with a pool of connections opens at once. */
const LOOPS = 16;
let api: DataApi;
let tenantB: string;
let keyB: string;

beforeAll(async () => {
  // Small shares, so that A's loops pass them in every phase.
  api = await startDataServer({ env: { ODP_TENANT_REQUESTS: '4', ODP_TENANT_WORK_MS: '200' } });
  ({ tenant: tenantB, key: keyB } = await createNeighbour(api, 'Quiet neighbour'));
}, 120_000);
afterAll(async () => {
  await api?.server.stop();
});

/** A request of tenant A (its system key) to `url` under the server, with a JSON body text. */
function sendA(method: string, url: string, body?: string): Promise<Outcome> {
  const headers: Record<string, string> = { 'X-API-Key': api.systemKey };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return outcome(fetch(`${api.server.baseUrl}${url}`, { method, headers, body }));
}

/** `loops` concurrent loops of `rounds` requests each; every outcome. */
async function flood(loops: number, rounds: number, request: () => Promise<Outcome>): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  await Promise.all(
    Array.from({ length: loops }, async () => {
      for (let round = 0; round < rounds; round += 1) outcomes.push(await request());
    }),
  );
  return outcomes;
}

/** B reads one object, one request after the other, until `done` settles; every status. */
async function quietReads(done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const statuses: number[] = [];
  while (!finished || statuses.length === 0) {
    const res = await fetch(`${api.server.baseUrl}/data/${tenantB}/companies/${DEMO.globex}`, {
      headers: { 'X-API-Key': keyB },
    });
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  return statuses;
}

/** A went past its share: some of its requests got a well-formed 429. */
function expectRefusedPastShare(outcomes: readonly Outcome[]): void {
  expect(expectWellFormedRefusals(outcomes)).toBeGreaterThan(0);
}

/** Each phase of A's flood, with B's reads sent throughout it. */
async function whileBReads(phase: () => Promise<Outcome[]>): Promise<{ a: Outcome[]; b: number[] }> {
  const a = phase();
  const b = quietReads(a);
  return { a: await a, b: await b };
}

const statusesOf = (outcomes: readonly Outcome[]) => new Set(outcomes.map((entry) => entry.status));

describe("a tenant flooding the api with any kind of request neither stalls nor starves another's", () => {
  it('small creates: A past its share gets 429 with Retry-After; B reads 200 throughout', async () => {
    const body = JSON.stringify({ legalName: 'Small flood', active: true });
    const { a, b } = await whileBReads(() =>
      flood(LOOPS, 10, () => sendA('POST', api.path('/companies'), body)),
    );
    expect(statusesOf(a)).toEqual(new Set([201, 429]));
    expectRefusedPastShare(a);
    expect(b.every((status) => status === 200)).toBe(true);
  });

  it('creates carrying 1 MB values: A past its share gets 429; B reads 200 throughout', async () => {
    const body = JSON.stringify({
      legalName: 'Large flood',
      active: true,
      profile: { notes: 'x'.repeat(1_000_000) },
    });
    const { a, b } = await whileBReads(() =>
      flood(LOOPS, 2, () => sendA('POST', api.path('/companies'), body)),
    );
    expect(statusesOf(a)).toEqual(new Set([201, 429]));
    expectRefusedPastShare(a);
    expect(b.every((status) => status === 200)).toBe(true);
  });

  it('7 MB bodies of 600k unknown keys: 413 problem+json (or 429 past the share); B reads 200', async () => {
    const members = Array.from({ length: 600_000 }, (_, index) => `"x${index}":0`);
    const body = `{"legalName":"Wide","active":true,${members.join(',')}}`;
    expect(body.length).toBeGreaterThan(7_000_000);
    expect(body.length).toBeLessThan(10 * 1024 * 1024);
    const { a, b } = await whileBReads(() => flood(4, 1, () => sendA('POST', api.path('/companies'), body)));
    const tooLarge = a.filter((entry) => entry.status === 413);
    expect(tooLarge.length).toBeGreaterThan(0);
    expect(a.every((entry) => entry.status === 413 || entry.status === 429)).toBe(true);
    for (const entry of tooLarge) {
      expect(entry.contentType).toContain('application/problem+json');
      expect(JSON.parse(entry.body)).toMatchObject({
        type: 'urn:odp:problem:payload-too-large',
        status: 413,
        detail: 'The request body has an object with more than 10000 members.',
      });
    }
    expect(b.every((status) => status === 200)).toBe(true);
  });

  it('a metadata route: A answers 200 or 429 past its share; B reads 200 throughout', async () => {
    const route = `/metadata/${api.tenant}/dataObject?classes=companies`;
    const { a, b } = await whileBReads(() => flood(LOOPS, 5, () => sendA('GET', route)));
    expect(a.every((entry) => entry.status === 200 || entry.status === 429)).toBe(true);
    expect(a.some((entry) => entry.status === 200)).toBe(true);
    expectWellFormedRefusals(a);
    expect(b.every((status) => status === 200)).toBe(true);
  });

  it('once the flood is over, A is served again in full', async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, () => sendA('GET', `/data/${api.tenant}/companies/${DEMO.acme}`)),
    );
    expect(results.map((entry) => entry.status)).toEqual([200, 200, 200, 200]);
  });

  it('a refused request is logged as a 429 or 413, never as an error', () => {
    expect(api.server.output()).toContain('"status":429');
    expect(api.server.output()).toContain('"status":413');
    expect(api.server.output()).not.toContain('request failed');
  });
});
