import type { TenantDatabase } from './database.js';
import { metaValue, putMeta, twoConnections } from '../../test/two-connections.js';

/**
 * Writes applied in one turn of the event loop share a transaction and its commit
 * (`TenantDatabase.applyInGroup`), read here through the writing connection and through a second
 * connection to the same file (another api process).
 */
describe('group commit of a tenant database (SQLite, two connections)', () => {
  const connections = twoConnections('odp-group-commit-');
  let writer: TenantDatabase;
  let other: TenantDatabase;
  beforeEach(() => ({ first: writer, second: other } = connections));
  /** A write that throws once it has written the meta row `key`. */
  const refusedAfterWriting = (key: string) => () => {
    putMeta(writer, key, 'partial')();
    throw new Error('refused');
  };

  it('applies the writes of a turn in one transaction: read at once here, elsewhere once committed', async () => {
    const first = await writer.applyInGroup(putMeta(writer, 'a', '1'));
    expect(writer.db.inTransaction).toBe(true);
    const second = await writer.applyInGroup(putMeta(writer, 'b', '2'));
    // Still the transaction the first opened: nothing was committed in between.
    expect(writer.db.inTransaction).toBe(true);
    expect([metaValue(writer, 'a'), metaValue(writer, 'b')]).toEqual(['1', '2']);
    expect([metaValue(other, 'a'), metaValue(other, 'b')]).toEqual([undefined, undefined]);
    await Promise.all([first.committed, second.committed]);
    expect(writer.db.inTransaction).toBe(false);
    expect([metaValue(other, 'a'), metaValue(other, 'b')]).toEqual(['1', '2']);
    // The next turn's writes open a transaction of their own.
    const third = await writer.applyInGroup(putMeta(writer, 'c', '3'));
    expect(writer.db.inTransaction).toBe(true);
    await third.committed;
    expect(metaValue(other, 'c')).toBe('3');
  });

  it('rolls back a write that throws alone; the others of its turn commit', async () => {
    const kept = await writer.applyInGroup(putMeta(writer, 'a', '1'));
    await expect(writer.applyInGroup(refusedAfterWriting('b'))).rejects.toThrow('refused');
    // The write before it is applied again by the time the failure is told.
    expect([metaValue(writer, 'a'), metaValue(writer, 'b')]).toEqual(['1', undefined]);
    const after = await writer.applyInGroup(putMeta(writer, 'c', '3'));
    await Promise.all([kept.committed, after.committed]);
    expect([metaValue(other, 'a'), metaValue(other, 'b'), metaValue(other, 'c')]).toEqual([
      '1',
      undefined,
      '3',
    ]);
  });

  it('leaves out a write that fails when applied again after another one failed', async () => {
    let runs = 0;
    // Succeeds when first applied, fails when applied again (as when another process changed
    // what it read in between).
    const once = await writer.applyInGroup(() => {
      runs += 1;
      if (runs > 1) throw new Error('changed meanwhile');
      putMeta(writer, 'a', '1')();
    });
    const kept = await writer.applyInGroup(putMeta(writer, 'b', '2'));
    await expect(writer.applyInGroup(refusedAfterWriting('c'))).rejects.toThrow('refused');
    await expect(once.committed).rejects.toThrow('changed meanwhile');
    await kept.committed;
    expect([metaValue(other, 'a'), metaValue(other, 'b'), metaValue(other, 'c')]).toEqual([
      undefined,
      '2',
      undefined,
    ]);
  });

  it('commits the open group before another write transaction of the connection', async () => {
    const grouped = await writer.applyInGroup(putMeta(writer, 'a', '1'));
    writer.inTransaction(putMeta(writer, 'b', '2'));
    // That transaction's commit is durable when it returns, and so is what was applied before it.
    expect([metaValue(other, 'a'), metaValue(other, 'b')]).toEqual(['1', '2']);
    await expect(grouped.committed).resolves.toBeUndefined();
  });

  it('waits for the lock another connection holds without blocking the event loop', async () => {
    other.db.exec('BEGIN IMMEDIATE');
    putMeta(other, 'a', 'other')();
    let turns = 0;
    const counting = setInterval(() => turns++, 1);
    setTimeout(() => other.db.exec('COMMIT'), 50);
    try {
      const applied = await writer.applyInGroup(putMeta(writer, 'a', 'writer'));
      await applied.committed;
    } finally {
      clearInterval(counting);
    }
    expect(turns).toBeGreaterThan(5);
    expect(metaValue(other, 'a')).toBe('writer');
  });

  it('rejects every write of a group whose commit fails, and keeps none of them', async () => {
    // A deferred foreign key is checked by COMMIT alone: the second write makes the commit fail.
    writer.db.exec(`CREATE TABLE parent (id TEXT PRIMARY KEY);
      CREATE TABLE child (id TEXT PRIMARY KEY,
        parent TEXT REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)`);
    writer.db.pragma('foreign_keys = ON');
    const first = await writer.applyInGroup(putMeta(writer, 'a', '1'));
    const second = await writer.applyInGroup(() =>
      writer.statement("INSERT INTO child (id, parent) VALUES ('c', 'missing')").run(),
    );
    await expect(first.committed).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    await expect(second.committed).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    expect(writer.db.inTransaction).toBe(false);
    expect([metaValue(writer, 'a'), metaValue(other, 'a')]).toEqual([undefined, undefined]);
    // The connection writes on as before.
    const next = await writer.applyInGroup(putMeta(writer, 'b', '2'));
    await next.committed;
    expect(metaValue(other, 'b')).toBe('2');
  });

  it('fails the writes of a transaction SQLite rolled back by itself, and applies the next in a new one', async () => {
    const lost = await writer.applyInGroup(putMeta(writer, 'a', '1'));
    // As SQLite does after an I/O error or when out of memory.
    writer.db.exec('ROLLBACK');
    const next = await writer.applyInGroup(putMeta(writer, 'b', '2'));
    // Matched by its message: an error raised by the native addon may come from another test
    // file's realm, which `toThrow` does not take for an error.
    await expect(lost.committed).rejects.toMatchObject({
      message: expect.stringContaining('no transaction'),
    });
    await next.committed;
    expect([metaValue(other, 'a'), metaValue(other, 'b')]).toEqual([undefined, '2']);
  });

  it('commits an open group when the database closes', async () => {
    const applied = await writer.applyInGroup(putMeta(writer, 'a', '1'));
    await writer.close();
    await expect(applied.committed).resolves.toBeUndefined();
    expect(metaValue(other, 'a')).toBe('1');
  });
});
