/**
 * The change event stream (`GET /data/{tenant}/eventStream`, docs/events.md) through the real
 * server: event shape per kind of change, ids increasing, resuming with Last-Event-ID from the
 * persisted log, and per-account filtering with the read rules.
 */
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';
import { createAccount, createProfile, createProfileKey } from './support/accounts.js';
import { openEventStream } from './support/event-stream.js';
import type { EventStreamClient } from './support/event-stream.js';

let api: DataApi;
beforeAll(async () => {
  api = await startDataServer();
});
afterAll(async () => {
  await api?.server.stop();
});

const streams: EventStreamClient[] = [];
afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
});

async function connect(
  options: { key?: string; lastEventId?: number; href?: string; query?: string } = {},
): Promise<EventStreamClient> {
  const stream = await openEventStream(api, options);
  streams.push(stream);
  return stream;
}

describe('change event stream', () => {
  it('is text/event-stream and reports create, update, delete and merge with their hrefs and classes', async () => {
    const stream = await connect();
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toContain('text/event-stream');

    const first = await api.create('companies', { legalName: 'Stream A' });
    const [created] = await stream.take(1);
    expect(created).toMatchObject({
      event: 'create',
      data: { type: 'create', href: api.href('companies', first), classes: ['companies', 'organisations'] },
    });
    expect(created?.data['at']).toMatch(/Z$/);

    expect((await api.call('PATCH', `/companies/${first}`, { body: { phone: '1' } })).status).toBe(204);
    const [updated] = await stream.take(1);
    expect(updated).toMatchObject({ event: 'update', data: { href: api.href('companies', first) } });

    const second = await api.create('companies', { legalName: 'Stream B' });
    await stream.take(1);
    expect((await api.call('POST', `/companies/${first}/merge`, { body: { loser: second } })).status).toBe(
      204,
    );
    const merged = await stream.take(2);
    expect(merged.map((event) => event.data['type'])).toEqual(['merge', 'delete']);
    expect(merged[0]?.data).toMatchObject({
      href: api.href('companies', first),
      loser: api.href('companies', second),
    });
    expect(merged[1]?.data).toMatchObject({ href: api.href('companies', second) });

    expect((await api.call('DELETE', `/companies/${first}`)).status).toBe(200);
    const [deleted] = await stream.take(1);
    expect(deleted?.data).toMatchObject({ type: 'delete', href: api.href('companies', first) });

    const ids = [created, updated, ...merged, deleted].map((event) => event?.id ?? 0);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('starts a new connection after the newest event, and resumes from Last-Event-ID', async () => {
    const before = await api.create('persons', { firstName: 'Old', lastName: 'Event' });
    const live = await connect();
    const after = await api.create('persons', { firstName: 'New', lastName: 'Event' });
    const [seen] = await live.take(1);
    expect(seen?.data['href']).toBe(api.href('persons', after));
    live.close();

    const missed = await api.create('persons', { firstName: 'Missed', lastName: 'Event' });
    const resumed = await connect({ lastEventId: (seen?.id ?? 0) - 1 });
    const replay = await resumed.take(2);
    expect(replay.map((event) => event.data['href'])).toEqual([
      api.href('persons', after),
      api.href('persons', missed),
    ]);
    expect(replay.map((event) => event.data['href'])).not.toContain(api.href('persons', before));
  });

  it('sends an account only events of objects it may read', async () => {
    const profileId = await createProfile(api, { sub: 'events-ann', role: 'member', objectId: DEMO.ann });
    const key = await createProfileKey(api, profileId);
    const mine = await connect({ key });
    const everything = await connect();

    await api.create('companies', { legalName: 'Not for Ann' });
    expect(
      (await api.call('PATCH', `/persons/${DEMO.ann}`, { body: { birthDate: '1984-05-13' } })).status,
    ).toBe(204);

    const all = await everything.take(2);
    expect(all.map((event) => event.data['type'])).toEqual(['create', 'update']);
    const seen = await mine.drain(1500);
    expect(seen.map((event) => event.data['href'])).toEqual([api.href('persons', DEMO.ann)]);
  });

  it('answers 401 without a credential', async () => {
    const res = await fetch(`${api.server.baseUrl}${api.path('/eventStream')}`);
    expect(res.status).toBe(401);
  });
});

describe('changed fields and values', () => {
  const sorted = (names: unknown) => [...(names as string[])].sort();

  it('lists in changed exactly the two fields an update changed', async () => {
    const id = await api.create('companies', { legalName: 'Changed two', phone: '1' });
    const stream = await connect();
    const patched = await api.call('PATCH', `/companies/${id}`, {
      body: { phone: '2', employeeCount: 12, legalName: 'Changed two' },
    });
    expect(patched.status).toBe(204);
    const [updated] = await stream.take(1);
    expect(updated?.data['type']).toBe('update');
    expect(sorted(updated?.data['changed'])).toEqual(['employeeCount', 'phone']);
    expect(updated?.data).not.toHaveProperty('values');
  });

  it('lists on a create the fields it set, without hidden or SECRET ones', async () => {
    const stream = await connect();
    await api.create('companies', { legalName: 'Created', apiToken: 'tok-123', foundedOn: '' });
    const [created] = await stream.take(1);
    expect(sorted(created?.data['changed'])).toEqual(['active', 'legalName']);
  });

  it('with values=true carries the values of the changed fields exactly as GET renders them', async () => {
    const client = await api.create('companies', { legalName: 'Values Co' });
    const invoice = await api.create('invoices', {
      invoiceNumber: 'EV-1',
      amount: 100,
      client: api.href('companies', client),
    });
    const stream = await connect({ query: 'values=true' });
    const patched = await api.call('PATCH', `/invoices/${invoice}`, {
      body: {
        status: 'sent',
        amount: 200,
        internalNote: 'not for the stream',
        contact: api.href('persons', DEMO.ann),
      },
    });
    expect(patched.status).toBe(204);
    const [updated] = await stream.take(1);
    const rendered = await api.get(`/invoices/${invoice}`);
    const links = rendered['_links'] as Json;
    expect(sorted(updated?.data['changed'])).toEqual(['amount', 'contact', 'status', 'total', 'vatAmount']);
    expect(updated?.data['values']).toEqual({
      amount: rendered['amount'],
      contact: links['contact'],
      status: rendered['status'],
      total: rendered['total'],
      vatAmount: rendered['vatAmount'],
    });
    expect(rendered['status']).toMatchObject({ current: 'sent' });
    expect(JSON.stringify(updated?.data)).not.toContain('internalNote');
    expect(JSON.stringify(updated?.data)).not.toContain('not for the stream');
  });

  it("leaves out of changed and values a recalculated field the reader's rendering leaves out", async () => {
    const { key } = await createAccount(api, { name: 'changed-ann', role: 'member', objectId: DEMO.ann });
    const mine = await connect({ key, query: 'values=true' });
    const everything = await connect({ query: 'values=true' });
    const renamed = await api.call('PATCH', `/companies/${DEMO.globex}`, {
      body: { legalName: 'Globex Renamed' },
    });
    expect(renamed.status).toBe(204);

    const all = await everything.take(2);
    expect(all.map((event) => [event.data['href'], event.data['changed'], event.data['values']])).toEqual([
      [api.href('companies', DEMO.globex), ['legalName'], { legalName: 'Globex Renamed' }],
      [api.href('invoices', DEMO.invoice3), ['clientName'], { clientName: 'Globex Renamed' }],
    ]);
    // Ann reads invoice 3 but not Globex: its clientName is computed from Globex, so GET leaves it out.
    expect(await api.get(`/invoices/${DEMO.invoice3}`, key)).not.toHaveProperty('clientName');
    const seen = await mine.drain(1500);
    expect(seen.map((event) => [event.data['href'], event.data['changed'], event.data['values']])).toEqual([
      [api.href('invoices', DEMO.invoice3), [], {}],
    ]);
    expect(JSON.stringify(seen)).not.toContain('Globex Renamed');
  });

  it('carries values through a stream token asked for with values=true', async () => {
    const res = await api.call('GET', '/eventStream/token?values=true');
    expect(res.status).toBe(200);
    const { href } = (await res.json()) as { href: string };
    expect(href).toMatch(/\?token=[^&]+&values=true$/);
    const stream = await connect({ href });
    const id = await api.create('persons', { firstName: 'Token', lastName: 'Values' });
    const [created] = await stream.take(1);
    expect(created?.data['href']).toBe(api.href('persons', id));
    expect(created?.data['values']).toMatchObject({ firstName: 'Token', lastName: 'Values' });
  });

  it.each([
    ['the stream', '/eventStream?values=maybe'],
    ['the stream, repeated', '/eventStream?values=true&values=false'],
    ['the token route', '/eventStream/token?values=1'],
  ])('refuses a values that is not true or false on %s with 400 problem+json', async (_label, path) => {
    const res = await api.call('GET', path);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await res.json()).toMatchObject({ status: 400, errors: [{ field: 'values' }] });
  });
});

describe('stream tokens (an EventSource sends no headers)', () => {
  interface IssuedToken {
    token: string;
    expiresAt: string;
    href: string;
  }
  const issue = async (key?: string): Promise<IssuedToken> => {
    const res = await api.call('GET', '/eventStream/token', { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    return (await res.json()) as IssuedToken;
  };
  const statusOf = async (href: string, headers: Record<string, string> = {}) => {
    const abort = new AbortController();
    const res = await fetch(`${api.server.baseUrl}${href}`, { headers, signal: abort.signal });
    const status = res.status;
    abort.abort();
    return status;
  };

  it('issues a token valid for 15 minutes whose href opens the stream without a credential', async () => {
    const before = Date.now();
    const issued = await issue();
    expect(issued.href).toBe(api.path(`/eventStream?token=${encodeURIComponent(issued.token)}`));
    const ttl = Date.parse(issued.expiresAt) - before;
    expect(ttl).toBeGreaterThan(14 * 60 * 1000);
    expect(ttl).toBeLessThanOrEqual(15 * 60 * 1000 + 1000);
    const stream = await connect({ href: issued.href });
    expect(stream.response.status).toBe(200);
    const id = await api.create('companies', { legalName: 'Token stream' });
    const [event] = await stream.take(1);
    expect(event).toMatchObject({ event: 'create', data: { href: api.href('companies', id) } });
  });

  it("streams as the token's account: a member's token carries only what the member may read", async () => {
    const profileId = await createProfile(api, { sub: 'token-ann', role: 'member', objectId: DEMO.ann });
    const mine = await connect({ href: (await issue(await createProfileKey(api, profileId))).href });
    const everything = await connect();

    await api.create('companies', { legalName: 'Not for Ann either' });
    expect(
      (await api.call('PATCH', `/persons/${DEMO.ann}`, { body: { birthDate: '1984-05-14' } })).status,
    ).toBe(204);

    expect((await everything.take(2)).map((event) => event.data['type'])).toEqual(['create', 'update']);
    const seen = await mine.drain(1500);
    expect(seen.map((event) => event.data['href'])).toEqual([api.href('persons', DEMO.ann)]);
  });

  it.each([
    ['a forged token', (token: string) => `${token.slice(0, -4)}AAAA`],
    ['a token of another tenant', null],
    ['no token', () => ''],
  ])('refuses %s with 401', async (_label, mutate) => {
    const { token } = await issue();
    if (mutate === null) {
      const other = await api.server.odp([
        'tenant',
        'create',
        '--name',
        'Token other',
        '--model',
        'examples/models/crm',
      ]);
      const href = `/data/${String(other['id'])}/eventStream?token=${encodeURIComponent(token)}`;
      expect(await statusOf(href)).toBe(401);
      await api.server.odp(['tenant', 'delete', '--id', String(other['id'])]);
      return;
    }
    expect(await statusOf(api.path(`/eventStream?token=${encodeURIComponent(mutate(token))}`))).toBe(401);
  });

  it('counts as a credential: a token together with an API key is 401 (one credential per request)', async () => {
    const { href } = await issue();
    expect(await statusOf(href, { 'X-API-Key': api.systemKey })).toBe(401);
  });

  it('opens nothing but the event stream: the same token on a list is no credential (401)', async () => {
    const { token } = await issue();
    expect(await statusOf(api.path(`/companies?token=${encodeURIComponent(token)}`))).toBe(401);
  });

  it("stops working once the token's profile is suspended, and works again once it is activated", async () => {
    const profile = await createProfile(api, { sub: 'token-suspended', role: 'viewer' });
    const { href } = await issue(await createProfileKey(api, profile));
    expect(await statusOf(href)).toBe(200);
    await api.server.odp(['profile', 'suspend', '--tenant', api.tenant, '--id', profile]);
    expect(await statusOf(href)).toBe(401);
    await api.server.odp(['profile', 'activate', '--tenant', api.tenant, '--id', profile]);
    expect(await statusOf(href)).toBe(200);
  });
});
