import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredObject } from '@odp/core';
import { contractModel, storedObject } from '@odp/testkit';
import { storePartsOf } from './inspection.js';
import { openSqliteTenantStore } from './store.js';
import type { SqliteTenantStore } from './store.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-derived-rows-'));
let counter = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const company = (values: Record<string, unknown>, links: Record<string, number[]> = {}): StoredObject =>
  storedObject({ n: 1, basicClass: 'ct.company', name: 'Acme', values, links });

const VALUES_ID = storedObject({ n: 1, basicClass: 'ct.company' }).id;
const VALUES = { legalName: 'Acme', kind: 'bv', active: true, employees: 12, tags: ['a', 'b'] };

async function openWith(object: StoredObject): Promise<SqliteTenantStore> {
  const store = openSqliteTenantStore({ file: join(dir, `tenant-${++counter}.db`) });
  await store.applyModel(contractModel);
  await store.write({ put: [storedObject({ n: 2, basicClass: 'ct.company', name: 'Other' }), object] });
  return store;
}

/** Rows inserted, updated or deleted by one write (SQLite's `total_changes()`). */
async function rowsChangedBy(store: SqliteTenantStore, object: StoredObject): Promise<number> {
  const { db } = storePartsOf(store).database;
  const changes = () => db.prepare('SELECT total_changes()').pluck().get() as number;
  const before = changes();
  await store.write({ put: [object] });
  return changes() - before;
}

describe('derived rows of an update', () => {
  it('are not written again when the update changes no value, relation or class', async () => {
    const object = company(VALUES, { 'ct.company#shareholders': [2] });
    const store = await openWith(object);
    // The object row alone (its modification time).
    expect(await rowsChangedBy(store, { ...object, modifiedAt: '2025-01-01T00:00:00.000Z' })).toBe(1);
    await store.close();
  });

  it("write fewer rows than a rewrite of the object's index entries, and read back as written", async () => {
    const store = await openWith(company(VALUES));
    const { database } = storePartsOf(store);
    const entriesOfObject = database.db
      .prepare('SELECT count(*) FROM ix WHERE n = ?')
      .pluck()
      .get(database.objectKey(VALUES_ID)) as number;
    const changed = company({ ...VALUES, tags: ['b', 'c'] });
    // Rewriting the derived rows would delete and insert each of the object's index entries; the
    // update changes the object row, two entries of one field and the search text.
    expect(await rowsChangedBy(store, changed)).toBeLessThan(entriesOfObject);
    const tagged = async (tag: string) =>
      (
        await store.list(
          {
            className: 'ct.company',
            filters: [{ kind: 'equals', field: 'tags', type: 'TEXT', value: tag }],
            page: 0,
            size: 5,
          },
          { kind: 'all' },
        )
      ).map((object) => object.id);
    expect(await tagged('c')).toEqual([changed.id]);
    expect(await tagged('a')).toEqual([]);
    await store.close();
  });

  it('follow a change of the classes an update leaves the object with, lost and gained again', async () => {
    const person = (gained: readonly string[]) =>
      storedObject({ n: 3, basicClass: 'ct.person', name: 'Ann', gained });
    const store = await openWith(person(['ct.shareholder']));
    const shareholders = async () =>
      (await store.list({ className: 'ct.shareholder', filters: [], page: 0, size: 5 }, { kind: 'all' })).map(
        (object) => object.id,
      );
    expect(await shareholders()).toEqual([person([]).id]);
    await store.write({ put: [person([])] });
    expect(await shareholders()).toEqual([]);
    await store.write({ put: [person(['ct.shareholder'])] });
    expect(await shareholders()).toEqual([person([]).id]);
    await store.close();
  });
});
