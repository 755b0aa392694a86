import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { contractModel, outboxJob } from '@odp/testkit';
import { openSqliteTenantStore } from './store.js';
import { whileLockedElsewhere } from '../../test/lock-held-elsewhere.js';

/**
 * The relay's removal of jobs from a tenant's outbox: applied in the write transaction shared by
 * the writes of its turn (group commit), and waiting for the lock another process holds without
 * blocking the event loop.
 */
const dir = mkdtempSync(join(tmpdir(), 'odp-outbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('removing relayed jobs from the outbox (SQLite)', () => {
  it("waits for another process's lock without blocking, and commits with the turn's writes", async () => {
    const file = join(dir, 'documents.sqlite');
    const store = openSqliteTenantStore({ file });
    await store.applyModel(contractModel);
    await store.write({ jobs: [outboxJob('a'), outboxJob('b')] });
    const other = new Database(file);
    const outboxOf = () => other.prepare('SELECT id FROM outbox ORDER BY seq').pluck().all();
    try {
      const { turns } = await whileLockedElsewhere(file, () => store.removeFromOutbox(['a']));
      // A busy handler sleeping in this thread would have let no timer run until the release.
      expect(turns).toBeGreaterThan(5);
      // Read at once by the relay's connection; by others once the turn's transaction committed.
      expect((await store.outbox(10)).map((queued) => queued.id)).toEqual(['b']);
      expect(outboxOf()).toEqual(['a', 'b']);
      await new Promise((resolve) => setImmediate(resolve));
      expect(outboxOf()).toEqual(['b']);
    } finally {
      other.close();
      await store.close();
    }
  });
});
