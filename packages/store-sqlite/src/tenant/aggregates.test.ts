import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WriteBatch } from '@odp/core';
import { contractModel, storedObject, uuid } from '@odp/testkit';
import { storePartsOf } from './inspection.js';
import { openSqliteTenantStore } from './store.js';
import type { SqliteTenantStore } from './store.js';

/**
 * The counters of aggregates.ts (`ixagg`) move with the writes of a commit group once per counter,
 * written before the group commits: they end as the same writes committed one at a time leave them.
 */
const dir = mkdtempSync(join(tmpdir(), 'odp-aggregates-'));
let opened = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function openStore(): Promise<SqliteTenantStore> {
  const store = openSqliteTenantStore({ file: join(dir, `tenant-${++opened}.sqlite`) });
  await store.applyModel(contractModel);
  return store;
}

const company = (n: number, values: Record<string, unknown>) =>
  storedObject({ n, basicClass: 'ct.company', name: `Company ${n}`, values });

const FIRST: WriteBatch[] = [
  {
    put: [
      company(1, {
        active: true,
        kind: 'bv',
        employees: 10,
        revenue: 100,
        founded: '2020-01-01',
        email: 'a@x.test',
      }),
    ],
  },
  { put: [company(2, { active: true, kind: 'nv', employees: 5, revenue: 40.5, founded: '2020-01-01' })] },
  {
    put: [company(3, { active: false, kind: 'bv', employees: 7, founded: '2021-06-30', email: 'c@x.test' })],
  },
  { put: [company(4, { active: true, kind: 'bv', revenue: 12 })] },
];
const SECOND: WriteBatch[] = [
  { put: [company(1, { active: false, kind: 'nv', employees: 11, revenue: 100, founded: '2020-01-01' })] },
  { delete: [uuid(2)] },
  // The e-mail address is company 3's: refused, and its counter changes with it.
  { put: [company(5, { active: true, kind: 'nv', employees: 100, email: 'c@x.test' })] },
  { put: [company(6, { active: false, kind: 'bv', employees: 3, revenue: 7, founded: '2021-06-30' })] },
];

/** Every counter, by the names of its class and fields. */
function counters(store: SqliteTenantStore): unknown[] {
  return storePartsOf(store)
    .database.db.prepare(
      `SELECT (SELECT name FROM dict WHERE k = a.c) AS class, (SELECT name FROM dict WHERE k = a.f) AS field,
         a.v, (SELECT name FROM dict WHERE k = a.g) AS sumField, a.cnt, a.sum
       FROM ixagg a WHERE a.cnt <> 0 ORDER BY 1, 2, 3, 4`,
    )
    .all();
}

const inactive = {
  className: 'ct.company',
  filters: [{ kind: 'equals' as const, field: 'active', type: 'BOOLEAN' as const, value: false }],
  page: 0,
  size: 10,
  sum: ['employees'],
  avg: [],
  count: [],
};

describe('counters of a commit group (SQLite)', () => {
  it('end as the same writes committed one at a time leave them, a refused write left out', async () => {
    const oneByOne = await openStore();
    for (const batch of [...FIRST, ...SECOND]) await oneByOne.write(batch).catch(() => undefined);

    const grouped = await openStore();
    const first = await Promise.all(FIRST.map((batch) => grouped.applyWrite(batch)));
    await Promise.all(first.map((write) => write.committed));
    const second = await Promise.allSettled(SECOND.map((batch) => grouped.applyWrite(batch)));
    expect(second.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    // Read in the group's transaction before it commits: the counters hold its applied writes.
    expect(await grouped.aggregate(inactive, { kind: 'all' })).toEqual({
      total: 3,
      sum: { employees: 21 },
      avg: {},
      count: {},
    });
    await Promise.all(
      second.flatMap((result) => (result.status === 'fulfilled' ? [result.value.committed] : [])),
    );

    expect(counters(grouped)).toEqual(counters(oneByOne));
    expect(counters(grouped).length).toBeGreaterThan(0);
    await grouped.close();
    await oneByOne.close();
  });
});
