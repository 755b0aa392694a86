import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { AccessFilter, ListPlan, StoredObject, WriteBatch } from '@odp/core';
import {
  contractModel,
  describeEventLogContract,
  describeSearchIndexContract,
  describeTenantStoreContract,
  storedObject,
  uuid,
} from '@odp/testkit';
import { countStatementRuns, explainGet, explainList, explainListWalk } from '../../test/query-plans.js';
import { storePartsOf } from './inspection.js';
import { openSqliteTenantStore } from './store.js';
import type { SqliteTenantStore, SqliteTenantStoreOptions } from './store.js';
import { TENANT_MIGRATIONS } from './schema.js';
import { indexSignature } from './index-keys.js';
import { applyMigrations } from '../migrations.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-tenant-store-'));
let counter = 0;
const nextFile = (): string => join(dir, `tenant-${++counter}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeTenantStoreContract('sqlite', async () => openSqliteTenantStore({ file: nextFile() }));
describeEventLogContract('sqlite', async () => openSqliteTenantStore({ file: nextFile() }));
describeSearchIndexContract('sqlite', async () => {
  const store = openSqliteTenantStore({ file: nextFile() });
  return { store, search: store.search };
});

const ALL: AccessFilter = { kind: 'all' };
const ACL: AccessFilter = { kind: 'acl', protectedClasses: ['ct.company'], acIds: ['A', 'B'] };

function company(n: number, values: Record<string, unknown>): StoredObject {
  return storedObject({ n, basicClass: 'ct.company', name: `Company ${n}`, values });
}

/**
 * 40 companies; each carries ACL rows with the acIds `held(n)` gives (default: the even ones carry
 * the held acId A, the odd ones Z, which ACL does not hold), so plans under ACL meet real rows.
 */
async function openSeeded(
  options: Partial<SqliteTenantStoreOptions> = {},
  held: (n: number) => readonly string[] = (n) => [n % 2 === 0 ? 'A' : 'Z'],
): Promise<SqliteTenantStore> {
  const store = openSqliteTenantStore({ file: nextFile(), ...options });
  await store.applyModel(contractModel);
  store.bulkWrite(
    Array.from({ length: 40 }, (_, index) =>
      company(index + 1, {
        legalName: `Company ${String(40 - index).padStart(2, '0')}`,
        kind: index % 2 === 0 ? 'bv' : 'nv',
        email: `c${index + 1}@example.test`,
        employees: index,
      }),
    ),
  );
  await store.write({
    aclRows: Array.from({ length: 40 }, (_, index) => ({
      objectId: uuid(index + 1),
      rows: held(index + 1).flatMap((acId) => [
        { acId, nodeId: uuid(index + 1), definition: 'owner' },
        { acId, nodeId: uuid(100), definition: 'member' },
      ]),
    })),
  });
  store.analyze();
  return store;
}

describe('SqliteTenantStore query plans (EXPLAIN QUERY PLAN)', () => {
  /** A plan step that reads a whole table or index instead of searching a range of it. */
  const fullScan = (detail: string): boolean => /^SCAN (?!json_each)/.test(detail);
  const sortByName = { key: { kind: 'field', field: 'legalName', type: 'TEXT' }, direction: 'asc' } as const;
  const page = (plan: Partial<ListPlan>): ListPlan => ({
    className: 'ct.company',
    filters: [],
    page: 0,
    size: 20,
    ...plan,
  });

  it('gets one object through the id index, also under the access filter', async () => {
    const store = await openSeeded();
    for (const access of [ALL, ACL]) {
      const plan = explainGet(store, uuid(7), access);
      expect(
        plan.some((detail) => /SEARCH o USING INDEX sqlite_autoindex_objects_1 \(id=\?\)/.test(detail)),
      ).toBe(true);
      expect(plan.filter(fullScan)).toEqual([]);
    }
    await store.close();
  });

  it('drives an equality-filtered sorted page from the filter range when it is selective', async () => {
    const store = await openSeeded({ driverLimit: 5 });
    const filters = [{ kind: 'equals', field: 'email', type: 'EMAIL', value: 'c7@example.test' } as const];
    const plan = explainList(store, page({ filters, sort: sortByName }), ACL);
    expect(plan[0]).toMatch(/^SEARCH d USING PRIMARY KEY \(c=\? AND f=\? AND v=\?\)/);
    expect(plan.filter(fullScan)).toEqual([]);
    expect(nums(await store.list(page({ filters, sort: sortByName }), ALL))).toEqual([7]);
    await store.close();
  });

  it('chooses the plan again once a write has changed how selective a filter is', async () => {
    const store = await openSeeded({ driverLimit: 5 });
    const filters = [{ kind: 'equals', field: 'employees', type: 'INTEGER', value: 6 } as const];
    const plan = () => explainList(store, page({ filters, sort: sortByName }), ALL)[0];
    expect(plan()).toMatch(/^SEARCH d USING PRIMARY KEY \(c=\? AND f=\? AND v=\?\)/);
    // The count that chose the filter range is remembered; the write below forgets it at once.
    await store.write({
      put: Array.from({ length: 6 }, (_, index) =>
        company(100 + index, { legalName: `Company ${100 + index}`, employees: 6 }),
      ),
    });
    expect(plan()).toMatch(/^SEARCH d USING PRIMARY KEY \(c=\? AND f=\?\)/);
    expect(await store.list(page({ filters, sort: sortByName }), ALL)).toHaveLength(7);
    await store.close();
  });

  it('walks the sort index in order, without a sort step, when the filter is broad', async () => {
    const store = await openSeeded({ driverLimit: 5 });
    const filters = [{ kind: 'equals', field: 'kind', type: 'LIST', value: 'bv' } as const];
    for (const access of [ALL, ACL]) {
      const plan = explainList(store, page({ filters, sort: sortByName, page: 1, size: 5 }), access);
      expect(plan[0]).toMatch(/^SEARCH d USING PRIMARY KEY \(c=\? AND f=\?\)/);
      expect(plan.filter(fullScan)).toEqual([]);
      expect(plan.some((detail) => detail.includes('TEMP B-TREE'))).toBe(false);
    }
    const rows = await store.list(page({ filters, sort: sortByName, page: 1, size: 5 }), ALL);
    expect(rows.map((row) => row.values.legalName)).toEqual([
      'Company 12',
      'Company 14',
      'Company 16',
      'Company 18',
      'Company 20',
      'Company 22',
    ]);
    await store.close();
  });

  it('starts a keyset page with a seek on the sort index or on creation order, never a count', async () => {
    const store = await openSeeded({ driverLimit: 5 });
    for (const direction of ['asc', 'desc'] as const) {
      const sort = { ...sortByName, direction };
      const first = await store.page(page({ sort, size: 5 }), ALL);
      const after = first.positions[4];
      expect(after?.key).toBe(direction === 'asc' ? 'Company 05' : 'Company 36');
      const plan = explainList(store, page({ sort, size: 5, ...(after ? { after } : {}) }), ALL);
      expect(plan[0]).toMatch(/^SEARCH d USING PRIMARY KEY \(c=\? AND f=\? AND \(v,n\)[<>]\(\?,\?\)\)/);
      expect(plan.some((detail) => detail.includes('TEMP B-TREE'))).toBe(false);
      const second = await store.page(page({ sort, size: 5, ...(after ? { after } : {}) }), ALL);
      expect(second.rows.map((row) => row.values.legalName)).toEqual(
        (await store.list(page({ sort, size: 5, page: 1 }), ALL)).map((row) => row.values.legalName),
      );
    }
    for (const access of [ALL, ACL]) {
      const plan = explainList(store, page({ after: { key: null, seq: 20 } }), access);
      expect(plan[0]).toMatch(/^SEARCH d USING PRIMARY KEY \(c=\? AND n>\?\)/);
      expect(plan.filter(fullScan)).toEqual([]);
    }
    expect(nums(await store.list(page({ after: { key: null, seq: 20 }, size: 3 }), ACL))).toEqual([
      22, 24, 26, 28,
    ]);
    await store.close();
  });

  it('walks the sort index, bounded, when a filter under the driver limit is a large share of the class', async () => {
    // kind = bv holds 20 of the 40 companies (the odd keys): under the default driver limit, so the
    // page query reads and sorts them; the walk in name order finds a page of 5 within 20 entries.
    const store = await openSeeded({}, (n) => [n % 3 === 0 ? 'A' : 'Z']);
    const filters = [{ kind: 'equals', field: 'kind', type: 'LIST', value: 'bv' } as const];
    const bv = Array.from({ length: 40 }, (_, index) => index + 1).filter((n) => n % 2 === 1);
    // Names are `Company <41 - n>`: name order is descending key order.
    const byName = { asc: [...bv].reverse(), desc: bv };
    for (const [access, visible] of [
      [ALL, () => true],
      [ACL, (n: number) => n % 3 === 0],
    ] as const) {
      for (const direction of ['asc', 'desc'] as const) {
        const sort = { ...sortByName, direction };
        const expected = byName[direction].filter(visible);
        const walk = explainListWalk(store, page({ filters, sort, size: 3 }), access);
        expect(walk?.some((detail) => /SEARCH d USING PRIMARY KEY \(c=\? AND f=\?\)/.test(detail))).toBe(
          true,
        );
        for (const size of [3, 5]) {
          for (const pageNumber of [0, 1, 2]) {
            const rows = await store.list(page({ filters, sort, size, page: pageNumber }), access);
            expect(nums(rows)).toEqual(expected.slice(pageNumber * size, (pageNumber + 1) * size + 1));
          }
        }
        // A keyset page walks from its seek.
        const first = await store.page(page({ filters, sort, size: 3 }), access);
        const after = first.positions[2];
        const next = await store.list(page({ filters, sort, size: 3, ...(after ? { after } : {}) }), access);
        expect(nums(next)).toEqual(expected.slice(3, 7));
      }
    }
    // A walk that ends short (16 rows asked, 10 of them in the first 20 entries) leaves the page
    // to the page query; a page past the filter's rows has no walk.
    const long = await store.list(page({ filters, sort: sortByName, size: 15 }), ALL);
    expect(nums(long)).toEqual(byName.asc.slice(0, 16));
    expect(explainListWalk(store, page({ filters, sort: sortByName, size: 5, page: 4 }), ALL)).toBeNull();
    await store.close();
  });

  it('walks a range of the sort field in order when a broad filter is on that field', async () => {
    const store = await openSeeded({ driverLimit: 5 });
    const filters = [{ kind: 'startsWith', field: 'legalName', type: 'TEXT', value: 'Company 1' } as const];
    const plan = explainList(store, page({ filters, sort: sortByName }), ALL);
    expect(plan[0]).toMatch(/^SEARCH d USING PRIMARY KEY \(c=\? AND f=\? AND v>\? AND v<\?\)/);
    expect(plan.some((detail) => detail.includes('TEMP B-TREE'))).toBe(false);
    const rows = await store.list(page({ filters, sort: sortByName, size: 3 }), ALL);
    expect(rows.map((row) => row.values.legalName)).toEqual([
      'Company 10',
      'Company 11',
      'Company 12',
      'Company 13',
    ]);
    await store.close();
  });

  it('drives a page from the held grants when they are selective, each object once', async () => {
    const store = await openSeeded({ driverLimit: 10 }, (n) =>
      n === 7 ? ['A', 'B'] : n === 31 ? ['B'] : n === 12 ? ['Z', 'A'] : ['Z'],
    );
    for (const plan of [page({ sort: sortByName }), page({})]) {
      const details = explainList(store, plan, ACL);
      expect(details[0]).toMatch(/^SEARCH d USING PRIMARY KEY \(ac=\? AND c=\?\)/);
      expect(details.filter(fullScan)).toEqual([]);
    }
    expect(nums(await store.list(page({}), ACL))).toEqual([7, 12, 31]);
    expect(nums(await store.list(page({ sort: sortByName }), ACL))).toEqual([31, 12, 7]);
    expect(nums(await store.list(page({ size: 1, page: 1 }), ACL))).toEqual([12, 31]);
    const kind = [{ kind: 'equals', field: 'kind', type: 'LIST', value: 'bv' } as const];
    expect(nums(await store.list(page({ filters: kind }), ACL))).toEqual([7, 31]);
    expect(await store.aggregate({ ...page({}), sum: [], avg: [], count: ['employees'] }, ACL)).toMatchObject(
      {
        count: { employees: 3 },
      },
    );
    await store.close();
  });

  it('counts the held grants of the listed class only, and follows ACL rows as they change', async () => {
    const store = await openSeeded({ driverLimit: 10 }, (n) => (n === 7 ? ['A'] : ['Z']));
    const persons = Array.from({ length: 30 }, (_, index) =>
      storedObject({ n: 200 + index, basicClass: 'ct.person', name: `Person ${index}` }),
    );
    await store.write({
      put: persons,
      aclRows: persons.map((person) => ({
        objectId: person.id,
        rows: [{ acId: 'A', nodeId: person.id, definition: 'owner' }],
      })),
    });
    const companies = page({ sort: sortByName });
    expect(explainList(store, companies, ACL)[0]).toMatch(/^SEARCH d USING PRIMARY KEY \(ac=\? AND c=\?\)/);
    expect(nums(await store.list(companies, ACL))).toEqual([7]);
    await store.write({
      aclRows: [{ objectId: uuid(9), rows: [{ acId: 'B', nodeId: uuid(9), definition: 'owner' }] }],
    });
    expect(nums(await store.list(companies, ACL))).toEqual([9, 7]);
    await store.write({ delete: [uuid(7)] });
    await store.write({ aclRows: [{ objectId: uuid(9), rows: [] }] });
    expect(await store.list(companies, ACL)).toEqual([]);
    expect(
      await store.list({ ...companies, className: 'ct.person' }, { ...ACL, protectedClasses: ['ct.person'] }),
    ).toHaveLength(21);
    await store.close();
  });

  it('skips a walk that ended short a moment ago, with the same rows, until the next write', async () => {
    // The visible companies (1-10) are last in name order: a walk of the first 10 entries in name
    // order meets none of them, and the page query driven by the held grants answers.
    const store = await openSeeded({}, (n) => [n <= 10 ? 'A' : 'Z']);
    const plan = page({ sort: sortByName, size: 3 });
    const walk = storePartsOf(store).planner.listQueries(plan, ACL)?.walk;
    if (walk === undefined) throw new Error('The plan should have a walk.');
    const walks = countStatementRuns(store, walk.text);
    expect(nums(await store.list(plan, ACL))).toEqual([10, 9, 8, 7]);
    expect(walks()).toBe(1);
    expect(nums(await store.list(plan, ACL))).toEqual([10, 9, 8, 7]);
    expect(walks()).toBe(1);
    // A write forgets it: four companies first in name order become visible, and the walk finds them.
    await store.write({
      aclRows: [37, 38, 39, 40].map((n) => ({
        objectId: uuid(n),
        rows: [{ acId: 'A', nodeId: uuid(n), definition: 'owner' }],
      })),
    });
    // The walk's bound is the held grants' count, written into its text: 14 entries now.
    const walkAfterWrite = storePartsOf(store).planner.listQueries(plan, ACL)?.walk;
    if (walkAfterWrite === undefined) throw new Error('The plan should still have a walk.');
    expect(walkAfterWrite.text).not.toBe(walk.text);
    const walksAfterWrite = countStatementRuns(store, walkAfterWrite.text);
    expect(nums(await store.list(plan, ACL))).toEqual([40, 39, 38, 37]);
    expect(walksAfterWrite()).toBe(1);
    expect(walks()).toBe(1);
    await store.close();
  });

  it('keeps walking the class when the held grants are broad', async () => {
    const store = await openSeeded({ driverLimit: 10 });
    const details = explainList(store, page({}), ACL);
    expect(details[0]).toMatch(/^SEARCH d USING PRIMARY KEY \(c=\?\)/);
    expect(nums(await store.list(page({ size: 3 }), ACL))).toEqual([2, 4, 6, 8]);
    await store.close();
  });

  it('walks class membership in creation order for an unsorted page', async () => {
    const store = await openSeeded();
    const plan = explainList(store, page({ page: 1 }), ALL);
    expect(plan[0]).toMatch(/^SEARCH d USING PRIMARY KEY \(c=\?\)/);
    expect(plan.some((detail) => detail.includes('TEMP B-TREE'))).toBe(false);
    await store.close();
  });
});

describe('SqliteTenantStore specifics', () => {
  it('compares text case-insensitively in filters and sorts', async () => {
    const store = await openSeeded();
    const filters = [{ kind: 'equals', field: 'legalName', type: 'TEXT', value: 'company 05' } as const];
    expect(nums(await store.list({ className: 'ct.company', filters, page: 0, size: 20 }, ALL))).toEqual([
      36,
    ]);
    const prefix = [{ kind: 'startsWith', field: 'legalName', type: 'TEXT', value: 'COMPANY 0' } as const];
    expect(
      await store.list({ className: 'ct.company', filters: prefix, page: 0, size: 20 }, ALL),
    ).toHaveLength(9);
    await store.close();
  });

  it('keeps acknowledged writes across a reopen and records the schema version', async () => {
    const file = nextFile();
    const store = openSqliteTenantStore({ file });
    await store.applyModel(contractModel);
    await store.write({ put: [company(1, { legalName: 'Kept' })] });
    await store.close();
    const reopened = openSqliteTenantStore({ file });
    await reopened.applyModel(contractModel);
    expect((await reopened.get(uuid(1), ALL))?.values).toEqual({ legalName: 'Kept' });
    await reopened.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(TENANT_MIGRATIONS.length);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });

  it('upgrades a database of an earlier schema and rebuilds its derived data', async () => {
    const file = nextFile();
    const old = new Database(file);
    applyMigrations(old, TENANT_MIGRATIONS.slice(0, 2));
    old.close();
    const store = openSqliteTenantStore({ file });
    await store.applyModel(contractModel);
    await store.write({ put: [company(1, { legalName: 'Upgraded' })] });
    expect((await store.search.search({ text: 'u', classes: ['ct.company'], size: 5 }, ALL)).ids).toEqual([
      uuid(1),
    ]);
    await store.close();
  });

  it('reads the events of a schema without changed field names, and records them from then on', async () => {
    const file = nextFile();
    const old = new Database(file);
    applyMigrations(old, TENANT_MIGRATIONS.slice(0, 7));
    old
      .prepare(
        "INSERT INTO events (type, object_id, classes, at) VALUES ('update', ?, '[\"ct.company\"]', 't')",
      )
      .run(uuid(1));
    old.close();
    const store = openSqliteTenantStore({ file });
    await store.applyModel(contractModel);
    await store.write({
      events: [
        { type: 'update', objectId: uuid(1), classes: ['ct.company'], at: 'u', changed: ['legalName'] },
      ],
    });
    expect((await store.events.read(null, 10)).events).toEqual([
      { cursor: '1', type: 'update', objectId: uuid(1), classes: ['ct.company'], at: 't' },
      {
        cursor: '2',
        type: 'update',
        objectId: uuid(1),
        classes: ['ct.company'],
        at: 'u',
        changed: ['legalName'],
      },
    ]);
    await store.close();
  });

  it('moves objects of an earlier schema to never-reused keys', async () => {
    const file = nextFile();
    const old = new Database(file);
    applyMigrations(old, TENANT_MIGRATIONS.slice(0, 3));
    const insert = old.prepare(
      "INSERT INTO objects (n, id, basic, classes, name, vals, created, modified) VALUES (?, ?, 'ct.company', '[\"ct.company\",\"ct.organisation\"]', ?, '{}', 't', 't')",
    );
    insert.run(1, uuid(1), 'First');
    insert.run(2, uuid(2), 'Second');
    old.close();
    const store = openSqliteTenantStore({ file });
    await store.applyModel(contractModel);
    expect(nums(await store.list({ className: 'ct.company', filters: [], page: 0, size: 5 }, ALL))).toEqual([
      1, 2,
    ]);
    await store.write({ delete: [uuid(2)] });
    await store.write({ put: [company(3, {})] });
    const raw = new Database(file, { readonly: true });
    expect(raw.prepare('SELECT n FROM objects WHERE id = ?').pluck().get(uuid(3))).toBe(3);
    raw.close();
    await store.close();
  });

  it('isolates tenants by database file', async () => {
    const first = await openSeeded();
    const second = openSqliteTenantStore({ file: nextFile() });
    await second.applyModel(contractModel);
    expect(await second.get(uuid(1), ALL)).toBeNull();
    expect(await second.list({ className: 'ct.company', filters: [], page: 0, size: 20 }, ALL)).toEqual([]);
    await first.close();
    await second.close();
  });

  it('refuses queries and writes before a model is applied', async () => {
    const store = openSqliteTenantStore({ file: nextFile() });
    await expect(store.write({ put: [company(1, {})] })).rejects.toThrow('applyModel');
    await store.close();
  });

  it('changes the search index in the same transaction as the objects', async () => {
    const store = await openSeeded();
    const find = async (text: string) =>
      (await store.search.search({ text, classes: ['ct.company'], size: 10 }, ALL)).ids;
    const failing = storedObject({
      n: 100,
      basicClass: 'ct.company',
      name: 'Zanzibar',
      links: { 'ct.company#shareholders': [999] },
    });
    await expect(store.write({ put: [failing] })).rejects.toThrow();
    expect(await find('zanz')).toEqual([]);
    await store.write({ put: [storedObject({ n: 100, basicClass: 'ct.company', name: 'Zanzibar' })] });
    expect(await find('zanz')).toEqual([uuid(100)]);
    await store.write({ delete: [uuid(100)] });
    expect(await find('zanz')).toEqual([]);
    await store.close();
  });

  it('lists matches of a broad search newest first, paging by cursor', async () => {
    const store = await openSeeded({ searchRankLimit: 10 });
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const result = await store.search.search(
        { text: 'comp', classes: ['ct.company'], size: 15, ...(cursor === undefined ? {} : { cursor }) },
        ALL,
      );
      seen.push(...nums(result.ids.map((id) => ({ id }))));
      cursor = result.next ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual(Array.from({ length: 40 }, (_, index) => 40 - index));
    await store.close();
  });
});

describe('SqliteTenantStore search ranking from bounded work', () => {
  /** The 40 seeded companies and two more matching `zyx`: 41 (older, `zyx` three times) and 42. */
  async function openWithZyx(searchRankLimit: number): Promise<SqliteTenantStore> {
    const store = await openSeeded({ searchRankLimit });
    await store.write({
      put: [
        company(41, { legalName: 'zyx zyx zyx', email: 'c41@example.test' }),
        company(42, { legalName: 'zyx', email: 'c42@example.test' }),
      ],
    });
    return store;
  }
  const zyxComp = async (store: SqliteTenantStore) =>
    nums(
      (await store.search.search({ text: 'zyx comp', classes: ['ct.company'], size: 10 }, ALL)).ids.map(
        (id) => ({ id }),
      ),
    );

  it('ranks by bm25 when the query and each of its terms match few entries', async () => {
    // 2 matches <= 5; `comp` matches 42 entries <= 10 x 5.
    const store = await openWithZyx(5);
    expect(await zyxComp(store)).toEqual([41, 42]);
    await store.close();
  });

  it('lists newest first when one term matches too many entries for bm25, however few the query matches', async () => {
    // 2 matches <= 3, but `comp` matches 42 entries > 10 x 3: bm25 would read all of them.
    const store = await openWithZyx(3);
    expect(await zyxComp(store)).toEqual([42, 41]);
    await store.close();
  });
});

describe('SqliteTenantStore rebuild in batches', () => {
  const yieldOnce = () => new Promise((resolve) => setImmediate(resolve));
  const byName = { key: { kind: 'field', field: 'legalName', type: 'TEXT' }, direction: 'asc' } as const;
  const bv = [{ kind: 'equals', field: 'kind', type: 'LIST', value: 'bv' } as const];

  it('serves reads between its batches, each object with complete derived rows', async () => {
    const store = await openSeeded({ rebuildBatchSize: 5 });
    const read = async () => ({
      all: nums(await store.list({ className: 'ct.company', filters: [], page: 0, size: 100 }, ALL)),
      sorted: nums(
        await store.list({ className: 'ct.company', filters: [], sort: byName, page: 0, size: 100 }, ALL),
      ),
      filtered: nums(await store.list({ className: 'ct.company', filters: bv, page: 0, size: 100 }, ALL)),
      found: (await store.search.search({ text: 'private company', classes: ['ct.company'], size: 100 }, ALL))
        .ids.length,
      // Answered from the per-value counters except while the rebuild runs (then by reading objects).
      kinds: await store.distinct(
        {
          className: 'ct.company',
          filters: [],
          target: { kind: 'field', field: 'kind', type: 'LIST' },
          order: 'value',
        },
        ALL,
      ),
      totals: await store.aggregate(
        { className: 'ct.company', filters: bv, sum: ['employees'], avg: [], count: [] },
        ALL,
      ),
    });
    const before = await read();
    expect(before.all).toHaveLength(40);
    expect(before.kinds.reduce((total, bucket) => total + bucket.count, 0)).toBeGreaterThan(0);
    let finished = false;
    const rebuilding = store.search.rebuild(contractModel).then((count) => {
      finished = true;
      return count;
    });
    let readsDuring = 0;
    while (!finished) {
      expect(await read()).toEqual(before);
      readsDuring += 1;
      await yieldOnce();
    }
    expect(await rebuilding).toBe(40);
    expect(readsDuring).toBeGreaterThanOrEqual(8);
    expect(await read()).toEqual(before);
    await store.close();
  });

  it('stops when a newer model starts its own rebuild, which records its signature', async () => {
    const store = await openSeeded({ rebuildBatchSize: 5 });
    const file = join(dir, `tenant-${counter}.db`);
    const withoutLists = { ...contractModel, lists: new Map() };
    const superseded = store.search.rebuild(withoutLists);
    await yieldOnce();
    await store.applyModel(contractModel);
    expect(await superseded).toBeLessThan(40);
    const found = await store.search.search({ text: 'private', classes: ['ct.company'], size: 100 }, ALL);
    expect(found.ids).toHaveLength(20);
    await store.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.prepare("SELECT v FROM meta WHERE k = 'index_signature'").pluck().get()).toBe(
      indexSignature(contractModel),
    );
    raw.close();
  });
});

describe('SqliteSearchIndex paging', () => {
  const firstOf = async (store: SqliteTenantStore, text: string, size: number) =>
    store.search.search({ text, classes: ['ct.company'], size }, ALL);

  it('pages newest first below the first page snapshot while the newest is deleted and others created', async () => {
    const store = await openSeeded({ searchRankLimit: 10 });
    const first = await firstOf(store, 'comp', 5);
    expect(nums(first.ids.map((id) => ({ id })))).toEqual([40, 39, 38, 37, 36]);
    await store.write({ delete: [uuid(40)] });
    await store.write({ put: [company(41, {})] });
    const rest: number[] = [];
    for (let cursor = first.next; cursor !== null;) {
      const page = await store.search.search({ text: 'comp', classes: ['ct.company'], size: 5, cursor }, ALL);
      rest.push(...nums(page.ids.map((id) => ({ id }))));
      cursor = page.next;
    }
    expect(rest).toEqual(Array.from({ length: 35 }, (_, index) => 35 - index));
    await store.close();
  });

  it('freezes the ranking of a first page while another connection holds the write lock, without waiting for it', async () => {
    const store = await openSeeded();
    const { database } = storePartsOf(store);
    const other = new Database(database.db.name);
    other.exec('BEGIN IMMEDIATE');
    try {
      const first = await firstOf(store, 'company', 5);
      expect(first.next).not.toBeNull();
      const second = await store.search.search(
        { text: 'company', classes: ['ct.company'], size: 5, cursor: first.next ?? '' },
        ALL,
      );
      expect(second.ids).toHaveLength(5);
      // Both pages were served while the tenant's write lock was still held elsewhere.
      expect(other.inTransaction).toBe(true);
    } finally {
      other.exec('COMMIT');
      other.close();
    }
    await store.close();
  });

  it('continues a ranked paging another connection started (another api process)', async () => {
    const store = await openSeeded();
    const elsewhere = openSqliteTenantStore({ file: storePartsOf(store).database.db.name });
    await elsewhere.applyModel(contractModel);
    const query = { text: 'company', classes: ['ct.company'], size: 5 };
    const first = await store.search.search(query, ALL);
    const second = await elsewhere.search.search({ ...query, cursor: first.next ?? '' }, ALL);
    const sameHere = await store.search.search({ ...query, cursor: first.next ?? '' }, ALL);
    expect(second.ids).toHaveLength(5);
    expect(second).toEqual(sameHere);
    await elsewhere.close();
    await store.close();
  });

  it('refuses the cursor of a ranked paging once it has expired', async () => {
    const store = await openSeeded({ searchCursorTtlMs: 50 });
    const first = await firstOf(store, 'company', 5);
    expect(first.next).not.toBeNull();
    const cursor = first.next ?? '';
    const second = await store.search.search(
      { text: 'company', classes: ['ct.company'], size: 5, cursor },
      ALL,
    );
    expect(second.ids).toHaveLength(5);
    await new Promise((resolve) => setTimeout(resolve, 80));
    await expect(
      store.search.search({ text: 'company', classes: ['ct.company'], size: 5, cursor }, ALL),
    ).rejects.toThrow('expired');
    await store.close();
  });
});

function nums(objects: readonly { id: string }[]): number[] {
  return objects.map((object) => Number(object.id.slice(-12)));
}

// `write` commits each batch; `applyWrite` applies the batches of one turn in one transaction
// (a failing one rolls it back, the others applied again) and each resolves `committed`.
const writeWays: [string, (store: SqliteTenantStore, batch: WriteBatch) => Promise<void>][] = [
  ['write', (store, batch) => store.write(batch)],
  [
    'applyWrite, then committed',
    (store, batch) => store.applyWrite(batch).then((applied) => applied.committed),
  ],
];

describe.each(writeWays)('SqliteTenantStore concurrent writes (%s)', (_, write) => {
  it('applies writes in call order; a failing batch is rolled back alone and rejects alone', async () => {
    const store = openSqliteTenantStore({ file: nextFile() });
    await store.applyModel(contractModel);
    await store.write({ put: [company(1, { legalName: 'One', email: 'one@example.test' })] });
    const outcomes = await Promise.allSettled([
      write(store, { put: [company(2, { legalName: 'Two', kind: 'bv' })] }),
      // Stale expectation: a conflict.
      write(store, {
        put: [company(1, { legalName: 'One changed' })],
        expect: [{ id: uuid(1), modifiedAt: '1999-01-01T00:00:00.000Z' }],
      }),
      // A link to a missing object, from an object of a class never stored before (new dict keys).
      write(store, {
        put: [
          storedObject({
            n: 30,
            basicClass: 'ct.invoice',
            values: { amount: 1, number: 'I-30' },
            links: { 'ct.invoice#client': [999] },
          }),
        ],
      }),
      // A unique clash with the first object.
      write(store, { put: [company(3, { legalName: 'Three', email: 'one@example.test' })] }),
      write(store, { put: [company(4, { legalName: 'Four', kind: 'bv' })], delete: [uuid(2)] }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    expect((await store.get(uuid(1), ALL))?.values['legalName']).toBe('One');
    expect(await store.get(uuid(2), ALL)).toBeNull();
    expect(await store.get(uuid(3), ALL)).toBeNull();
    expect(await store.get(uuid(30), ALL)).toBeNull();
    expect((await store.get(uuid(4), ALL))?.values['legalName']).toBe('Four');
    // Keys interned by the rolled-back batch are not remembered: a later invoice is stored whole.
    await store.write({
      put: [
        storedObject({
          n: 31,
          basicClass: 'ct.invoice',
          values: { amount: 2, number: 'I-31' },
          links: { 'ct.invoice#client': [4] },
        }),
      ],
    });
    expect((await store.get(uuid(31), ALL))?.links).toEqual({ 'ct.invoice#client': [uuid(4)] });
    expect(
      (await store.list({ className: 'ct.invoice', filters: [], page: 0, size: 10 }, ALL)).map(
        (object) => object.id,
      ),
    ).toEqual([uuid(31)]);
    const kinds = await store.distinct(
      {
        className: 'ct.company',
        filters: [],
        target: { kind: 'field', field: 'kind', type: 'LIST' },
        order: 'value',
      },
      ALL,
    );
    expect(kinds.map((bucket) => [bucket.value, bucket.count])).toEqual([['bv', 1]]);
    await store.close();
  });
});
