import type { AppliedWrite } from '@odp/core';
import type { TenantDatabase } from './database.js';
import { metaValue, putMeta, twoConnections } from '../../test/two-connections.js';

/**
 * Write turns (`TenantDatabase.inWriteTurn`): the derivations that arrive during a turn of the
 * event loop run together under one write lock and commit as soon as the last one is applied,
 * read here through the writing connection and through a second connection to the same file
 * (another api process).
 */
/** A derivation that reads the counter `n`, writes it plus one, and resolves its write. */
const increment =
  (writer: TenantDatabase, other: TenantDatabase, seen: unknown[]) => async (): Promise<AppliedWrite> => {
    const n = Number(metaValue(writer, 'n') ?? 0);
    seen.push({ n, elsewhere: metaValue(other, 'n') ?? null });
    return writer.applyInGroup(putMeta(writer, 'n', String(n + 1)));
  };

describe('write turns of a tenant database (SQLite, two connections)', () => {
  // A bound of a turn no test reaches, however busy the machine: a turn runs all its derivations.
  const connections = twoConnections('odp-write-turns-', 60_000);
  let writer: TenantDatabase;
  let other: TenantDatabase;
  beforeEach(() => ({ first: writer, second: other } = connections));
  const counted = (seen: unknown[]) => increment(writer, other, seen);

  it('runs the derivations of one turn one after another in one transaction, each reading the writes before it', async () => {
    const seen: unknown[] = [];
    const applied = await Promise.all([1, 2, 3].map(() => writer.inWriteTurn(counted(seen))));
    // Each read the count the one before it wrote, which no other connection saw yet: one transaction.
    expect(seen).toEqual([
      { n: 0, elsewhere: null },
      { n: 1, elsewhere: null },
      { n: 2, elsewhere: null },
    ]);
    await Promise.all(applied.map((write) => write.committed));
    expect(metaValue(other, 'n')).toBe('3');
  });

  it('commits before the event loop serves anything else: a callback queued behind the turn finds it committed', async () => {
    const turn = Promise.all([1, 2].map(() => writer.inWriteTurn(counted([]))));
    const behind = new Promise<unknown>((resolve) =>
      setImmediate(() => resolve({ open: writer.db.inTransaction, elsewhere: metaValue(other, 'n') })),
    );
    expect(await behind).toEqual({ open: false, elsewhere: '2' });
    await turn;
  });

  it('leaves the derivations queued while a turn runs to the next turn', async () => {
    let later: Promise<unknown> | undefined;
    const first = await writer.inWriteTurn(async () => {
      later = writer.inWriteTurn(async () => metaValue(other, 'n'));
      return writer.applyInGroup(putMeta(writer, 'n', '1'));
    });
    // The later derivation ran once the first turn had committed.
    expect(await later).toBe('1');
    await first.committed;
  });

  it('settles a derivation that fails with its error; the others of its turn commit', async () => {
    const seen: unknown[] = [];
    const results = await Promise.allSettled([
      writer.inWriteTurn(counted(seen)),
      writer.inWriteTurn(async () => {
        throw new Error('refused');
      }),
      writer.inWriteTurn(counted(seen)),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    await Promise.all(
      results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.committed] : [])),
    );
    expect(metaValue(other, 'n')).toBe('2');
  });

  it('waits for the lock another connection holds, and takes the derivations that arrive meanwhile into its turn', async () => {
    other.db.exec('BEGIN IMMEDIATE');
    putMeta(other, 'n', '10')();
    const seen: unknown[] = [];
    const first = writer.inWriteTurn(counted(seen));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = writer.inWriteTurn(counted(seen));
    setTimeout(() => other.db.exec('COMMIT'), 30);
    const applied = await Promise.all([first, second]);
    await Promise.all(applied.map((write) => write.committed));
    // Both derived from the other connection's commit, the second from the first's write, in one turn.
    expect(seen).toEqual([
      { n: 10, elsewhere: '10' },
      { n: 11, elsewhere: '10' },
    ]);
    expect(metaValue(other, 'n')).toBe('12');
  });
});

describe('the bound of a write turn (SQLite, two connections)', () => {
  const connections = twoConnections('odp-write-turn-bound-', 1);
  let writer: TenantDatabase;
  let other: TenantDatabase;
  beforeEach(() => ({ first: writer, second: other } = connections));

  it('commits a turn that ran past its bound and leaves the rest of its derivations to the next turn', async () => {
    const seen: unknown[] = [];
    /** An increment that first keeps the event loop for 2 ms, as a large write's derivation does. */
    const slow = () => async () => {
      const until = performance.now() + 2;
      while (performance.now() < until);
      return increment(writer, other, seen)();
    };
    const applied = await Promise.all([1, 2, 3].map(() => writer.inWriteTurn(slow())));
    await Promise.all(applied.map((write) => write.committed));
    // Each read the count the one before it wrote; each ran past the bound, so each turn ran one.
    const runs = seen as { n: number; elsewhere: string | null }[];
    expect(runs.map((run) => run.n)).toEqual([0, 1, 2]);
    expect(runs.map((run) => run.elsewhere)).toEqual([null, '1', '2']);
  });
});
