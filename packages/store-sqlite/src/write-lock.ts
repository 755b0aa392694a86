/**
 * Waiting for a SQLite write lock another connection holds (another api process, a worker, the
 * `odp` command) without blocking the event loop. SQLite's busy handler would sleep the thread,
 * and with it every other request of the process, for as long as the lock stays taken (up to the
 * busy timeout). Here the lock is tried without waiting, and tried again on the next turn of the
 * event loop, then after timers of 1 and 2 ms (2 ms from then on: {@link LOCK_POLL_PAUSES_MS}) for
 * up to the busy timeout; then the busy error is thrown as SQLite's handler would. Where other
 * processes announce their commits ({@link LockReleases}: the cluster of api processes), a waiter
 * tries again as soon as the file's lock is announced free instead of at the end of its pause.
 */
import type { LockReleases } from '@odp/core';
import type Database from 'better-sqlite3';
import { isBusy } from './sqlite-errors.js';

/** How long a statement waits for a lock another connection holds (`busy_timeout`), in ms. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * The pauses between attempts to lock, in ms (0: the next turn of the event loop), the last one
 * repeated. Another api process holds the lock for one write, under a millisecond: a waiter that
 * slept 4-16 ms lost its turn to that process's next write again and again (two processes wrote
 * 610 creates/s with pauses of 1 ms doubling to 16 ms, 650 with these).
 */
const LOCK_POLL_PAUSES_MS = [0, 1, 2] as const;

/** Runs `attempt`, which takes the write lock, waiting for it without blocking the event loop. */
export type LockedWrite = <T>(attempt: () => T) => Promise<T>;

/**
 * The lock wait of `db`: runs an `attempt` that takes the write lock (BEGIN IMMEDIATE, or a write
 * statement on its own) with the connection's busy timeout at 0 while it runs, again until it is
 * not refused as busy, after each pause or once `releases` announces the file's lock free.
 */
export function lockedWrites(db: Database.Database, releases?: LockReleases): LockedWrite {
  const zero = busyTimeoutSetter(db, 0);
  const restore = busyTimeoutSetter(db, BUSY_TIMEOUT_MS);
  return async (attempt) => {
    const deadline = performance.now() + BUSY_TIMEOUT_MS;
    for (let round = 0; ; round += 1) {
      const pause = LOCK_POLL_PAUSES_MS[Math.min(round, LOCK_POLL_PAUSES_MS.length - 1)]!;
      zero();
      try {
        return attempt();
      } catch (error) {
        if (!isBusy(error) || performance.now() + pause > deadline) throw error;
      } finally {
        restore();
      }
      await pauseUntilReleased(pause, releases, db.name);
    }
  };
}

/**
 * Resolves after `pause` ms (0: on the next turn of the event loop), or as soon as `releases`
 * announces that another process released the write lock of `file`.
 */
function pauseUntilReleased(pause: number, releases: LockReleases | undefined, file: string): Promise<void> {
  // Where releases are announced, the lock's holder says when it is free: no retry on the next turn.
  const wait = releases === undefined ? pause : Math.max(pause, 1);
  return new Promise((resolve) => {
    const timer = wait === 0 ? undefined : setTimeout(() => done(), wait);
    const immediate = wait === 0 ? setImmediate(() => done()) : undefined;
    const stopListening = releases?.listen(file, done);
    function done(): void {
      stopListening?.();
      if (timer !== undefined) clearTimeout(timer);
      if (immediate !== undefined) clearImmediate(immediate);
      resolve();
    }
  });
}

/**
 * Sets `db`'s busy timeout to `ms` through one prepared PRAGMA, prepared on first use: SQLite applies
 * a PRAGMA's setting when it prepares it (and prepares it again at each later run), so one prepared
 * ahead of another would leave the other's value in force at its first run.
 */
function busyTimeoutSetter(db: Database.Database, ms: number): () => void {
  let statement: Database.Statement | undefined;
  return () => {
    statement ??= db.prepare(`PRAGMA busy_timeout = ${ms}`);
    statement.get();
  };
}
