/**
 * Event streams cannot starve another tenant (docs/events.md, "Paging and backpressure"): tenant A
 * holds companies with large values; a viewer's stream token replays A's whole log with
 * `values=true` on several streams at once, in pages held to a small `ODP_MAX_PAGE_BYTES`, while
 * tenant B's get-one requests all answer 200; every replay delivers every event once, in log order,
 * across the byte-bounded pages. Past `ODP_TENANT_EVENT_STREAMS` open streams of A, one more answers
 * 429 problem+json with `Retry-After`, while B still opens its own.
 */
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi } from './data-api.js';
import { createAccount } from './support/accounts.js';
import { openEventStream } from './support/event-stream.js';
import type { EventStreamClient, StreamEvent } from './support/event-stream.js';
import { createCrmTenant } from './support/tenants.js';

/** Open streams of one tenant per process. */
const STREAM_CAP = 4;
/** A page holds about three of the seeded events. */
const PAGE_BYTES = 64 * 1024;
const SEEDED = 24;
const DESCRIPTION_CHARS = 20_000;

let api: DataApi;
let tenantB: string;
let keyB: string;
/** The href (with its stream token and `values=true`) of a viewer of A who may read the seeded companies. */
let viewerHref: string;
let seeded: string[];

beforeAll(async () => {
  api = await startDataServer({
    env: { ODP_TENANT_EVENT_STREAMS: String(STREAM_CAP), ODP_MAX_PAGE_BYTES: String(PAGE_BYTES) },
  });
  ({ id: tenantB, key: keyB } = await createCrmTenant(api.server, 'Stream Neighbour'));
  const loaded = await callB(`/data/${tenantB}/loadDefaultData`, 'POST');
  if (loaded.status !== 200) throw new Error(`loadDefaultData: ${loaded.status}`);

  const viewer = await createAccount(api, { name: 'stream-viewer', role: 'viewer', objectId: DEMO.bob });
  const token = await api.get<{ href: string }>('/eventStream/token?values=true', viewer.key);
  viewerHref = token.href;
  seeded = [];
  for (let index = 0; index < SEEDED; index += 1) {
    seeded.push(
      await api.create('companies', {
        legalName: `Large ${index}`,
        active: true,
        description: `${index} `.padEnd(DESCRIPTION_CHARS, 'x'),
        employees: [api.href('persons', DEMO.bob)],
      }),
    );
  }
}, 120_000);
afterAll(async () => {
  await api?.server.stop();
});

const streams: EventStreamClient[] = [];
afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
});

function callB(route: string, method = 'GET'): Promise<Response> {
  return fetch(`${api.server.baseUrl}${route}`, { method, headers: { 'X-API-Key': keyB } });
}

/** A stream of A replayed from the start of its log through the viewer's token (`values=true`). */
async function viewerReplay(): Promise<EventStreamClient> {
  const stream = await openEventStream(api, { href: viewerHref, lastEventId: 0 });
  streams.push(stream);
  return stream;
}

/** A stream of A admitted once a slot is free (streams closed by the test before free theirs as they end). */
async function admittedStream(): Promise<EventStreamClient> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const stream = await openEventStream(api);
    if (stream.response.status === 200) {
      streams.push(stream);
      return stream;
    }
    stream.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no stream slot was freed');
}

/** The stream's events up to and including the create of the last seeded company. */
async function replayed(stream: EventStreamClient): Promise<StreamEvent[]> {
  const last = api.href('companies', seeded.at(-1) ?? '');
  const events: StreamEvent[] = [];
  for (;;) {
    const [event] = await stream.take(1, 60_000);
    if (event === undefined) continue;
    events.push(event);
    if (event.event === 'create' && event.data['href'] === last) return events;
  }
}

describe('event stream budgets', () => {
  it("replays large values on concurrent viewer streams, every event in order, while another tenant's get-one answers 200", async () => {
    const replays = await Promise.all(Array.from({ length: STREAM_CAP }, () => viewerReplay()));
    for (const stream of replays) expect(stream.response.status).toBe(200);
    const [results, neighbour] = await Promise.all([
      Promise.all(replays.map((stream) => replayed(stream))),
      Promise.all(Array.from({ length: 20 }, () => callB(`/data/${tenantB}/companies/${DEMO.globex}`))),
    ]);
    expect(neighbour.map((res) => res.status)).toEqual(neighbour.map(() => 200));

    const [first, ...others] = results;
    const ids = (first ?? []).map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    for (const other of others) expect(other.map((event) => event.id)).toEqual(ids);

    const creates = (first ?? []).filter(
      (event) =>
        event.event === 'create' && seeded.some((id) => event.data['href'] === api.href('companies', id)),
    );
    expect(creates.map((event) => event.data['href'])).toEqual(seeded.map((id) => api.href('companies', id)));
    for (const [index, event] of creates.entries()) {
      const values = event.data['values'] as Record<string, unknown>;
      expect(values['description']).toBe(`${index} `.padEnd(DESCRIPTION_CHARS, 'x'));
    }
  }, 120_000);

  it('refuses one stream past the cap with 429 problem+json and Retry-After; the other tenant still opens its own', async () => {
    for (let index = 0; index < STREAM_CAP; index += 1) await admittedStream();

    const refused = await fetch(`${api.server.baseUrl}${viewerHref}`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(await refused.json()).toMatchObject({
      status: 429,
      type: 'urn:odp:problem:rate-limited',
      retryAfter: 5,
    });

    const neighbour = await fetch(`${api.server.baseUrl}/data/${tenantB}/eventStream`, {
      headers: { 'X-API-Key': keyB },
    });
    expect(neighbour.status).toBe(200);
    await neighbour.body?.cancel();

    streams.shift()?.close();
    expect((await admittedStream()).response.status).toBe(200);
  }, 60_000);
});
