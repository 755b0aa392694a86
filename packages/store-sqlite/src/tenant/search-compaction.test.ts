import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { UNRESTRICTED } from '@odp/core';
import { contractModel, storedObject } from '@odp/testkit';
import { MIN_TRANSACTIONS, QUIET_MS } from './search-compaction.js';
import { openSqliteTenantStore } from './store.js';
import type { SqliteTenantStore } from './store.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-search-compaction-'));
let counter = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Whether the full-text index of `file` holds segments that a merge would combine, asked from a
 * connection of its own and rolled back: FTS5's `merge` changes two or more rows when it found
 * anything to merge (its documented test).
 */
function fragmented(file: string): boolean {
  const db = new Database(file);
  try {
    db.exec('BEGIN IMMEDIATE');
    const changes = db.prepare('SELECT total_changes()').pluck();
    const before = changes.get() as number;
    db.prepare("INSERT INTO search (search, rank) VALUES ('merge', -1)").run();
    return (changes.get() as number) - before >= 2;
  } finally {
    db.exec('ROLLBACK');
    db.close();
  }
}

const company = (n: number) =>
  storedObject({ n, basicClass: 'ct.company', name: `Harbor ${n}`, values: { legalName: `Harbor ${n}` } });

async function opened(searchMergePagesMax?: number): Promise<{ store: SqliteTenantStore; file: string }> {
  const file = join(dir, `tenant-${++counter}.db`);
  const store = openSqliteTenantStore({
    file,
    ...(searchMergePagesMax === undefined ? {} : { searchMergePagesMax }),
  });
  await store.applyModel(contractModel);
  return { store, file };
}

async function writeOneByOne(store: SqliteTenantStore, from: number, count: number): Promise<void> {
  for (let n = from; n < from + count; n++) await store.write({ put: [company(n)] });
}

const searchAll = async (store: SqliteTenantStore) =>
  (await store.search.search({ text: 'harbor', classes: ['ct.company'], size: 1000 }, UNRESTRICTED)).ids
    .slice()
    .sort();

describe('compaction of the full-text index', () => {
  it('merges the index once enough writes fragmented it and it went quiet, and search finds the same objects', async () => {
    const { store, file } = await opened();
    await writeOneByOne(store, 1, MIN_TRANSACTIONS - 1);
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS + 200));
    // Quiet, but below the threshold: nothing merged the segments of the single-object writes.
    expect(fragmented(file)).toBe(true);
    const before = await searchAll(store);
    expect(before).toHaveLength(MIN_TRANSACTIONS - 1);

    await writeOneByOne(store, MIN_TRANSACTIONS, 1);
    // At the threshold, but writes have only just stopped.
    expect(fragmented(file)).toBe(true);
    for (let wait = 0; wait < 200 && fragmented(file); wait++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(fragmented(file)).toBe(false);
    expect(await searchAll(store)).toEqual([...before, company(MIN_TRANSACTIONS).id].sort());
    await store.close();
  });

  it('leaves an index larger than the bound to FTS5 once writes go quiet, and merges it on request', async () => {
    const { store, file } = await opened(1);
    await writeOneByOne(store, 1, MIN_TRANSACTIONS + 20);
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS + 300));
    expect(fragmented(file)).toBe(true);
    await store.compactSearchIndex();
    expect(fragmented(file)).toBe(false);
    expect(await searchAll(store)).toHaveLength(MIN_TRANSACTIONS + 20);
    await store.close();
  });

  it('merges on request after a bulk load', async () => {
    const { store, file } = await opened();
    for (let n = 1; n <= 40; n += 10) {
      store.bulkWrite(Array.from({ length: 10 }, (_, i) => company(n + i)));
    }
    expect(fragmented(file)).toBe(true);
    await store.compactSearchIndex();
    expect(fragmented(file)).toBe(false);
    expect(await searchAll(store)).toHaveLength(40);
    await store.close();
  });

  it('lets the store close while a merge runs', async () => {
    const { store, file } = await opened();
    await writeOneByOne(store, 1, 30);
    const merging = store.compactSearchIndex();
    await store.close();
    await merging;
    const reopened = openSqliteTenantStore({ file });
    await reopened.applyModel(contractModel);
    expect(await searchAll(reopened)).toHaveLength(30);
    await reopened.close();
  });
});
