import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeJobQueueContract, outboxJob } from '@odp/testkit';
import { openSqliteJobQueue } from './job-queue.js';
import { whileLockedElsewhere } from '../test/lock-held-elsewhere.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-job-queue-'));
let counter = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeJobQueueContract('sqlite', async (shared) =>
  openSqliteJobQueue(join(dir, shared === undefined ? `jobs-${++counter}.sqlite` : `${shared}.sqlite`)),
);

describe('the job queue file shared by processes (SQLite)', () => {
  it("waits for the lock another process's connection holds without blocking the event loop", async () => {
    const file = join(dir, `jobs-${++counter}.sqlite`);
    const queue = openSqliteJobQueue(file);
    try {
      const enqueued = await whileLockedElsewhere(file, () => queue.enqueue([outboxJob('a')]));
      const claimed = await whileLockedElsewhere(file, () =>
        queue.claim('w1', 60_000, new Date('2025-01-01T00:00:00Z')),
      );
      const completed = await whileLockedElsewhere(file, () =>
        queue.complete('a', 'w1', new Date('2025-01-01T00:00:01Z')),
      );
      // A busy handler sleeping in this thread would have let no timer run until the release.
      expect([enqueued, claimed, completed].map(({ turns }) => turns > 5)).toEqual([true, true, true]);
      expect(claimed.result).toMatchObject({ id: 'a' });
      expect(completed.result).toBe(true);
      expect((await queue.get('a'))?.status).toBe('done');
    } finally {
      await queue.close();
    }
  });
});
