import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { AccessFilter, Filter, ListPlan, Sort, StoredObject } from '@odp/core';
import { contractModel, storedObject, uuid } from '@odp/testkit';
import { explainList } from '../../test/query-plans.js';
import { openSqliteTenantStore } from './store.js';
import type { SqliteTenantStore, SqliteTenantStoreOptions } from './store.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-class-columns-'));
let counter = 0;
const nextFile = (): string => join(dir, `tenant-${++counter}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ALL: AccessFilter = { kind: 'all' };
const ACL: AccessFilter = { kind: 'acl', protectedClasses: ['ct.company'], acIds: ['A'] };
/** Every pair of the contract model's companies gets its composite index. */
const EVERY_PAIR: Partial<SqliteTenantStoreOptions> = { compositeIndexLimit: 100 };
/** No composite index: every list is served by the generic value index. */
const GENERIC: Partial<SqliteTenantStoreOptions> = { compositeIndexLimit: 0 };

/** Companies and subsidiaries (a subclass), with kinds, flags and names in no particular order. */
function objects(): StoredObject[] {
  return Array.from({ length: 90 }, (_, index) => {
    const n = index + 1;
    return storedObject({
      n,
      basicClass: n % 3 === 0 ? 'ct.subsidiary' : 'ct.company',
      name: `Company ${n}`,
      values: {
        legalName: `Company ${String((n * 37) % 97).padStart(2, '0')}`,
        ...(n % 5 === 0 ? {} : { kind: n % 4 === 0 ? 'nv' : 'bv' }),
        active: n % 2 === 0,
        employees: (n * 13) % 17,
      },
    });
  });
}

async function openWith(
  options: Partial<SqliteTenantStoreOptions>,
  file = nextFile(),
): Promise<SqliteTenantStore> {
  const store = openSqliteTenantStore({ file, ...options });
  await store.applyModel(contractModel);
  return store;
}

async function seeded(options: Partial<SqliteTenantStoreOptions>): Promise<SqliteTenantStore> {
  const store = await openWith(options);
  store.bulkWrite(objects());
  await store.write({
    aclRows: objects()
      .filter((_, index) => index % 3 !== 1)
      .map((object) => ({
        objectId: object.id,
        rows: [{ acId: 'A', nodeId: object.id, definition: 'owner' }],
      })),
  });
  // Updates that move objects between values, and a delete, after the rows were first written.
  await store.write({
    put: [
      storedObject({
        n: 4,
        basicClass: 'ct.company',
        values: { legalName: 'Zed', kind: 'bv', active: true },
      }),
      storedObject({ n: 9, basicClass: 'ct.company', values: { legalName: 'Abc', kind: 'nv' } }),
      storedObject({ n: 11, basicClass: 'ct.company', gained: ['ct.subsidiary'], values: { kind: 'nv' } }),
    ],
    delete: [uuid(8)],
  });
  store.analyze();
  return store;
}

const sortBy = (field: string, type: string, direction: 'asc' | 'desc'): Sort =>
  ({ key: { kind: 'field', field, type }, direction }) as Sort;
const TYPES: Record<string, string> = { kind: 'LIST', active: 'BOOLEAN' };
const equals = (field: string, value: unknown): Filter =>
  ({ kind: 'equals', field, type: TYPES[field], value }) as Filter;

/** Every page of a list by page number, then again by keyset cursor. */
async function allPages(
  store: SqliteTenantStore,
  plan: Omit<ListPlan, 'page' | 'size'>,
  access: AccessFilter,
) {
  const byNumber: string[][] = [];
  for (let page = 0; page < 12; page++) {
    byNumber.push((await store.list({ ...plan, page, size: 7 }, access)).map((object) => object.id));
  }
  const byCursor: string[][] = [];
  let after: ListPlan['after'];
  for (let page = 0; page < 12; page++) {
    const result = await store.page({ ...plan, page: 0, size: 7, ...(after ? { after } : {}) }, access);
    byCursor.push(result.rows.map((object) => object.id));
    after = result.positions.at(-1) ?? after;
    if (result.rows.length === 0) break;
  }
  return { byNumber, byCursor };
}

const LISTS: Omit<ListPlan, 'page' | 'size'>[] = [
  { className: 'ct.company', filters: [equals('kind', 'bv')], sort: sortBy('legalName', 'TEXT', 'asc') },
  { className: 'ct.company', filters: [equals('kind', 'nv')], sort: sortBy('employees', 'INTEGER', 'desc') },
  { className: 'ct.company', filters: [equals('active', true)], sort: sortBy('legalName', 'TEXT', 'desc') },
  {
    className: 'ct.company',
    filters: [equals('kind', 'bv'), equals('active', false)],
    sort: sortBy('employees', 'INTEGER', 'asc'),
  },
  { className: 'ct.subsidiary', filters: [equals('kind', 'nv')], sort: sortBy('legalName', 'TEXT', 'asc') },
  { className: 'ct.organisation', filters: [], sort: sortBy('legalName', 'TEXT', 'asc') },
];

describe('class value tables and composite indexes', () => {
  it('list the same pages as the generic value index, by page number and by cursor', async () => {
    const composite = await seeded(EVERY_PAIR);
    const generic = await seeded(GENERIC);
    for (const access of [ALL, ACL]) {
      for (const plan of LISTS) {
        const expected = await allPages(generic, plan, access);
        expect(expected.byNumber.flat().length).toBeGreaterThan(0);
        expect(await allPages(composite, plan, access)).toEqual(expected);
      }
    }
    await composite.close();
    await generic.close();
  });

  it('serve an equality filter sorted by another field from the composite index, with no sort step', async () => {
    const store = await seeded(EVERY_PAIR);
    const plan: ListPlan = { ...LISTS[0]!, page: 3, size: 7 } as ListPlan;
    const details = explainList(store, plan, ALL);
    expect(
      details.some((detail) =>
        /SEARCH d USING (COVERING )?INDEX cv\d+_[0-9a-f]{8}_\d+_\d+ \(f\d+=\?\)/.test(detail),
      ),
    ).toBe(true);
    expect(details.filter((detail) => /TEMP B-TREE/.test(detail))).toEqual([]);
    // Without the composite index the same page sorts the filter's range or walks the sort field's.
    const generic = await seeded(GENERIC);
    expect(explainList(generic, plan, ALL).some((detail) => /\bcv\d+/.test(detail))).toBe(false);
    await store.close();
    await generic.close();
  });

  it('are built from a data file written before them when the model is applied, and rebuilt after an interrupted build', async () => {
    const file = nextFile();
    const plan: ListPlan = { ...LISTS[0]!, page: 2, size: 7 } as ListPlan;
    const reference = await openWith(GENERIC);
    reference.bulkWrite(objects());
    const expected = (await reference.list(plan, ALL)).map((object) => object.id);
    await reference.close();

    const first = await openWith(EVERY_PAIR, file);
    first.bulkWrite(objects());
    await first.close();
    // The previous layout: no class value tables, no layout recorded, the model's signature current.
    const raw = new Database(file);
    const tables = () =>
      raw
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'cv[0-9]*'")
        .pluck()
        .all() as string[];
    for (const table of tables()) raw.exec(`DROP TABLE ${table}`);
    raw.exec("DELETE FROM meta WHERE k = 'layout'");
    expect(tables()).toEqual([]);

    const migrated = await openWith(EVERY_PAIR, file);
    expect(explainList(migrated, plan, ALL).some((detail) => /\bcv\d+/.test(detail))).toBe(true);
    expect((await migrated.list(plan, ALL)).map((object) => object.id)).toEqual(expected);
    await migrated.close();
    const rowsOf = () => tables().map((table) => raw.prepare(`SELECT count(*) FROM ${table}`).pluck().get());
    const built = rowsOf();
    expect(built.some((count) => (count as number) > 0)).toBe(true);

    // A build cut short (rows missing, the signature forgotten) is redone on the next open.
    raw.exec("DELETE FROM meta WHERE k = 'index_signature'");
    for (const table of tables()) raw.exec(`DELETE FROM ${table} WHERE n % 2 = 0`);
    const resumed = await openWith(EVERY_PAIR, file);
    expect(rowsOf()).toEqual(built);
    expect((await resumed.list(plan, ALL)).map((object) => object.id)).toEqual(expected);
    await resumed.close();

    // Opening again with the same layout builds nothing: a row no rebuild would keep stays.
    const marked = tables()[0]!;
    raw.exec(
      `CREATE TEMP TABLE marker AS SELECT * FROM ${marked} LIMIT 1; UPDATE marker SET n = n + 1000000`,
    );
    raw.exec(`INSERT INTO ${marked} SELECT * FROM marker`);
    const reopened = await openWith(EVERY_PAIR, file);
    expect(raw.prepare(`SELECT count(*) FROM ${marked} WHERE n > 1000000`).pluck().get()).toBe(1);
    await reopened.close();
    raw.close();
  });
});
