import { jsonInSlices } from '@odp/core';
import { SYSTEM, crmFixture } from '../test/crm-fixture.js';
import type { CrmFixture } from '../test/crm-fixture.js';

/** The page byte budget (`maxPageBytes`) of a list: docs/data-api.md, "Page byte budget". */
describe('a list page held to its byte budget (SQLite)', () => {
  const BUDGET = 10_000;
  let crm: CrmFixture;

  beforeAll(async () => {
    crm = await crmFixture(undefined, undefined, { maxValueBytes: 1024 * 1024, maxPageBytes: BUDGET });
    for (let index = 0; index < 7; index += 1) {
      // About 3.5 KB each rendered: two fit the budget, a third would pass it.
      await crm.data.create(SYSTEM, 'notes', { subject: `note ${index}`, body: `é ${index} `.repeat(750) });
    }
  });
  afterAll(() => crm.close());

  type Page = Awaited<ReturnType<CrmFixture['data']['list']>>;
  const notesOf = (page: Page) => page._embedded['notes'] as unknown as Record<string, unknown>[];

  it('ends a page before the object that would pass the budget, the next page right after it', async () => {
    const subjects: string[] = [];
    let params: URLSearchParams | null = new URLSearchParams('sort=subject&size=5');
    let pages = 0;
    while (params !== null) {
      const page = await crm.data.list(SYSTEM, { typeName: 'notes' }, params);
      const notes = notesOf(page);
      const bytes = notes.reduce((sum, note) => sum + Buffer.byteLength(JSON.stringify(note)), 0);
      expect(bytes).toBeLessThanOrEqual(BUDGET);
      subjects.push(...notes.map((note) => String(note['subject'])));
      // The answer is written from the texts measured: the same as the page serialised anew.
      expect(await jsonInSlices(page)).toBe(JSON.stringify(page));
      const next = (page._links as { next?: { href: string } }).next;
      params = next === undefined ? null : new URL(next.href, 'http://host').searchParams;
      if (params !== null) expect(params.get('_offset')).toBe(String(subjects.length));
      pages += 1;
    }
    expect(subjects).toEqual(Array.from({ length: 7 }, (_, index) => `note ${index}`));
    expect(pages).toBe(4);
  });

  it('returns the first object of a page even when it alone passes the budget', async () => {
    const large = await crm.data.create(SYSTEM, 'notes', {
      subject: 'a large note',
      body: 'x'.repeat(12_000),
    });
    try {
      const page = await crm.data.list(
        SYSTEM,
        { typeName: 'notes' },
        new URLSearchParams('sort=subject&size=5'),
      );
      expect(notesOf(page).map((note) => note['subject'])).toEqual(['a large note']);
      expect(await jsonInSlices(page)).toBe(JSON.stringify(page));
    } finally {
      await crm.data.remove(SYSTEM, 'notes', large.id);
    }
  });
});
