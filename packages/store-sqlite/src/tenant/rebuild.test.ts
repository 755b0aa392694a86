import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractModel, storedObject } from '@odp/testkit';
import { openSqliteTenantStore } from './store.js';
import { whileLockedElsewhere } from '../../test/lock-held-elsewhere.js';

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
    try {
      const { result, turns } = await whileLockedElsewhere(file, () => store.search.rebuild(contractModel));
      expect(result).toBe(5);
      // A busy handler sleeping in this thread would have let no timer run until the release.
      expect(turns).toBeGreaterThan(5);
    } finally {
      await store.close();
    }
  });
});
