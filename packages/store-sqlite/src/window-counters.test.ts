import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWindowCountersContract } from '@odp/testkit';
import { SqliteWindowCounters } from './window-counters.js';
import { whileLockedElsewhere } from '../test/lock-held-elsewhere.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-counters-'));
let counter = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeWindowCountersContract(
  'sqlite',
  async (shared) =>
    new SqliteWindowCounters(
      join(dir, shared === undefined ? `counters-${++counter}.sqlite` : `${shared}.sqlite`),
    ),
);

describe('the counters file shared by processes (SQLite)', () => {
  it("waits for the lock another process's connection holds without blocking the event loop", async () => {
    const file = join(dir, `counters-${++counter}.sqlite`);
    const counters = new SqliteWindowCounters(file);
    const now = new Date(1_000);
    const end = new Date(61_000);
    try {
      const taken = await whileLockedElsewhere(file, () => counters.take('calls', 1, end, now));
      const added = await whileLockedElsewhere(file, () => counters.add('bytes', 10, end, now));
      // A busy handler sleeping in this thread would have let no timer run until the release.
      expect([taken.turns > 5, added.turns > 5]).toEqual([true, true]);
      expect([taken.result, added.result]).toEqual([true, 10]);
      await expect(counters.take('calls', 1, end, now)).resolves.toBe(false);
    } finally {
      await counters.close();
    }
  });
});
