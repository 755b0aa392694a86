/**
 * The rankings bm25 search pagings froze at their first page (search.ts), in a database file of
 * their own beside the tenant's (`<tenant file>.rankings`). Storing a ranking is a write, and
 * SQLite makes every other connection to a database drop its whole page cache after a commit to
 * it: in the tenant's database, each search that pages made the other api processes read the
 * tenant's pages again. A ranking is kept for a paging's lifetime only, so this file is not synced
 * on commit (a crash may lose the last rankings: their cursors are then expired, and the search is
 * made again).
 */
import Database from 'better-sqlite3';

/**
 * How long storing a ranking waits for another process storing one, in ms: the lock is held for
 * the two statements of a store only.
 */
const BUSY_TIMEOUT_MS = 1000;

/** The open file and its statements, prepared once. */
interface OpenRankings {
  readonly db: Database.Database;
  readonly store: (id: string, keys: string, expires: number, now: number) => void;
  readonly read: Database.Statement<[string, number], string>;
}

export class FrozenRankings {
  private opened: OpenRankings | null = null;

  /** `file`: the tenant's database file, or `:memory:` (then the rankings are in memory too). */
  constructor(private readonly tenantFile: string) {}

  /** Stores the ranked keys `keys` (JSON) under `id` until `expires`, dropping expired ones. */
  store(id: string, keys: string, expires: number, now: number): void {
    this.open().store(id, keys, expires, now);
  }

  /** The ranked keys stored under `id` (JSON), unless expired at `now` or unknown. */
  read(id: string, now: number): string | undefined {
    return this.open().read.get(id, now);
  }

  close(): void {
    this.opened?.db.close();
    this.opened = null;
  }

  private open(): OpenRankings {
    if (this.opened !== null) return this.opened;
    const db = new Database(this.tenantFile === ':memory:' ? ':memory:' : `${this.tenantFile}.rankings`);
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.exec(`CREATE TABLE IF NOT EXISTS rankings (id TEXT PRIMARY KEY, expires INTEGER NOT NULL, keys TEXT NOT NULL)
      WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS rankings_expires ON rankings (expires);`);
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
