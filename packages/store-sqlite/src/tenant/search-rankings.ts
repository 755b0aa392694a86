/**
 * The rankings bm25 search pagings froze at their first page (search.ts), in a database file of
 * their own beside the tenant's (`<tenant file>.rankings`). Storing a ranking is a write, and
 * SQLite makes every other connection to a database drop its whole page cache after a commit to
 * it: in the tenant's database, each search that pages made the other api processes read the
 * tenant's pages again.
 *
 * A ranking is kept for a paging's lifetime only, so the file is not synced (a crash of the
 * machine may lose the last rankings, or leave the file unreadable: it is then made anew). Either
 * way their cursors answer that they expired, and the search is made again.
 */
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { isBusy, isUnreadable } from '../sqlite-errors.js';
import { withWalFiles } from '../sqlite-files.js';

/**
 * How long storing a ranking waits for another process storing one, in ms: the lock is held for
 * the two statements of a store only.
 */
const BUSY_TIMEOUT_MS = 1000;
/** How long opening the file retries switching it to WAL, in ms, and the pause between tries. */
const OPEN_RETRY_MS = 1000;
const OPEN_RETRY_PAUSE_MS = 5;

/**
 * Runs `work` again while another connection's lock refuses it. Switching a new file to WAL takes
 * a lock SQLite does not wait for: of 4 processes opening one new file at once, 5 opens in 48
 * failed with SQLITE_BUSY (none in 60 with this). Once the file is in WAL mode the switch takes no
 * lock, so this can wait, blocking, on a first open only.
 */
function whileBusy<T>(work: () => T): T {
  const deadline = Date.now() + OPEN_RETRY_MS;
  for (;;) {
    try {
      return work();
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, OPEN_RETRY_PAUSE_MS);
    }
  }
}

/** The open file and its statements, prepared once. */
interface OpenRankings {
  readonly db: Database.Database;
  readonly store: (id: string, keys: string, expires: number, now: number) => void;
  readonly read: Database.Statement<[string, number], string>;
}

/** The file of the rankings of the tenant database `tenantFile`. */
export function rankingsFile(tenantFile: string): string {
  return `${tenantFile}.rankings`;
}

export class FrozenRankings {
  private opened: OpenRankings | null = null;

  /** `tenantFile`: the tenant's database file, or `:memory:` (then the rankings are in memory). */
  constructor(private readonly tenantFile: string) {}

  /** Stores the ranked keys `keys` (JSON) under `id` until `expires`, dropping expired ones. */
  store(id: string, keys: string, expires: number, now: number): void {
    this.remade(() => this.open().store(id, keys, expires, now));
  }

  /** The ranked keys stored under `id` (JSON), unless expired at `now` or unknown. */
  read(id: string, now: number): string | undefined {
    return this.remade(() => this.open().read.get(id, now));
  }

  close(): void {
    this.opened?.db.close();
    this.opened = null;
  }

  /** `work`, run again on a new file when the file is unreadable. */
  private remade<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (!isUnreadable(error) || this.tenantFile === ':memory:') throw error;
      this.close();
      for (const file of withWalFiles(this.path)) rmSync(file, { force: true });
      return work();
    }
  }

  private get path(): string {
    return this.tenantFile === ':memory:' ? ':memory:' : rankingsFile(this.tenantFile);
  }

  private open(): OpenRankings {
    if (this.opened !== null) return this.opened;
    const db = new Database(this.path);
    try {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      whileBusy(() => db.pragma('journal_mode = WAL'));
      db.pragma('synchronous = OFF');
      db.exec(`CREATE TABLE IF NOT EXISTS rankings (id TEXT PRIMARY KEY, expires INTEGER NOT NULL, keys TEXT NOT NULL)
        WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS rankings_expires ON rankings (expires);`);
    } catch (error) {
      db.close();
      throw error;
    }
    const dropExpired = db.prepare('DELETE FROM rankings WHERE expires <= ?');
    const insert = db.prepare('INSERT INTO rankings (id, expires, keys) VALUES (?, ?, ?)');
    const store = db.transaction((id: string, keys: string, expires: number, now: number) => {
      dropExpired.run(now);
      insert.run(id, expires, keys);
    });
    this.opened = {
      db,
      store: (id, keys, expires, now) => store.immediate(id, keys, expires, now),
      read: db
        .prepare<[string, number], string>('SELECT keys FROM rankings WHERE id = ? AND expires > ?')
        .pluck(),
    };
    return this.opened;
  }
}
