import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeReplicationBufferContract } from '@odp/testkit';
import { openSqliteReplicationBuffer } from './replication-buffer.js';

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
