/**
 * The embedded full-text index: an FTS5 table in the tenant's own database (rowid = the object's
 * key), written by the tenant store inside the same transaction as the object, so a search never
 * returns an object a get would miss and never misses one just written.
 *
 * Tokenizer `unicode61 remove_diacritics 2` (case- and accent-insensitive), prefix indexes for 2
 * and 3 characters. Each query term becomes a quoted prefix term (`"term"*`), terms AND-combined;
 * terms come from `searchTerms`, so no FTS syntax ever reaches the engine.
 *
 * Ranking: when the query matches at most `rankLimit` entries, pages follow bm25 (best first), ties
 * by creation order; broader queries (a letter or two typed) would rank nearly the whole tenant on
 * every keystroke, so they list matches newest first instead. The mode is fixed by the first page
 * and carried in the cursor, together with a snapshot bound (the newest object key at the first
 * page), so paging is stable while others insert. Cursors are HMAC-signed: a forged, damaged or
 * foreign cursor is a ValidationError.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type Database from 'better-sqlite3';
import { ValidationError, searchTerms } from '@odp/core';
import type { AccessFilter, Model, SearchDocument, SearchIndex, SearchPage, SearchQuery } from '@odp/core';
import { compileAccess } from './tenant-query.js';
import type { KeyLookup } from './tenant-query.js';

export interface SqliteSearchIndexContext {
  readonly db: Database.Database;
  readonly keys: KeyLookup;
  /** Key of the cursor signatures. */
  readonly secret: Buffer;
  readonly rankLimit: number;
  /** Prepared-statement cache of the owning store. */
  readonly statement: (sql: string) => Database.Statement;
  /** Re-derives every object's index entries (and the store's other derived rows) for a model. */
  readonly rebuild: (model: Model) => number;
}

interface Cursor {
  /** Query fingerprint: a cursor only continues the query it came from. */
  readonly q: string;
  readonly mode: 'rank' | 'recent';
  /** Newest object key when the first page was served; later objects are not part of this paging. */
  readonly max: number;
  /** rank: rows already returned. recent: the last key returned. */
  readonly at: number;
}

const MAX_PAGE_SIZE = 1000;

export class SqliteSearchIndex implements SearchIndex {
  readonly maintainedByStore = true;

  constructor(private readonly context: SqliteSearchIndexContext) {}

  /** Replaces the entries of stored objects with the given text; ids not stored are ignored. */
  async index(documents: readonly SearchDocument[]): Promise<void> {
    this.context.db
      .transaction(() => {
        for (const document of documents) {
          const n = this.context.keys.objectKey(document.id);
          if (n === null) continue;
          this.context.statement('DELETE FROM search WHERE rowid = ?').run(n);
          this.context.statement('INSERT INTO search (rowid, text) VALUES (?, ?)').run(n, document.text);
        }
      })
      .immediate();
  }

  async remove(ids: readonly string[]): Promise<void> {
    this.context.db
      .transaction(() => {
        for (const id of ids) {
          const n = this.context.keys.objectKey(id);
          if (n !== null) this.context.statement('DELETE FROM search WHERE rowid = ?').run(n);
        }
      })
      .immediate();
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
    const match = terms.map((term) => `"${term}"*`).join(' ');
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([match, classKeys]))
      .digest('base64url')
      .slice(0, 16);
    const cursor = query.cursor === undefined ? undefined : this.decodeCursor(query.cursor, fingerprint);
    if (terms.length === 0 || classKeys.length === 0) return { ids: [], next: null };
    const size = Math.max(1, Math.min(Math.trunc(query.size), MAX_PAGE_SIZE));
    const state = cursor ?? this.firstPageState(match, fingerprint);

    const visible = compileAccess(this.context.keys, access)?.('search.rowid');
    const conditions = [
      'search MATCH ?',
      'search.rowid <= ?',
      'EXISTS (SELECT 1 FROM cls k WHERE k.n = search.rowid AND k.c IN (SELECT value FROM json_each(?)))',
      ...(visible === undefined ? [] : [visible.text]),
    ];
    const params: unknown[] = [match, state.max, JSON.stringify(classKeys), ...(visible?.params ?? [])];
    let sql: string;
    if (state.mode === 'rank') {
      sql = `SELECT search.rowid FROM search WHERE ${conditions.join(' AND ')} ORDER BY rank, search.rowid LIMIT ? OFFSET ?`;
      params.push(size + 1, state.at);
    } else {
      sql = `SELECT search.rowid FROM search WHERE ${conditions.join(' AND ')} AND search.rowid < ? ORDER BY search.rowid DESC LIMIT ?`;
      params.push(state.at, size + 1);
    }
    const keys = this.context
      .statement(sql)
      .pluck()
      .all(...params) as number[];
    const page = keys.slice(0, size);
    const ids = this.idsOf(page);
    if (keys.length <= size) return { ids, next: null };
    const at = state.mode === 'rank' ? state.at + size : (page.at(-1) ?? 0);
    return { ids, next: this.encodeCursor({ ...state, at }) };
  }

  /** The paging state of a first page: the ranking mode and the snapshot bound. */
  private firstPageState(match: string, fingerprint: string): Cursor {
    const max = (this.context.statement('SELECT max(n) FROM objects').pluck().get() as number | null) ?? 0;
    const matches = this.context
      .statement('SELECT count(*) FROM (SELECT 1 FROM search WHERE search MATCH ? LIMIT ?)')
      .pluck()
      .get(match, this.context.rankLimit + 1) as number;
    return matches > this.context.rankLimit
      ? { q: fingerprint, mode: 'recent', max, at: max + 1 }
      : { q: fingerprint, mode: 'rank', max, at: 0 };
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
    const payload = Buffer.from(JSON.stringify(cursor)).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  private decodeCursor(text: string, fingerprint: string): Cursor {
    const invalid = new ValidationError('The search cursor is not valid for this query.', [
      { field: 'cursor', message: 'not a cursor of this query' },
    ]);
    const [payload, signature, ...rest] = text.split('.');
    if (payload === undefined || signature === undefined || rest.length > 0) throw invalid;
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid;
    const cursor = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Cursor;
    if (cursor.q !== fingerprint) throw invalid;
    return cursor;
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.context.secret).update(payload).digest('base64url').slice(0, 22);
  }
}
