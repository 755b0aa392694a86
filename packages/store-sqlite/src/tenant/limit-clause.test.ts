import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccessFilter, ListPlan, StoredObject } from '@odp/core';
import { REL, contractModel, storedObject, uuid } from '@odp/testkit';
import { limitClause } from './query/sql.js';
import { recordStatements } from '../../test/query-plans.js';
import { openSqliteTenantStore } from './store.js';

/**
 * A LIMIT is written into a statement's text (`limitClause`, query/sql.ts): SQLite compiles a cached statement
 * again on every run when its LIMIT is a bound parameter. The store's reads are checked for it
 * through the statements they ask for, with the rows they answer.
 */
const dir = mkdtempSync(join(tmpdir(), 'odp-limit-clause-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ALL: AccessFilter = { kind: 'all' };

const company = (n: number): StoredObject =>
  storedObject({
    n,
    basicClass: 'ct.company',
    name: `Company ${n}`,
    values: {
      legalName: `harbor ${String(n).padStart(2, '0')}`,
      kind: n % 2 === 0 ? 'bv' : 'nv',
      email: `c${n}@example.test`,
    },
  });

const byName = { key: { kind: 'field', field: 'legalName', type: 'TEXT' }, direction: 'asc' } as const;
const page = (plan: Partial<ListPlan>): ListPlan => ({
  className: 'ct.company',
  filters: [{ kind: 'equals', field: 'kind', type: 'LIST', value: 'bv' }],
  sort: byName,
  page: 0,
  size: 3,
  ...plan,
});

describe('limitClause', () => {
  it('writes a row count into the text', () => {
    expect(limitClause(21)).toBe('LIMIT 21');
    expect(limitClause(0)).toBe('LIMIT 0');
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])('refuses %p', (count) => {
    expect(() => limitClause(count)).toThrow(RangeError);
  });
});

describe("the tenant store's reads bind no LIMIT", () => {
  it('lists by page number and by cursor, scans, searches, reads events and linkers with LIMIT in the text', async () => {
    const store = openSqliteTenantStore({ file: join(dir, 'tenant.db'), driverLimit: 4 });
    await store.applyModel(contractModel);
    await store.write({ put: Array.from({ length: 12 }, (_, index) => company(index + 1)) });
    await store.write({
      put: [storedObject({ n: 13, basicClass: 'ct.invoice', name: 'INV-1', links: { [REL.client]: [2] } })],
    });
    const statements = recordStatements(store);
    const names = (objects: readonly StoredObject[]) => objects.map((object) => object.values['legalName']);

    expect(names(await store.list(page({}), ALL))).toEqual([
      'harbor 02',
      'harbor 04',
      'harbor 06',
      'harbor 08',
    ]);
    expect(names(await store.list(page({ page: 1 }), ALL))).toEqual(['harbor 08', 'harbor 10', 'harbor 12']);
    const first = await store.page(page({}), ALL);
    expect(names((await store.page(page({ after: first.positions[2] }), ALL)).rows)).toEqual([
      'harbor 08',
      'harbor 10',
      'harbor 12',
    ]);
    expect((await store.scan(uuid(10), 2)).map((object) => object.id)).toEqual([uuid(11), uuid(12)]);
    expect(
      (await store.search.search({ text: 'harbor', classes: ['ct.company'], size: 5 }, ALL)).ids,
    ).toHaveLength(5);
    expect((await store.events.read(null, 10)).events).toEqual([]);
    const linkers = await store.incomingRefs([uuid(2)], ALL, { relationKeys: [REL.client], limit: 20 });
    expect(linkers.map((ref) => ref.id)).toEqual([uuid(13)]);

    expect(statements().filter((text) => /\bLIMIT\b/i.test(text)).length).toBeGreaterThan(3);
    expect(statements().filter((text) => /\bLIMIT\s+\?/i.test(text))).toEqual([]);
    await store.close();
  });
});
