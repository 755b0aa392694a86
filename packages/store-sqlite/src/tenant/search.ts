/**
 * The embedded full-text index: an FTS5 table in the tenant's own database (rowid = the object's
 * key), written by the tenant store inside the same transaction as the object, so a search never
 * returns an object a get would miss and never misses one just written.
 *
 * Tokenizer `unicode61 remove_diacritics 2` (case- and accent-insensitive), prefix indexes for 2
 * and 3 characters. Each query term becomes a quoted prefix term (`"term"*`), terms AND-combined;
 * terms come from `searchTerms`, so no FTS syntax ever reaches the engine.
 *
 * Ranking: when the query matches at most `rankLimit` entries and none of its terms matches more
 * than `PHRASE_LIMIT_FACTOR` times as many, pages follow bm25 (best first), ties by creation order.
 * Otherwise the work of bm25 would not be bounded: broader queries (a letter or two typed) would
 * rank nearly the whole tenant on every keystroke, and FTS5's bm25 reads every entry of each term
 * to count the documents holding it (a rare term AND a common one matches few objects but reads
 * all of the common term's entries), so they list matches newest first instead, which reads
 * `size + 1` matches. Both checks count at most limit + 1 entries. The mode is fixed by the first
 * page and carried in the cursor. Paging is stable while others write: a bm25 paging's ranked key list
 * is frozen at its first page (search-rankings.ts, expiring after `cursorTtlMs`; an expired
 * cursor is a ValidationError), since positions in a live ranking shift with deletes and bm25
 * scores move with corpus statistics; a newest-first paging is a keyset below a snapshot bound
 * (object keys are never reused). Cursors are HMAC-signed: a forged, damaged or foreign cursor is
 * a ValidationError.
 */
import { createHash, randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { ValidationError, invalidSearchCursor, seal, unseal, searchTerms } from '@odp/core';
import type { AccessFilter, Model, SearchDocument, SearchIndex, SearchPage, SearchQuery } from '@odp/core';
import { compileAccess } from './query/access.js';
import type { KeyLookup, Sql } from './query/sql.js';
import type { ConnectionChanges } from './database.js';
import type { FrozenRankings } from './search-rankings.js';
import { limitClause } from './query/sql.js';

export interface SqliteSearchIndexContext extends Pick<ConnectionChanges, 'dataVersion' | 'onWrite'> {
  readonly keys: KeyLookup;
  /** Key of the cursor signatures. */
  readonly secret: Buffer;
  readonly rankLimit: number;
  /** How long the frozen ranking behind a bm25 cursor is kept. */
  readonly cursorTtlMs: number;
  /** Prepared-statement cache of the owning store. */
  readonly statement: (sql: string) => Database.Statement;
  /** Where the rankings of bm25 pagings are frozen (search-rankings.ts). */
  readonly rankings: Pick<FrozenRankings, 'store' | 'read'>;
  /**
   * Runs `work` in one write transaction of the tenant's database, waiting for the lock without
   * blocking the event loop (`TenantDatabase.inWriteTransaction`).
   */
  readonly write: <T>(work: () => T) => Promise<T>;
  /** Re-derives every object's index entries (and the store's other derived rows) for a model. */
  readonly rebuild: (model: Model) => Promise<number>;
}

type Cursor = RankCursor | RecentCursor;

interface RankCursor {
  /** Query fingerprint: a cursor only continues the query it came from. */
  readonly q: string;
  readonly mode: 'rank';
  /** The id of the ranking frozen at the first page (search-rankings.ts). */
  readonly page: string;
  /** Position in the frozen ranking where the next page starts. */
  readonly at: number;
}

interface RecentCursor {
  readonly q: string;
  readonly mode: 'recent';
  /** Newest object key when the first page was served; later objects are not part of this paging. */
  readonly max: number;
  /** The last key returned. */
  readonly at: number;
}

const MAX_PAGE_SIZE = 1000;
/** A term matching more than this many times `rankLimit` entries makes bm25's work unbounded. */
const PHRASE_LIMIT_FACTOR = 10;
/** Match counts remembered at most (see `SqliteSearchIndex.within`). */
const REMEMBERED_COUNTS = 1000;
/** First pages remembered at most (see `SqliteSearchIndex.firstPages`). */
const REMEMBERED_PAGES = 500;

export class SqliteSearchIndex implements SearchIndex {
  readonly maintainedByStore = true;

  /**
   * Whether an expression matches at most a limit of entries, by `${limit} ${expression}`, as
   * counted since the index last changed: while no connection writes, a repeated query (the same
   * search from many clients, the check of a common term on each keystroke) counts nothing again.
   */
  private readonly counts = new Map<string, boolean>();
  /**
   * First pages by query, classes, reader's scope and size, as answered since the index last
   * changed, each until half its frozen ranking's lifetime has passed (its `next` cursor stays
   * valid): the same search asked again while nothing is written (the same prefix typed by many
   * clients, a page reloaded) is answered without matching again.
   */
  private readonly firstPages = new Map<string, { readonly page: SearchPage; readonly until: number }>();
  /** The `data_version` both memories were filled under. */
  private rememberedVersion: number | null = null;

  constructor(private readonly context: SqliteSearchIndexContext) {
    context.onWrite(() => this.forget());
  }

  /** Replaces the entries of stored objects with the given text; ids not stored are ignored. */
  async index(documents: readonly SearchDocument[]): Promise<void> {
    await this.context.write(() => {
      for (const document of documents) {
        const n = this.context.keys.objectKey(document.id);
        if (n === null) continue;
        this.context.statement('DELETE FROM search WHERE rowid = ?').run(n);
        this.context.statement('INSERT INTO search (rowid, text) VALUES (?, ?)').run(n, document.text);
      }
    });
  }

  async remove(ids: readonly string[]): Promise<void> {
    await this.context.write(() => {
      for (const id of ids) {
        const n = this.context.keys.objectKey(id);
        if (n !== null) this.context.statement('DELETE FROM search WHERE rowid = ?').run(n);
      }
    });
  }

  async rebuild(model: Model): Promise<number> {
    return this.context.rebuild(model);
  }

  async search(query: SearchQuery, access: AccessFilter): Promise<SearchPage> {
    const terms = searchTerms(query.text);
    const classKeys = query.classes
      .map((name) => this.context.keys.key(`c:${name}`))
      .filter((key): key is number => key !== null)
      .sort((a, b) => a - b);
    const phrases = terms.map((term) => `"${term}"*`);
    const match = phrases.join(' ');
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([match, classKeys]))
      .digest('base64url')
      .slice(0, 16);
    const cursor = query.cursor === undefined ? undefined : this.decodeCursor(query.cursor, fingerprint);
    if (terms.length === 0 || classKeys.length === 0) return { ids: [], next: null };
    const size = Math.max(1, Math.min(Math.trunc(query.size), MAX_PAGE_SIZE));
    if (cursor?.mode === 'rank') return this.frozenPage(cursor, classKeys, access, size);
    const scope = this.scope('search.rowid', classKeys, access);
    if (cursor !== undefined) return this.page(match, scope, size, fingerprint, cursor);
    this.forgetIfChanged();
    const key = `${fingerprint}\u0000${size}\u0000${scope.text}\u0000${JSON.stringify(scope.params)}`;
    const now = Date.now();
    const remembered = this.firstPages.get(key);
    if (remembered !== undefined && now < remembered.until) return remembered.page;
    const page = this.page(match, scope, size, fingerprint, this.firstPageMode(match, phrases, fingerprint));
    if (this.firstPages.size >= REMEMBERED_PAGES) this.firstPages.clear();
    this.firstPages.set(key, { page, until: now + this.context.cursorTtlMs / 2 });
    return page;
  }

  /** A page of a bm25 first page or of a newest-first paging at `state`. */
  private page(
    match: string,
    scope: Sql,
    size: number,
    fingerprint: string,
    state: { mode: 'rank' } | RecentCursor,
  ): SearchPage {
    if (state.mode === 'rank') {
      const ranked = this.context
        .statement(
          `SELECT search.rowid FROM search WHERE search MATCH ? AND ${scope.text} ORDER BY rank, search.rowid`,
        )
        .pluck()
        .all(match, ...scope.params) as number[];
      const ids = this.idsOf(ranked.slice(0, size));
      if (ranked.length <= size) return { ids, next: null };
      const page = this.freeze(ranked);
      return { ids, next: this.encodeCursor({ q: fingerprint, mode: 'rank', page, at: size }) };
    }
    const keys = this.context
      .statement(
        `SELECT search.rowid FROM search WHERE search MATCH ? AND search.rowid <= ? AND search.rowid < ?
         AND ${scope.text} ORDER BY search.rowid DESC ${limitClause(size + 1)}`,
      )
      .pluck()
      .all(match, state.max, state.at, ...scope.params) as number[];
    const page = keys.slice(0, size);
    const ids = this.idsOf(page);
    if (keys.length <= size) return { ids, next: null };
    return { ids, next: this.encodeCursor({ ...state, at: page.at(-1) ?? 0 }) };
  }

  /** Class scope and access filter on the object key expression `n`. */
  private scope(n: string, classKeys: readonly number[], access: AccessFilter): Sql {
    const visible = compileAccess(this.context.keys, access)?.(n);
    return {
      text:
        `EXISTS (SELECT 1 FROM cls k WHERE k.n = ${n} AND k.c IN (SELECT value FROM json_each(?)))` +
        (visible === undefined ? '' : ` AND ${visible.text}`),
      params: [JSON.stringify(classKeys), ...(visible?.params ?? [])],
    };
  }

  /**
   * A later page of a bm25 paging: the frozen ranking from the cursor's position on, keeping the
   * objects that still exist and are visible now (a deleted one is skipped, shifting nothing).
   */
  private frozenPage(
    cursor: RankCursor,
    classKeys: readonly number[],
    access: AccessFilter,
    size: number,
  ): SearchPage {
    const frozen = this.context.rankings.read(cursor.page, Date.now());
    if (frozen === undefined) {
      throw new ValidationError('The search cursor has expired; search again.', [
        { field: 'cursor', message: 'expired' },
      ]);
    }
    const scope = this.scope('j.value', classKeys, access);
    const rows = this.context
      .statement(
        `SELECT j.key AS at, j.value AS n FROM json_each(?) j
         WHERE j.key >= ? AND EXISTS (SELECT 1 FROM objects o WHERE o.n = j.value) AND ${scope.text}
         ORDER BY j.key ${limitClause(size + 1)}`,
      )
      .all(frozen, cursor.at, ...scope.params) as { at: number; n: number }[];
    const page = rows.slice(0, size);
    const ids = this.idsOf(page.map((row) => row.n));
    if (rows.length <= size) return { ids, next: null };
    return { ids, next: this.encodeCursor({ ...cursor, at: (page.at(-1)?.at ?? 0) + 1 }) };
  }

  /** Stores a ranking for the later pages of its paging; returns its id. */
  private freeze(ranked: readonly number[]): string {
    const id = randomBytes(12).toString('base64url');
    const now = Date.now();
    this.context.rankings.store(id, JSON.stringify(ranked), now + this.context.cursorTtlMs, now);
    return id;
  }

  /** The ranking mode of a first page; a newest-first paging is bounded by the newest key now. */
  private firstPageMode(
    match: string,
    phrases: readonly string[],
    fingerprint: string,
  ): { mode: 'rank' } | RecentCursor {
    const rankLimit = this.context.rankLimit;
    if (
      this.within(match, rankLimit) &&
      (phrases.length === 1 ||
        phrases.every((phrase) => this.within(phrase, rankLimit * PHRASE_LIMIT_FACTOR)))
    ) {
      return { mode: 'rank' };
    }
    const max = (this.context.statement('SELECT max(n) FROM objects').pluck().get() as number | null) ?? 0;
    return { q: fingerprint, mode: 'recent', max, at: max + 1 };
  }

  /** Forgets the remembered counts and first pages when another connection committed since. */
  private forgetIfChanged(): void {
    const version = this.context.dataVersion();
    if (version !== this.rememberedVersion) {
      this.forget();
      this.rememberedVersion = version;
    }
  }

  private forget(): void {
    this.counts.clear();
    this.firstPages.clear();
  }

  /**
   * Whether `expression` matches at most `limit` entries (counting at most `limit` + 1), as
   * remembered since the index last changed (`forgetIfChanged` runs first on every first page).
   */
  private within(expression: string, limit: number): boolean {
    if (this.counts.size >= REMEMBERED_COUNTS) this.counts.clear();
    const key = `${limit} ${expression}`;
    const remembered = this.counts.get(key);
    if (remembered !== undefined) return remembered;
    const count = this.context
      .statement(`SELECT count(*) FROM (SELECT 1 FROM search WHERE search MATCH ? ${limitClause(limit + 1)})`)
      .pluck()
      .get(expression) as number;
    this.counts.set(key, count <= limit);
    return count <= limit;
  }

  private idsOf(keys: readonly number[]): string[] {
    if (keys.length === 0) return [];
    const rows = this.context
      .statement('SELECT n, id FROM objects WHERE n IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(keys)) as { n: number; id: string }[];
    const byKey = new Map(rows.map((row) => [row.n, row.id]));
    return keys.map((key) => byKey.get(key)).filter((id): id is string => id !== undefined);
  }

  private encodeCursor(cursor: Cursor): string {
    return seal(cursor, this.context.secret);
  }

  private decodeCursor(text: string, fingerprint: string): Cursor {
    const cursor = unseal(text, this.context.secret) as Cursor | null;
    if (cursor === null) throw invalidSearchCursor();
    // A bm25 cursor of the schema before frozen rankings has no page: it cannot be continued.
    if (cursor.q !== fingerprint || (cursor.mode === 'rank' && typeof cursor.page !== 'string')) {
      throw invalidSearchCursor();
    }
    return cursor;
  }
}
