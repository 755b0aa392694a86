/**
 * The EventLog contract (events.ts), backend-neutral: every store adapter runs it unchanged from its
 * own test file (`describeEventLogContract('sqlite', open)`). `open` returns a fresh, empty store
 * per test; events are appended the only way there is, through `write`.
 */
import { ValidationError } from '@odp/core';
import type { ChangeEvent, EventCursor, NewChangeEvent } from '@odp/core';
import type { TenantStore } from '@odp/core';
import { REL, contractModel, storedObject, uuid } from './fixture.js';
import { perCase } from './per-case.js';

const COMPANY = 'ct.company';

function event(n: number, type: NewChangeEvent['type'] = 'update'): NewChangeEvent {
  return {
    type,
    objectId: uuid(n),
    classes: [COMPANY],
    at: `2024-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`,
    ...(type === 'merge' ? { loserId: uuid(n + 1) } : {}),
  };
}

const ids = (events: readonly ChangeEvent[]): string[] => events.map((entry) => entry.objectId);

export function describeEventLogContract(name: string, open: () => Promise<TenantStore>): void {
  describe(`EventLog contract (${name})`, () => {
    const store = perCase(open, (opened) => opened.close());
    beforeEach(() => store.applyModel(contractModel));
    describeEventReadsContract(store);
    describeEventCursorsContract(store);
  });
}

/** Every event after `after`, read in pages of `size`. */
async function readAll(store: TenantStore, after: EventCursor | null, size = 1000): Promise<ChangeEvent[]> {
  const all: ChangeEvent[] = [];
  for (let cursor = after; ;) {
    const page = await store.events.read(cursor, size);
    all.push(...page.events);
    if (page.next === cursor || page.events.length === 0) return all;
    cursor = page.next;
  }
}

/** Events of writes read back in order, with their changed fields, after any cursor. */
function describeEventReadsContract(store: TenantStore): void {
  it('starts empty: nothing after the start or the head, and the head does not move', async () => {
    const head = await store.events.head();
    expect(await store.events.read(null, 10)).toEqual({ events: [], next: expect.any(String) });
    expect(await store.events.read(head, 10)).toEqual({ events: [], next: head });
    expect(await store.events.head()).toBe(head);
  });

  it('returns the events of writes in order, each with its own cursor, as written', async () => {
    await store.write({ events: [event(1, 'create'), event(2, 'delete')] });
    await store.write({ events: [event(3, 'merge')] });
    const { events, next } = await store.events.read(null, 100);
    expect(events.map(({ cursor: _cursor, ...rest }) => rest)).toEqual([
      event(1, 'create'),
      event(2, 'delete'),
      event(3, 'merge'),
    ]);
    expect(new Set(events.map((entry) => entry.cursor)).size).toBe(3);
    expect(next).toBe(events[2]!.cursor);
  });

  it('keeps the changed field names of an event as written: a list, an empty list, or none', async () => {
    const created = { ...event(1, 'create'), changed: ['legalName', 'employees'] };
    const updated = { ...event(1), changed: ['legalName'] };
    const unchanged = { ...event(2), changed: [] };
    await store.write({ events: [created, updated, unchanged, event(3), event(4, 'delete')] });
    const { events } = await store.events.read(null, 10);
    expect(events.map(({ cursor: _cursor, ...rest }) => rest)).toEqual([
      created,
      updated,
      unchanged,
      event(3),
      event(4, 'delete'),
    ]);
    expect(events[3]).not.toHaveProperty('changed');
    expect(events[4]).not.toHaveProperty('changed');
  });

  it('records the changed field names in the same atomic write as the change', async () => {
    const head = await store.events.head();
    await expect(
      store.write({
        put: [storedObject({ n: 9, basicClass: 'ct.person', links: { [REL.employer]: [999] } })],
        events: [{ ...event(9, 'create'), changed: ['employer'] }],
      }),
    ).rejects.toThrow();
    await store.write({
      put: [storedObject({ n: 10, basicClass: COMPANY, values: { legalName: 'Kept' } })],
      events: [{ ...event(10, 'create'), changed: ['legalName'] }],
    });
    const { events } = await store.events.read(head, 10);
    expect(events.map((entry) => [entry.objectId, entry.changed])).toEqual([[uuid(10), ['legalName']]]);
  });

  it('continues after any cursor it gave, and a page ends at its last event', async () => {
    await store.write({ events: [1, 2, 3, 4, 5].map((n) => event(n)) });
    const all = (await store.events.read(null, 100)).events;
    const page = await store.events.read(all[0]!.cursor, 2);
    expect(ids(page.events)).toEqual([uuid(2), uuid(3)]);
    expect(page.next).toBe(all[2]!.cursor);
    expect(ids((await store.events.read(page.next, 100)).events)).toEqual([uuid(4), uuid(5)]);
    expect(await store.events.read(all[4]!.cursor, 10)).toEqual({ events: [], next: all[4]!.cursor });
    expect(ids(await readAll(store, null, 2))).toEqual([1, 2, 3, 4, 5].map(uuid));
  });

  it('has the newest event as its head: reading after it returns only later events', async () => {
    await store.write({ events: [event(1), event(2)] });
    const head = await store.events.head();
    expect(head).toBe((await store.events.read(null, 100)).events[1]!.cursor);
    expect((await store.events.read(head, 10)).events).toEqual([]);
    await store.write({ events: [event(3)] });
    expect(ids((await store.events.read(head, 10)).events)).toEqual([uuid(3)]);
    expect(await store.events.head()).not.toBe(head);
  });

  it('appends nothing for a refused write', async () => {
    await store.write({ events: [event(1)] });
    const head = await store.events.head();
    await expect(
      store.write({
        put: [storedObject({ n: 9, basicClass: 'ct.person', links: { [REL.employer]: [999] } })],
        events: [event(9, 'create')],
      }),
    ).rejects.toThrow();
    expect(await store.events.head()).toBe(head);
    expect((await store.events.read(head, 10)).events).toEqual([]);
  });
}

/** Cursors through SSE ids, growing ordinals, and a reader following concurrent writes. */
function describeEventCursorsContract(store: TenantStore): void {
  it('has cursors that travel in an SSE id and come back through cursorOf', async () => {
    await store.write({ events: [event(1), event(2)] });
    const cursors = [
      await store.events.head(),
      ...(await store.events.read(null, 10)).events.map((e) => e.cursor),
    ];
    for (const cursor of cursors) {
      expect(cursor).toMatch(/^[\x21-\x7e]{1,200}$/);
      expect(store.events.cursorOf(cursor)).toBe(cursor);
      expect(store.events.cursorOf(` ${cursor}\t`)).toBe(cursor);
    }
    const [first, second] = (await store.events.read(null, 10)).events;
    expect(ids((await store.events.read(store.events.cursorOf(first!.cursor)!, 10)).events)).toEqual([
      second!.objectId,
    ]);
  });

  it.each(['', 'abc', '-1', '1.5', '1e3', '0x10', 'x\ny', '99999999999999999999999'])(
    'refuses %j as a cursor (cursorOf is null, read throws ValidationError)',
    async (text) => {
      expect(store.events.cursorOf(text)).toBeNull();
      await expect(store.events.read(text, 10)).rejects.toBeInstanceOf(ValidationError);
    },
  );

  it('gives ordinals that grow strictly along the log', async () => {
    await store.write({ events: [event(1), event(2)] });
    await store.write({ events: [event(3)] });
    const ordinals = (await store.events.read(null, 10)).events.map((entry) =>
      store.events.ordinal(entry.cursor),
    );
    expect(ordinals.every((value) => Number.isSafeInteger(value))).toBe(true);
    expect(ordinals[0]! < ordinals[1]! && ordinals[1]! < ordinals[2]!).toBe(true);
    expect(store.events.ordinal(await store.events.head())).toBe(ordinals[2]);
  });

  it('lets a reader following the log during concurrent writes receive every event once, in log order', async () => {
    const writers = 12;
    const perWriter = 4;
    let writing = true;
    const received: ChangeEvent[] = [];
    const follow = async (from: EventCursor) => {
      let cursor = from;
      for (let idle = 0; writing || idle < 2;) {
        const page = await store.events.read(cursor, 3);
        received.push(...page.events);
        idle = page.next === cursor && !writing ? idle + 1 : 0;
        cursor = page.next;
        // A follower waits between polls (the event stream on a timer): a loop of reads that
        // never yields the event loop would starve a store that commits writes in groups.
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const reading = follow(await store.events.head());
    await Promise.all(
      Array.from({ length: writers }, async (_, writer) => {
        for (let round = 0; round < perWriter; round += 1) {
          const n = 100 + writer * perWriter + round;
          await store.write({ events: [event(n), event(n + 1000)] });
        }
      }),
    );
    writing = false;
    await reading;
    const log = await readAll(store, null);
    expect(log).toHaveLength(writers * perWriter * 2);
    expect(received).toEqual(log);
    // The two events of one write stay in their order.
    for (const entry of log.filter((e) => Number(e.objectId.slice(-12)) < 1000)) {
      const second = log.findIndex(
        (e) => Number(e.objectId.slice(-12)) === Number(entry.objectId.slice(-12)) + 1000,
      );
      expect(second).toBeGreaterThan(log.indexOf(entry));
    }
  });
}
