import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccessFilter, StoredObject } from '@odp/core';
import { contractModel, storedObject, uuid } from '@odp/testkit';
import { openSqliteTenantStore } from './store.js';
import type { SqliteTenantStore } from './store.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-search-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const company = (n: number, legalName: string): StoredObject =>
  storedObject({
    n,
    basicClass: 'ct.company',
    name: legalName,
    values: { legalName, email: `c${n}@example.test` },
  });

const zyx = async (store: SqliteTenantStore): Promise<readonly string[]> =>
  (await store.search.search({ text: 'zyx', classes: ['ct.company'], size: 10 }, { kind: 'all' })).ids;

// A search ranks by bm25 while its query matches at most the rank limit (2 here), else lists the
// matches newest first. What a query matches is counted once and remembered until the index
// changes: a write through this connection or another one (another api process) counts it again.
describe('the ranking mode of a search follows the writes of every connection', () => {
  it('ranks two matches, then lists three newest first once a third is written here or elsewhere', async () => {
    const file = join(dir, 'tenant.db');
    const here = openSqliteTenantStore({ file, searchRankLimit: 2 });
    const elsewhere = openSqliteTenantStore({ file, searchRankLimit: 2 });
    await here.applyModel(contractModel);
    await elsewhere.applyModel(contractModel);
    // The older company holds the term three times: bm25 ranks it first.
    await here.write({ put: [company(1, 'zyx zyx zyx'), company(2, 'zyx other')] });
    expect(await zyx(here)).toEqual([uuid(1), uuid(2)]);
    expect(await zyx(here)).toEqual([uuid(1), uuid(2)]);

    await elsewhere.write({ put: [company(3, 'zyx more')] });
    expect(await zyx(here)).toEqual([uuid(3), uuid(2), uuid(1)]);

    await here.write({ delete: [uuid(3)] });
    expect(await zyx(here)).toEqual([uuid(1), uuid(2)]);
    await elsewhere.write({ put: [company(4, 'zyx again')] });
    await here.write({ delete: [uuid(2)] });
    expect(await zyx(here)).toEqual([uuid(1), uuid(4)]);
    await here.write({ put: [company(5, 'zyx newest')] });
    expect(await zyx(here)).toEqual([uuid(5), uuid(4), uuid(1)]);
    await here.close();
    await elsewhere.close();
  });
});

// A first page is remembered while nothing is written, apart for each reader and page size, and
// for half the lifetime of the frozen ranking its `next` cursor continues.
describe('remembered first pages', () => {
  const restricted: AccessFilter = { kind: 'acl', protectedClasses: ['ct.company'], acIds: ['A'] };
  const page = (store: SqliteTenantStore, size: number, access: AccessFilter = { kind: 'all' }) =>
    store.search.search({ text: 'zyx', classes: ['ct.company'], size }, access);

  it('answers each reader and size its own page, with a cursor that continues it', async () => {
    const store = openSqliteTenantStore({ file: join(dir, 'pages.db') });
    await store.applyModel(contractModel);
    await store.write({
      put: [company(1, 'zyx zyx zyx'), company(2, 'zyx zyx'), company(3, 'zyx other')],
      aclRows: [{ objectId: uuid(2), rows: [{ acId: 'A', nodeId: uuid(2), definition: 'owner' }] }],
    });
    for (let round = 0; round < 2; round += 1) {
      const first = await page(store, 2);
      expect(first.ids).toEqual([uuid(1), uuid(2)]);
      const rest = await store.search.search(
        { text: 'zyx', classes: ['ct.company'], size: 2, cursor: first.next ?? '' },
        { kind: 'all' },
      );
      expect(rest.ids).toEqual([uuid(3)]);
      expect((await page(store, 1)).ids).toEqual([uuid(1)]);
      expect((await page(store, 2, restricted)).ids).toEqual([uuid(2)]);
    }
    await store.close();
  });

  it('ranks again once half the ranking lifetime has passed', async () => {
    const store = openSqliteTenantStore({ file: join(dir, 'expiry.db'), searchCursorTtlMs: 60 });
    await store.applyModel(contractModel);
    await store.write({ put: [company(1, 'zyx zyx zyx'), company(2, 'zyx zyx'), company(3, 'zyx other')] });
    const first = await page(store, 2);
    expect((await page(store, 2)).next).toBe(first.next);
    await new Promise((resolve) => setTimeout(resolve, 40));
    const later = await page(store, 2);
    expect(later.ids).toEqual(first.ids);
    expect(later.next).not.toBe(first.next);
    await store.close();
  });
});
