import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccessFilter, AclRow } from '@odp/core';
import { contractModel, storedObject } from '@odp/testkit';
import { storePartsOf } from './inspection.js';
import { openSqliteTenantStore } from './store.js';
import type { SqliteTenantStore } from './store.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-access-rows-'));
let counter = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const company = storedObject({ n: 1, basicClass: 'ct.company', name: 'Acme' });
const row = (acId: string, nodeId: string): AclRow => ({ acId, nodeId, definition: 'owner' });
const holding = (acIds: string[]): AccessFilter => ({ kind: 'acl', protectedClasses: ['ct.company'], acIds });

async function openWith(rows: AclRow[]): Promise<SqliteTenantStore> {
  const store = openSqliteTenantStore({ file: join(dir, `tenant-${++counter}.db`) });
  await store.applyModel(contractModel);
  await store.write({ put: [company], aclRows: [{ objectId: company.id, rows }] });
  return store;
}

/** Rows inserted, updated or deleted by one write of the company's ACL rows (`total_changes()`). */
async function rowsChangedBy(store: SqliteTenantStore, rows: AclRow[]): Promise<number> {
  const { db } = storePartsOf(store).database;
  const changes = () => db.prepare('SELECT total_changes()').pluck().get() as number;
  const before = changes();
  await store.write({ aclRows: [{ objectId: company.id, rows }] });
  return changes() - before;
}

const listed = async (store: SqliteTenantStore, acIds: string[]) =>
  (await store.list({ className: 'ct.company', filters: [], page: 0, size: 5 }, holding(acIds))).map(
    (object) => object.id,
  );

describe('ACL rows of a write', () => {
  it('are not written again when they are the stored ones', async () => {
    const rows = [row('A', 'node-1'), row('B', 'node-2')];
    const store = await openWith(rows);
    expect(await rowsChangedBy(store, [...rows].reverse())).toBe(0);
    expect(await store.aclRowsOf(company.id)).toEqual(rows);
    expect(await listed(store, ['B'])).toEqual([company.id]);
    await store.close();
  });

  it('keep the unchanged rows and replace the changed ones, with the lists by access control', async () => {
    const store = await openWith([row('A', 'node-1'), row('B', 'node-2')]);
    const { database } = storePartsOf(store);
    const classes = database.db
      .prepare('SELECT count(*) FROM cls WHERE n = ?')
      .pluck()
      .get(database.objectKey(company.id)) as number;
    // One row kept, one removed, one added: two changes to `acl`, and the `acl_cls` rows of B
    // (one per class of the company) deleted and those of C inserted.
    expect(await rowsChangedBy(store, [row('A', 'node-1'), row('C', 'node-3')])).toBe(2 + 2 * classes);
    expect(await store.aclRowsOf(company.id)).toEqual([row('A', 'node-1'), row('C', 'node-3')]);
    expect(await listed(store, ['B'])).toEqual([]);
    expect(await listed(store, ['C'])).toEqual([company.id]);
    expect(await listed(store, ['A'])).toEqual([company.id]);
    await store.close();
  });

  it('follow a changed node of the same access control without re-deriving the lists by class', async () => {
    const store = await openWith([row('A', 'node-1')]);
    expect(await rowsChangedBy(store, [row('A', 'node-2')])).toBe(2);
    expect(await store.aclRowsOf(company.id)).toEqual([row('A', 'node-2')]);
    expect(await listed(store, ['A'])).toEqual([company.id]);
    await store.write({ aclRows: [{ objectId: company.id, rows: [] }] });
    expect(await listed(store, ['A'])).toEqual([]);
    await store.close();
  });
});
