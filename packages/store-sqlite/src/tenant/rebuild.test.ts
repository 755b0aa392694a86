import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { contractModel, storedObject } from '@odp/testkit';
import { openSqliteTenantStore } from './store.js';

/**
 * A rebuild of the derived rows (after a model change) while another process writes to the same
 * tenant: each of its transactions waits for that process's lock without blocking the event loop.
 */
const dir = mkdtempSync(join(tmpdir(), 'odp-rebuild-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a rebuild of the derived rows (SQLite)', () => {
  it("waits for another process's lock without blocking the event loop", async () => {
    const file = join(dir, 'documents.sqlite');
    const store = openSqliteTenantStore({ file, rebuildBatchSize: 2 });
    await store.applyModel(contractModel);
    await store.write({
      put: [1, 2, 3, 4, 5].map((n) =>
        storedObject({ n, basicClass: 'ct.company', values: { employees: n } }),
      ),
    });
    const other = new Database(file);
    try {
      other.exec('BEGIN IMMEDIATE');
      let turns = 0;
      const counting = setInterval(() => turns++, 1);
      setTimeout(() => other.exec('COMMIT'), 50);
      try {
        await expect(store.search.rebuild(contractModel)).resolves.toBe(5);
      } finally {
        clearInterval(counting);
      }
      // A busy handler sleeping in this thread would have let no timer run until the commit.
      expect(turns).toBeGreaterThan(5);
    } finally {
      other.close();
      await store.close();
    }
  });
});
