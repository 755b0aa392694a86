import type { DeferredWrites, TenantDatabase } from './database.js';
import { metaValue, twoConnections } from '../../test/two-connections.js';

/**
 * Writes a transaction's work defers to its end (`TenantDatabase.deferUntilCommit`, the counters of
 * aggregates.ts): here `meta` rows noted by the work and written by `flush`.
 */
class NotedRows implements DeferredWrites {
  private noted: string[] = [];
  flushes = 0;

  constructor(private readonly database: TenantDatabase) {}

  note(key: string): void {
    this.noted.push(key);
  }

  flush(): void {
    if (this.noted.length === 0) return;
    this.flushes += 1;
    for (const key of this.noted)
      this.database.statement('INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)').run(key, 'flushed');
    this.noted = [];
  }

  discard(): void {
    this.noted = [];
  }
}

describe('writes deferred to the end of a transaction (SQLite, two connections)', () => {
  const connections = twoConnections('odp-deferred-writes-');
  let writer: TenantDatabase;
  let other: TenantDatabase;
  let rows: NotedRows;
  beforeEach(() => {
    ({ first: writer, second: other } = connections);
    rows = new NotedRows(writer);
    writer.deferUntilCommit(rows);
  });
  const flushed = (database: TenantDatabase, keys: string[]) => keys.map((key) => metaValue(database, key));

  it('are written once for the writes of a commit group, before it commits', async () => {
    const applied = await Promise.all(
      ['a', 'b', 'c'].map((key) => writer.applyInGroup(() => rows.note(key))),
    );
    expect(rows.flushes).toBe(0);
    await Promise.all(applied.map((write) => write.committed));
    expect(rows.flushes).toBe(1);
    expect(flushed(other, ['a', 'b', 'c'])).toEqual(['flushed', 'flushed', 'flushed']);
  });

  it("leave out a failed grouped write's, and keep those of the writes applied again before it", async () => {
    const kept = await writer.applyInGroup(() => rows.note('a'));
    await expect(
      writer.applyInGroup(() => {
        rows.note('b');
        throw new Error('refused');
      }),
    ).rejects.toMatchObject({ message: 'refused' });
    const after = await writer.applyInGroup(() => rows.note('c'));
    await Promise.all([kept.committed, after.committed]);
    expect(flushed(other, ['a', 'b', 'c'])).toEqual(['flushed', undefined, 'flushed']);
  });

  it('go with the writes of a transaction SQLite rolled back by itself', async () => {
    const lost = await writer.applyInGroup(() => rows.note('a'));
    // As SQLite does after an I/O error or when out of memory.
    writer.db.exec('ROLLBACK');
    const next = await writer.applyInGroup(() => rows.note('b'));
    await expect(lost.committed).rejects.toMatchObject({
      message: expect.stringContaining('no transaction'),
    });
    await next.committed;
    expect(flushed(other, ['a', 'b'])).toEqual([undefined, 'flushed']);
  });

  it("are written by a transaction's commit, and a rolled-back savepoint discards only its own", () => {
    writer.inTransaction(() => {
      rows.note('a');
      try {
        writer.inTransaction(() => {
          rows.note('b');
          throw new Error('refused');
        });
      } catch {
        // The savepoint rolled back; the transaction goes on.
      }
      rows.note('c');
    });
    expect(flushed(other, ['a', 'b', 'c'])).toEqual(['flushed', undefined, 'flushed']);
    expect(() =>
      writer.inTransaction(() => {
        rows.note('d');
        throw new Error('refused');
      }),
    ).toThrow('refused');
    writer.inTransaction(() => rows.note('e'));
    expect(flushed(other, ['d', 'e'])).toEqual([undefined, 'flushed']);
  });
});
