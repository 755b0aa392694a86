import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describeWindowCountersContract } from '@odp/testkit';
import { SqliteWindowCounters } from './window-counters.js';

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
    const other = new Database(file);
    const now = new Date(1_000);
    const end = new Date(61_000);
    try {
      other.exec('BEGIN IMMEDIATE');
      let turns = 0;
      const counting = setInterval(() => turns++, 1);
      setTimeout(() => other.exec('COMMIT'), 50);
      try {
        await expect(counters.take('calls', 1, end, now)).resolves.toBe(true);
      } finally {
        clearInterval(counting);
      }
      // A busy handler sleeping in this thread would have let no timer run until the commit.
      expect(turns).toBeGreaterThan(5);
      other.exec('BEGIN IMMEDIATE');
      setTimeout(() => other.exec('ROLLBACK'), 20);
      await expect(counters.add('bytes', 10, end, now)).resolves.toBe(10);
      await expect(counters.take('calls', 1, end, now)).resolves.toBe(false);
    } finally {
      other.close();
      await counters.close();
    }
  });
});
