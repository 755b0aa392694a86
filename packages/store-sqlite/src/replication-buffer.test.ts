import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeReplicationBufferContract } from '@odp/testkit';
import { openSqliteReplicationBuffer } from './replication-buffer.js';
import { whileLockedElsewhere } from '../test/lock-held-elsewhere.js';

const dirs: string[] = [];
const files = new Map<string, string>();
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describeReplicationBufferContract('sqlite (one file per buffer)', async (shared) => {
  let file = shared === undefined ? undefined : files.get(shared);
  if (file === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'odp-replication-'));
    dirs.push(dir);
    file = join(dir, 'replication.sqlite');
    if (shared !== undefined) files.set(shared, file);
  }
  return openSqliteReplicationBuffer(file);
});

describe('the replication buffer file shared by processes (SQLite)', () => {
  it("waits for the lock another process's connection holds without blocking the event loop", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'odp-replication-'));
    dirs.push(dir);
    const file = join(dir, 'replication.sqlite');
    const buffer = openSqliteReplicationBuffer(file);
    const event = {
      id: 'j1',
      tenantId: 't1',
      destination: 'p/d/t',
      objectId: 'o1',
      at: new Date(0).toISOString(),
      payload: {},
    };
    try {
      const appended = await whileLockedElsewhere(file, () => buffer.append(event));
      const flushed = await whileLockedElsewhere(file, () => buffer.markFlushed(['j1'], new Date(1_000)));
      const pruned = await whileLockedElsewhere(file, () => buffer.prune(new Date(2_000)));
      // A busy handler sleeping in this thread would have let no timer run until the release.
      expect([appended, flushed, pruned].map(({ turns }) => turns > 5)).toEqual([true, true, true]);
      expect([appended.result, pruned.result]).toEqual([true, 1]);
    } finally {
      await buffer.close();
    }
  });
});
