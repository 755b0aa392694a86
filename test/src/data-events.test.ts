/**
 * The change event stream (`GET /data/{tenant}/eventStream`, docs/events.md) through the real
 * server: event shape per kind of change, ids increasing, resuming with Last-Event-ID from the
 * persisted log, and per-account filtering with the read rules.
 */
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';
import { createProfile, createProfileKey } from './support/accounts.js';

let api: DataApi;
beforeAll(async () => {
  api = await startDataServer();
});
afterAll(async () => {
  await api?.server.stop();
});

interface StreamEvent {
  readonly id: number;
  readonly event: string;
  readonly data: Json;
}

/** An open event stream: `take(n)` waits for the next n events (comments skipped). */
class EventStreamClient {
  private buffer = '';
  private readonly queue: StreamEvent[] = [];
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();

  constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    if (!response.body) throw new Error('no body');
    this.reader = response.body.getReader();
  }

  private parse(): void {
    for (let end = this.buffer.indexOf('\n\n'); end >= 0; end = this.buffer.indexOf('\n\n')) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const fields = new Map<string, string>();
      for (const line of block.split('\n')) {
        if (line.startsWith(':') || line === '') continue;
        const colon = line.indexOf(':');
        fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
      }
      const data = fields.get('data');
      if (data !== undefined) {
        this.queue.push({
          id: Number(fields.get('id')),
          event: fields.get('event') ?? '',
          data: JSON.parse(data) as Json,
        });
      }
    }
  }

  async take(count: number, timeoutMs = 5000): Promise<StreamEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length < count) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`timed out with ${this.queue.length}/${count} events`);
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), remaining)),
      ]);
      if (chunk === null) continue;
      if (chunk.done) throw new Error('stream ended');
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
      this.parse();
    }
    return this.queue.splice(0, count);
  }

  /** Events that arrive within `ms` (for asserting that nothing else came). */
  async drain(ms: number): Promise<StreamEvent[]> {
    try {
      await this.take(Number.MAX_SAFE_INTEGER, ms);
    } catch {
      // timed out: whatever arrived is in the queue
    }
    return this.queue.splice(0);
  }

  close(): void {
    this.abort.abort();
  }
}

const streams: EventStreamClient[] = [];
afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
});

async function connect(options: { key?: string; lastEventId?: number } = {}): Promise<EventStreamClient> {
  const abort = new AbortController();
  const headers: Record<string, string> = { 'X-API-Key': options.key ?? api.systemKey };
  if (options.lastEventId !== undefined) headers['Last-Event-ID'] = String(options.lastEventId);
  const response = await fetch(`${api.server.baseUrl}${api.path('/eventStream')}`, {
    headers,
    signal: abort.signal,
  });
  const stream = new EventStreamClient(response, abort);
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
