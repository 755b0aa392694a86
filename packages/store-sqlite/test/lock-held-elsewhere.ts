/**
 * Another process's write lock on a SQLite file, for the tests of writes that must wait for it
 * without blocking the event loop: another connection holds the lock for `holdMs` and releases it
 * from a timer of this thread, which a busy handler sleeping the thread would never let run.
 */
import Database from 'better-sqlite3';

/**
 * Runs `action` while another connection to `file` holds its write lock for `holdMs`; resolves
 * its result and the 1 ms timer turns the thread ran until it settled. The lock is held 200 ms: on
 * a machine whose cores the whole test run shares, a 1 ms timer fires far less often than once a
 * millisecond (50 ms once gave fewer than the 6 turns the tests ask for), and a thread blocked by
 * a sleeping busy handler turns none however long the hold.
 */
export async function whileLockedElsewhere<T>(
  file: string,
  action: () => Promise<T>,
  holdMs = 200,
): Promise<{ result: T; turns: number }> {
  const other = new Database(file);
  other.exec('BEGIN IMMEDIATE');
  let turns = 0;
  const counting = setInterval(() => turns++, 1);
  const release = setTimeout(() => other.exec('COMMIT'), holdMs);
  try {
    const result = await action();
    return { result, turns };
  } finally {
    clearInterval(counting);
    clearTimeout(release);
    other.close();
  }
}
