import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredObject } from '@odp/core';
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
