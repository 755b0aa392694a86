import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccessFilter, ListPlan, StoredObject } from '@odp/core';
import { contractModel, storedObject } from '@odp/testkit';
import { recordStatements } from '../../test/query-plans.js';
import { RememberedRows } from './remembered-rows.js';
import type { ConnectionChanges } from './database.js';
import { openSqliteTenantStore } from './store.js';

/**
 * A list page remembers the objects it read (remembered-rows.ts): a page read again reads only its
 * keys, until a write of the store or a commit of another connection.
 */
const dir = mkdtempSync(join(tmpdir(), 'odp-remembered-rows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ALL: AccessFilter = { kind: 'all' };

const company = (n: number, legalName = `harbor ${String(n).padStart(2, '0')}`): StoredObject =>
  storedObject({
    n,
    basicClass: 'ct.company',
    name: `Company ${n}`,
    values: { legalName, kind: n % 2 === 0 ? 'bv' : 'nv', email: `c${n}@example.test` },
  });

const byName = { key: { kind: 'field', field: 'legalName', type: 'TEXT' }, direction: 'asc' } as const;
const byEmail = { key: { kind: 'field', field: 'email', type: 'TEXT' }, direction: 'desc' } as const;
const plan = (changes: Partial<ListPlan> = {}): ListPlan => ({
  className: 'ct.company',
  filters: [{ kind: 'equals', field: 'kind', type: 'LIST', value: 'bv' }],
  sort: byName,
  page: 0,
  size: 3,
  ...changes,
});

const names = (objects: readonly StoredObject[]) => objects.map((object) => object.values['legalName']);
/** The statements that read object rows by key, and their links. */
const rowReads = (texts: readonly string[]) =>
  texts.filter((sql) => sql.includes('FROM objects o WHERE o.n IN') || sql.includes('FROM links l'));

async function seeded(file: string) {
  const store = openSqliteTenantStore({ file: join(dir, file) });
  await store.applyModel(contractModel);
  await store.write({ put: Array.from({ length: 12 }, (_, index) => company(index + 1)) });
  return store;
}

describe('a list page', () => {
  it('read again reads only its keys, with the same objects and positions', async () => {
    const store = await seeded('again.db');
    const first = await store.page(plan(), ALL);
    const statements = recordStatements(store);
    const again = await store.page(plan(), ALL);

    expect(names(again.rows)).toEqual(['harbor 02', 'harbor 04', 'harbor 06', 'harbor 08']);
    expect(again.rows).toEqual(first.rows);
    expect(again.positions).toEqual(first.positions);
    expect(rowReads(statements())).toEqual([]);
    // The positions remembered page on as those read: the page after the third row.
    const next = await store.page(plan({ after: again.positions[2] }), ALL);
    expect(names(next.rows)).toEqual(['harbor 08', 'harbor 10', 'harbor 12']);
    await store.close();
  });

  it('in another order reads its rows for their sort keys once, then remembers both orders', async () => {
    const store = await seeded('orders.db');
    await store.page(plan(), ALL);
    const statements = recordStatements(store);
    const byEmailPage = await store.page(plan({ sort: byEmail, size: 2 }), ALL);
    expect(byEmailPage.rows.map((object) => object.values['email'])).toEqual([
      'c8@example.test',
      'c6@example.test',
      'c4@example.test',
    ]);
    expect(rowReads(statements()).length).toBeGreaterThan(0);
    const read = statements().length;
    const again = await store.page(plan({ sort: byEmail, size: 2 }), ALL);
    expect(again.positions).toEqual(byEmailPage.positions);
    expect(names((await store.page(plan(), ALL)).rows)).toEqual([
      'harbor 02',
      'harbor 04',
      'harbor 06',
      'harbor 08',
    ]);
    expect(rowReads(statements().slice(read))).toEqual([]);
    await store.close();
  });

  it('reads its rows again after a write of the store and shows what was written', async () => {
    const store = await seeded('written.db');
    await store.page(plan(), ALL);
    await store.write({ put: [company(4, 'harbor 05 renamed')] });
    const statements = recordStatements(store);
    expect(names((await store.page(plan(), ALL)).rows)).toEqual([
      'harbor 02',
      'harbor 05 renamed',
      'harbor 06',
      'harbor 08',
    ]);
    expect(rowReads(statements()).length).toBeGreaterThan(0);
    await store.close();
  });

  it('reads its rows again after another connection committed and shows what it wrote', async () => {
    const store = await seeded('elsewhere.db');
    const other = openSqliteTenantStore({ file: join(dir, 'elsewhere.db') });
    await other.applyModel(contractModel);
    await store.page(plan(), ALL);
    // A change that leaves the page's keys and order as they were: only the rows tell it.
    await other.write({ put: [company(6, 'harbor 06 by the other')] });
    expect(names((await store.page(plan(), ALL)).rows)).toEqual([
      'harbor 02',
      'harbor 04',
      'harbor 06 by the other',
      'harbor 08',
    ]);
    await other.close();
    await store.close();
  });
});

describe('RememberedRows', () => {
  const object = (n: number) => company(n);
  function rowsWith(state: { inTransaction: boolean; version: number }) {
    const listeners: (() => void)[] = [];
    const context: ConnectionChanges = {
      inTransaction: () => state.inTransaction,
      dataVersion: () => state.version,
      onWrite: (listener) => listeners.push(listener),
    };
    return { rows: new RememberedRows(context), written: () => listeners.forEach((listener) => listener()) };
  }

  it('keeps nothing read before a write, and nothing inside a write transaction', () => {
    const state = { inTransaction: false, version: 1 };
    const { rows, written } = rowsWith(state);
    const read = rows.open()!;
    written();
    rows.remember(read, { n: 1, object: object(1), sortKey: 'a' }, 100, 's');
    expect(rows.find(1, 's')).toBeUndefined();

    const fresh = rows.open()!;
    rows.remember(fresh, { n: 1, object: object(1), sortKey: 'a' }, 100, 's');
    expect(rows.find(1, 's')?.sortKey).toBe('a');
    expect(rows.find(1, 'another sort')).toBeUndefined();
    state.inTransaction = true;
    expect(rows.open()).toBeNull();
  });

  it('forgets everything once another connection committed', () => {
    const state = { inTransaction: false, version: 1 };
    const { rows } = rowsWith(state);
    rows.remember(rows.open()!, { n: 1, object: object(1), sortKey: 'a' }, 100, 's');
    state.version = 2;
    const read = rows.open()!;
    expect(rows.find(1, 's')).toBeUndefined();
    rows.remember(read, { n: 2, object: object(2), sortKey: 'b' }, 100, 's');
    expect(rows.find(2, 's')?.object.id).toBe(object(2).id);
  });

  it('keeps at most 1,000,000 characters of rows, the oldest going first, and no row over 65,536', () => {
    const { rows } = rowsWith({ inTransaction: false, version: 1 });
    const read = rows.open()!;
    rows.remember(read, { n: 1, object: object(1), sortKey: 1 }, 65_537, 's');
    expect(rows.find(1, 's')).toBeUndefined();
    for (let n = 1; n <= 16; n += 1) rows.remember(read, { n, object: object(n), sortKey: n }, 65_536, 's');
    // 16 rows of 65,536 characters are 1,048,576: the first goes.
    expect(rows.find(1, 's')).toBeUndefined();
    expect(rows.find(2, 's')?.sortKey).toBe(2);
    expect(rows.find(16, 's')?.sortKey).toBe(16);
  });
});
