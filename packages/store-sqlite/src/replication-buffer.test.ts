import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReplicationEvent } from '@odp/core';
import { openSqliteReplicationBuffer } from './replication-buffer.js';
import type { SqliteReplicationBuffer } from './replication-buffer.js';

const TENANT = 'd0d0d0d0-0000-4000-8000-000000000001';
let dir: string;
let buffer: SqliteReplicationBuffer;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'odp-replication-'));
  buffer = openSqliteReplicationBuffer(join(dir, 'replication.sqlite'));
});
afterEach(async () => {
  await buffer.close();
  rmSync(dir, { recursive: true, force: true });
});

const event = (id: string, at: string, destination = 'p/d/t'): ReplicationEvent => ({
  id,
  tenantId: TENANT,
  destination,
  objectId: `object-${id}`,
  at,
  payload: { trigger: 'UPDATE', id },
});

it('keeps events per destination, oldest first, once per id even after their flush', async () => {
  expect(await buffer.append(event('b', '2030-01-01T00:00:02.000Z'))).toBe(true);
  expect(await buffer.append(event('a', '2030-01-01T00:00:01.000Z'))).toBe(true);
  expect(await buffer.append(event('c', '2030-01-01T00:00:01.000Z', 'p/d/other'))).toBe(true);
  expect(await buffer.append(event('a', '2030-01-01T00:00:09.000Z'))).toBe(false);
  expect((await buffer.pending(TENANT, 'p/d/t', 10)).map((e) => [e.id, e.payload['id']])).toEqual([
    ['a', 'a'],
    ['b', 'b'],
  ]);
  expect(await buffer.pending(TENANT, 'p/d/t', 1)).toHaveLength(1);
  await buffer.markFlushed(['a'], new Date('2030-01-01T01:00:00.000Z'));
  expect(await buffer.append(event('a', '2030-01-01T00:00:01.000Z'))).toBe(false);
  expect((await buffer.pending(TENANT, 'p/d/t', 10)).map((e) => e.id)).toEqual(['b']);
  expect(await buffer.prune(new Date('2030-01-01T00:59:59.000Z'))).toBe(0);
  expect(await buffer.prune(new Date('2030-01-01T01:00:01.000Z'))).toBe(1);
  expect(await buffer.append(event('a', '2030-01-01T00:00:01.000Z'))).toBe(true);
});

it('forgets every event of a deleted tenant, flushed or not, and no other tenant’s', async () => {
  const other = {
    ...event('x', '2030-01-01T00:00:01.000Z'),
    tenantId: 'd0d0d0d0-0000-4000-8000-000000000002',
  };
  await buffer.append(event('a', '2030-01-01T00:00:01.000Z'));
  await buffer.append(event('b', '2030-01-01T00:00:02.000Z'));
  await buffer.append(other);
  await buffer.markFlushed(['a'], new Date('2030-01-01T01:00:00.000Z'));
  expect(await buffer.deleteTenant(TENANT)).toBe(2);
  expect(await buffer.pending(TENANT, 'p/d/t', 10)).toEqual([]);
  // Its ids are forgotten too: the tenant starts again with an empty buffer.
  expect(await buffer.append(event('a', '2030-01-01T00:00:01.000Z'))).toBe(true);
  expect((await buffer.pending(other.tenantId, 'p/d/t', 10)).map((e) => e.id)).toEqual(['x']);
});
