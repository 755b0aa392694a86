import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describeJobQueueContract } from '@odp/testkit';
import { openSqliteJobQueue } from './job-queue.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-job-queue-'));
let counter = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeJobQueueContract('sqlite', async (shared) =>
  openSqliteJobQueue(join(dir, shared === undefined ? `jobs-${++counter}.sqlite` : `${shared}.sqlite`)),
);

describe('the job queue file shared by processes (SQLite)', () => {
  const job = (id: string) => ({
    id,
    tenantId: 't1',
    kind: 'gateway',
    objectId: null,
    payload: {},
    createdAt: new Date(0).toISOString(),
  });

  it("waits for the lock another process's connection holds without blocking the event loop", async () => {
    const file = join(dir, `jobs-${++counter}.sqlite`);
    const queue = openSqliteJobQueue(file);
    const other = new Database(file);
    try {
      other.exec('BEGIN IMMEDIATE');
      let turns = 0;
      const counting = setInterval(() => turns++, 1);
      setTimeout(() => other.exec('COMMIT'), 50);
      try {
        await queue.enqueue([job('a')]);
        const claimed = queue.claim('w1', 60_000, new Date(1_000));
        await expect(claimed).resolves.toMatchObject({ id: 'a' });
      } finally {
        clearInterval(counting);
      }
      // A busy handler sleeping in this thread would have let no timer run until the commit.
      expect(turns).toBeGreaterThan(5);
      other.exec('BEGIN IMMEDIATE');
      setTimeout(() => other.exec('ROLLBACK'), 20);
      await expect(queue.complete('a', 'w1', new Date(2_000))).resolves.toBe(true);
      expect((await queue.get('a'))?.status).toBe('done');
    } finally {
      other.close();
      await queue.close();
    }
  });
});
