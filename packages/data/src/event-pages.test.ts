/**
 * The event stream's pages (event-pages.ts) on a real SQLite store: held to `eventPageBytes` (at
 * least one event), every event once and in log order across the pages, and no event rendered only
 * to be dropped once the budget is spent.
 */
import type { EventCursor } from '@odp/core';
import { LoopTurns } from '@odp/testkit';
import { SYSTEM, crmFixture } from '../test/crm-fixture.js';
import type { CrmFixture } from '../test/crm-fixture.js';
import type { StreamEvent } from './event-pages.js';

const VALUE_CHARS = 20_000;
const EVENT_PAGE_BYTES = 64 * 1024;
const COMPANIES = 12;

let crm: CrmFixture;
afterEach(async () => {
  await crm.close();
});

/** Creates the companies with large descriptions; answers their ids and the log's head before them. */
async function seeded(): Promise<{ ids: string[]; head: EventCursor }> {
  const head = await crm.data.objects.eventLog.head();
  const ids: string[] = [];
  for (let index = 0; index < COMPANIES; index += 1) {
    const description = `${index} `.padEnd(VALUE_CHARS, 'x');
    ids.push((await crm.data.create(SYSTEM, 'companies', { legalName: `Large ${index}`, description })).id);
  }
  return { ids, head };
}

/** Every page from `head` on, until the log has nothing new. */
async function pagesAfter(head: EventCursor): Promise<StreamEvent[][]> {
  const pages: StreamEvent[][] = [];
  let cursor = head;
  for (;;) {
    const { events, next } = await crm.data.objects.events.after(SYSTEM, cursor, 200, { values: true });
    if (next === cursor) return pages;
    pages.push(events);
    cursor = next;
  }
}

describe('event pages held to eventPageBytes', () => {
  it('pages large values by bytes, every event once and in order, whole', async () => {
    crm = await crmFixture(undefined, undefined, {
      maxValueBytes: 1024 * 1024,
      maxPageBytes: 8 * 1024 * 1024,
      eventPageBytes: EVENT_PAGE_BYTES,
    });
    const { ids, head } = await seeded();
    const pages = await pagesAfter(head);
    expect(pages.length).toBeGreaterThan(3);
    for (const page of pages) {
      const bytes = page.reduce((sum, event) => sum + Buffer.byteLength(JSON.stringify(event.data)), 0);
      expect(page.length === 1 || bytes <= EVENT_PAGE_BYTES).toBe(true);
    }
    const events = pages.flat();
    const cursors = events.map((event) => String(event.cursor));
    expect(new Set(cursors).size).toBe(cursors.length);
    const creates = events.filter((event) => event.data.type === 'create');
    expect(creates.map((event) => event.data.href.split('/').at(-1))).toEqual(ids);
    for (const [index, event] of creates.entries()) {
      expect(event.data.values?.['description']).toBe(`${index} `.padEnd(VALUE_CHARS, 'x'));
    }
  });

  it('renders no event beyond the one a page of a single large event sends', async () => {
    crm = await crmFixture(undefined, undefined, {
      maxValueBytes: 1024 * 1024,
      maxPageBytes: 8 * 1024 * 1024,
      eventPageBytes: VALUE_CHARS / 2,
    });
    const { head } = await seeded();
    const getMany = jest.spyOn(crm.store, 'getMany');
    const pages = await pagesAfter(head);
    expect(pages.every((page) => page.length === 1)).toBe(true);
    const rendered = getMany.mock.calls.reduce((sum, [ids]) => sum + ids.length, 0);
    expect(rendered).toBe(pages.length);
  });

  it('serialises an event with a large value in slices, as JSON.stringify writes it', async () => {
    crm = await crmFixture(undefined, undefined, {
      maxValueBytes: 8 * 1024 * 1024,
      maxPageBytes: 16 * 1024 * 1024,
      eventPageBytes: 16 * 1024 * 1024,
    });
    const head = await crm.data.objects.eventLog.head();
    const description = 'a large description \u{1F600} "quoted"\n'.repeat(150_000);
    await crm.data.create(SYSTEM, 'companies', { legalName: 'Large', description });
    const turns = new LoopTurns();
    const { events } = await crm.data.objects.events.after(SYSTEM, head, 200, { values: true });
    turns.stop();
    const [created] = events.filter((event) => event.data.type === 'create');
    expect(created?.data.values?.['description']).toBe(description);
    expect(created?.json).toBe(JSON.stringify(created?.data));
    // Its 6 MB of JSON took tens of milliseconds of one turn whole; in slices the loop turns on.
    expect(turns.count).toBeGreaterThan(2);
  });
});
