import type { TenantDatabase } from './database.js';
import { metaValue, putMeta, twoConnections } from '../../test/two-connections.js';

/**
 * Two connections to one tenant database, as two api processes have: a write waiting for the lock
 * the other holds leaves the event loop free (the other connection here commits from a timer of
 * the same thread, which a sleeping busy handler would never let run).
 */
describe('the write lock of a tenant database (SQLite, two connections)', () => {
  const connections = twoConnections('odp-write-lock-');
  const put = (database: TenantDatabase, value: string) => putMeta(database, 'probe', value);
  const probe = (database: TenantDatabase) => metaValue(database, 'probe');
  let first: TenantDatabase;
  let second: TenantDatabase;
  beforeEach(() => ({ first, second } = connections));

  it('waits for the lock without blocking the event loop, then writes', async () => {
    first.db.exec('BEGIN IMMEDIATE');
    put(first, 'first')();
    let turns = 0;
    const counting = setInterval(() => turns++, 1);
    setTimeout(() => first.db.exec('COMMIT'), 50);
    try {
      await second.inWriteTransaction(put(second, 'second'));
    } finally {
      clearInterval(counting);
    }
    expect(turns).toBeGreaterThan(5);
    expect(probe(first)).toBe('second');
  });

  it('tries again on the next turn of the event loop, before any timer', async () => {
    // Timers never fire here: the write lands only if the first retry waits no timer.
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask', 'performance'] });
    try {
      first.db.exec('BEGIN IMMEDIATE');
      put(first, 'first')();
      setImmediate(() => first.db.exec('COMMIT'));
      await second.inWriteTransaction(put(second, 'second'));
    } finally {
      jest.useRealTimers();
    }
    expect(probe(first)).toBe('second');
  }, 5_000);

  it('gives up with the busy error once the lock stayed taken for 5 s', async () => {
    first.db.exec('BEGIN IMMEDIATE');
    try {
      await expect(second.inWriteTransaction(put(second, 'second'))).rejects.toMatchObject({
        code: 'SQLITE_BUSY',
      });
    } finally {
      first.db.exec('ROLLBACK');
    }
    expect(probe(second)).toBeUndefined();
  }, 15_000);

  it('passes an error of the work on at once, the transaction rolled back', async () => {
    await expect(
      second.inWriteTransaction(() => {
        put(second, 'partial')();
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(probe(first)).toBeUndefined();
  });
});
