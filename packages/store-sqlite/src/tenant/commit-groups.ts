/**
 * Group commit on a tenant database's connection: writes applied one after another in the write
 * transaction shared by the writes of one turn of the event loop, committed together at its end.
 *
 * A commit costs about the pages its transaction changed (BEGIN and COMMIT were 14-15% of a
 * patch's CPU with a commit per write); the writes of a turn share the pages of counters, events,
 * the full-text index's segment and the B-trees' upper levels.
 *
 * The writes carry no savepoint each: a savepoint journals every page its write changes before
 * changing it (to a temporary file past 64 KB), which cost as much as the shared commit. A write
 * that throws part-applied rolls the whole transaction back instead, and the writes applied
 * before it are applied again in a new one, before the failing write's caller hears of its error
 * (so the next write is derived from their state). Failures are the exception: a unique value
 * taken, a write conflict, a link to a deleted object.
 *
 * Write turns ({@link CommitGroups.inTurn}) keep the transaction to the writes' own work: the
 * derivations of the writes that arrived during a turn of the event loop are run together once
 * the lock is taken, one after another, and their group commits as soon as the last one is
 * applied, before the event loop serves anything else. Without turns the transaction stays open
 * from a turn's first write to its end, through every other request the process serves meanwhile,
 * while another process waits for the lock (two processes held it 80% of the time for 41% of
 * work: docs/performance/changes-2026-12.md, "Write turns").
 */
import type { AppliedWrite } from '@odp/core';
import type Database from 'better-sqlite3';

/** What a group needs of its connection (`TenantDatabase`). */
export interface GroupedConnection {
  /** Whether a transaction is open on the connection. */
  inTransaction(): boolean;
  statement(sql: string): Database.Statement;
  /** Runs `attempt`, which takes the write lock, waiting for it without blocking the event loop. */
  whenLocked<T>(attempt: () => T): Promise<T>;
  /** After the transaction's content changed: caches that writes make stale are forgotten. */
  written(): void;
  /** After a rollback: the interned keys and caches of the rolled-back writes are forgotten. */
  rolledBack(): void;
  /** Before a commit: writes the group's work deferred to its end. */
  beforeCommit(): void;
  /** After a commit. */
  committed(): void;
}

/** One applied write: how to apply it again, and how to settle its `committed`. */
interface GroupedWrite extends Settlement {
  readonly work: () => void;
}

interface Settlement {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * How long a write turn runs derivations before it commits and leaves the rest to the next turn,
 * after the I/O that arrived meanwhile: a flood of one tenant's writes does not hold the event
 * loop for all of them. Turns of 1 ms cost two api processes 15% of their patches and creates
 * (more, smaller commits); 3 ms cost nothing measurable.
 */
export const MAX_TURN_MS = 3;

/** A derivation waiting for its write turn, and how to settle its caller's promise. */
interface QueuedDerivation {
  run(): Promise<void>;
  fail(error: unknown): void;
}

/** The open shared transaction and the writes applied in it, in order. */
interface OpenGroup {
  readonly writes: GroupedWrite[];
}

export class CommitGroups {
  private open?: OpenGroup;
  /** The opening of a shared transaction, while it waits for the write lock. */
  private opening?: Promise<OpenGroup>;
  /**
   * The writes in the order `apply` was called: each is applied after the one before it was
   * applied, or failed and the writes before it were applied again (they were applied, and may
   * have been derived from, before it).
   */
  private queue: Promise<unknown> = Promise.resolve();

  /** Derivations waiting for the next write turn ({@link inTurn}). */
  private waiting: QueuedDerivation[] = [];
  /** Whether a write turn is scheduled or running: a group it opens is committed by it. */
  private turnPending = false;

  constructor(
    private readonly connection: GroupedConnection,
    /** How long a write turn runs derivations before it commits ({@link MAX_TURN_MS}). */
    private readonly maxTurnMs: number,
  ) {}

  /**
   * Runs `derive` (reads of this connection that end with {@link apply}) in the next write turn:
   * in `setImmediate`, once the write lock is taken, the derivations queued until then run one
   * after another in the shared transaction, each seeing the writes applied before it, and the
   * group commits as soon as the last one settled, or once the turn ran its bound, the rest
   * waiting for the next turn. Derivations queued while a turn runs wait for the next one too.
   * When the lock cannot be taken (another connection held it past the busy timeout), each
   * derivation of the turn fails with that error.
   */
  inTurn<T>(derive: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const run = async () => {
        try {
          resolve(await derive());
        } catch (error) {
          reject(error);
        }
      };
      this.waiting.push({ run, fail: reject });
      if (!this.turnPending) this.scheduleTurn();
    });
  }

  private scheduleTurn(): void {
    this.turnPending = true;
    setImmediate(() => void this.runTurn());
  }

  private async runTurn(): Promise<void> {
    let locked = true;
    try {
      await this.current();
    } catch (error) {
      locked = false;
      for (const derivation of this.waiting.splice(0)) derivation.fail(error);
    }
    if (locked) {
      // The derivations that arrived while the lock was awaited join this turn too.
      const turn = this.waiting.splice(0);
      const started = performance.now();
      let ran = 0;
      while (ran < turn.length && (ran === 0 || performance.now() - started < this.maxTurnMs)) {
        await turn[ran]!.run();
        ran += 1;
      }
      this.commit();
      this.waiting.unshift(...turn.slice(ran));
    }
    if (this.waiting.length > 0) this.scheduleTurn();
    else this.turnPending = false;
  }

  /**
   * Applies `work` in the shared transaction (opened by the first write of a turn, under BEGIN
   * IMMEDIATE) and resolves once it is applied: the connection's reads see it from then on. The
   * transaction commits in `setImmediate`, after the turn's other writes joined it, or earlier
   * through {@link commit}. `committed` settles with that commit: a failed commit keeps none of
   * the group's writes and rejects each of them.
   */
  apply(work: () => void): Promise<AppliedWrite> {
    const applied = this.queue.then(() => this.applyNext(work));
    this.queue = applied.catch(() => undefined);
    return applied;
  }

  private async applyNext(work: () => void): Promise<AppliedWrite> {
    let group = await this.current();
    for (;;) {
      // Resumed a microtask later: another write transaction of the connection may have committed it.
      if (!this.isOpen(group)) group = await this.current();
      // SQLite rolled the transaction back by itself (an I/O error, no memory): its writes are
      // lost, and `commit` fails them; this one goes into a new transaction.
      else if (!this.connection.inTransaction()) this.commit();
      else break;
    }
    try {
      work();
    } catch (error) {
      await this.applyAgainWithout(group);
      throw error;
    } finally {
      this.connection.written();
    }
    const { promise, resolve, reject } = settlement();
    group.writes.push({ work, resolve, reject });
    return { committed: promise };
  }

  /** Commits the writes applied so far, if any, settling their `committed`. */
  commit(): void {
    const group = this.open;
    if (group === undefined) return;
    this.open = undefined;
    try {
      this.connection.beforeCommit();
      this.connection.statement('COMMIT').run();
    } catch (error) {
      this.rollback();
      for (const write of group.writes) write.reject(error);
      return;
    }
    this.connection.committed();
    for (const write of group.writes) write.resolve();
  }

  /**
   * The open group, or a new one once the write lock is taken. It may be committed by the time
   * its caller resumes (another write transaction of the connection ran): callers check.
   */
  private current(): Promise<OpenGroup> {
    return this.open !== undefined ? Promise.resolve(this.open) : (this.opening ??= this.begin());
  }

  private async begin(): Promise<OpenGroup> {
    try {
      await this.connection.whenLocked(() => this.connection.statement('BEGIN IMMEDIATE').run());
    } finally {
      this.opening = undefined;
    }
    const group: OpenGroup = { writes: [] };
    this.open = group;
    // A write turn commits its group when its derivations are done.
    if (!this.turnPending) {
      setImmediate(() => {
        if (this.open === group) this.commit();
      });
    }
    return group;
  }

  /** Whether `group` is still the open one (read afresh: a method, not a narrowed field). */
  private isOpen(group: OpenGroup): boolean {
    return group === this.open;
  }

  private rollback(): void {
    if (this.connection.inTransaction()) this.connection.statement('ROLLBACK').run();
    this.connection.rolledBack();
  }

  /**
   * After a write of `failed` threw part-applied: rolls the transaction back and applies the
   * group's earlier writes again in a new one. One that throws now (another process changed what
   * it read in between) is settled with its error and left out, and the others applied again.
   */
  private async applyAgainWithout(failed: OpenGroup): Promise<void> {
    this.open = undefined;
    this.rollback();
    let writes = failed.writes;
    while (writes.length > 0) {
      let group: OpenGroup;
      try {
        group = await this.current();
      } catch (error) {
        for (const write of writes) write.reject(error);
        return;
      }
      if (!this.isOpen(group)) continue;
      const pending = writes;
      writes = [];
      for (const [index, write] of pending.entries()) {
        try {
          write.work();
          group.writes.push(write);
        } catch (error) {
          write.reject(error);
          this.open = undefined;
          this.rollback();
          writes = [...group.writes, ...pending.slice(index + 1)];
          break;
        }
      }
    }
  }
}

/** A promise with its settle functions; a rejection nobody awaits is not reported as unhandled. */
function settlement(): Settlement & { promise: Promise<void> } {
  let settled!: Settlement;
  const promise = new Promise<void>((resolve, reject) => (settled = { resolve, reject }));
  promise.catch(() => undefined);
  return { promise, ...settled };
}
