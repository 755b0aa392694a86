import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractModel, storedObject } from '@odp/testkit';
import { FrozenRankings } from './search-rankings.js';
import { openSqliteTenantStore, sqliteTenantStoreFiles } from './store.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-search-rankings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('frozen search rankings', () => {
  it('keeps a ranking until it expires', () => {
    const rankings = new FrozenRankings(join(dir, 'kept.db'));
    const now = Date.now();
    rankings.store('ranking', '[3,1,2]', now + 60_000, now);
    expect(rankings.read('ranking', now)).toBe('[3,1,2]');
    expect(rankings.read('ranking', now + 60_000)).toBeUndefined();
    rankings.close();
  });

  it('makes an unreadable file anew: its rankings are gone, new ones are kept', () => {
    const tenantFile = join(dir, 'damaged.db');
    writeFileSync(
      `${tenantFile}.rankings`,
      'not a database, as a crash of the machine may leave it '.repeat(200),
    );
    const rankings = new FrozenRankings(tenantFile);
    const now = Date.now();
    expect(rankings.read('lost', now)).toBeUndefined();
    rankings.store('ranking', '[1]', now + 60_000, now);
    expect(rankings.read('ranking', now)).toBe('[1]');
    rankings.close();
  });

  it('is among the files a tenant store names as its own', async () => {
    const storeDir = join(dir, 'store');
    mkdirSync(storeDir);
    const file = join(storeDir, 'documents.sqlite');
    const store = openSqliteTenantStore({ file });
    await store.applyModel(contractModel);
    await store.write({
      put: [1, 2, 3].map((n) =>
        storedObject({ n, basicClass: 'ct.company', values: { legalName: `Harbor ${n}` } }),
      ),
    });
    // A ranked first page with a second one freezes its ranking.
    const first = await store.search.search(
      { text: 'harbor', classes: ['ct.company'], size: 1 },
      { kind: 'all' },
    );
    expect(first.next).not.toBeNull();
    const kept = readdirSync(storeDir).map((name) => join(storeDir, name));
    expect(kept.some((path) => path.endsWith('.rankings'))).toBe(true);
    expect(kept.filter((path) => !sqliteTenantStoreFiles(file).includes(path))).toEqual([]);
    await store.close();
  });
});
