/**
 * Reading object rows back as `StoredObject`s: by id under an access filter, by key in a given
 * order, in id order (scans), each with its forward links read in one query.
 */
import { mapInSlices } from '@odp/core';
import type { AccessFilter, LoopSlices, StoredObject } from '@odp/core';
import type Database from 'better-sqlite3';
import type { TenantDatabase } from './database.js';
import { compileAccess } from './query/access.js';
import { sortIdOf } from './remembered-rows.js';
import type { PageRow, RememberedRows } from './remembered-rows.js';
import { amongValues, limitClause } from './query/sql.js';
import type { Sql } from './query/sql.js';

export interface ObjectRow {
  n: number;
  id: string;
  basic: string;
  classes: string;
  name: string | null;
  vals: string;
  created: string;
  modified: string;
}

/** An object row, with the value of a sort key when one was asked for. */
export type KeyedRow = ObjectRow & { readonly sortKey?: unknown };

export const OBJECT_COLUMNS = 'o.n, o.id, o.basic, o.classes, o.name, o.vals, o.created, o.modified';

/** A row of {@link OBJECT_COLUMNS} (and a sort key) as better-sqlite3's raw mode reads it. */
type RawRow = [number, string, string, string, string | null, string, string, string, unknown?];

/**
 * The rows of `statement` (selecting {@link OBJECT_COLUMNS}, then a sort key when asked) as
 * objects. Read as arrays and made into objects here: the driver makes each row object property by
 * property through V8's API (a page's 21 rows: 65-67 us that way, 47 us this way). Leaves the
 * (cached) statement in raw mode: every reader of its text reads through here.
 */
export function objectRows(statement: Database.Statement, params: readonly unknown[]): KeyedRow[] {
  return (statement.raw(true).all(...params) as RawRow[]).map((raw) => ({
    n: raw[0],
    id: raw[1],
    basic: raw[2],
    classes: raw[3],
    name: raw[4],
    vals: raw[5],
    created: raw[6],
    modified: raw[7],
    sortKey: raw[8],
  }));
}

export class ObjectRows {
  constructor(
    private readonly database: TenantDatabase,
    private readonly remembered: RememberedRows,
  ) {}

  /** The query of the objects matching `where` that `access` lets the reader see. */
  fetchQuery(where: string, params: readonly unknown[], access: AccessFilter): Sql {
    const visible = compileAccess(this.database.keys, access)?.('o.n');
    return {
      text: `SELECT ${OBJECT_COLUMNS} FROM objects o WHERE ${where}${visible === undefined ? '' : ` AND ${visible.text}`}`,
      params: [...params, ...(visible?.params ?? [])],
    };
  }

  fetchWhere(where: string, params: readonly unknown[], access: AccessFilter): StoredObject[] {
    const query = this.fetchQuery(where, params, access);
    return this.hydrate(objectRows(this.database.statement(query.text), query.params));
  }

  /**
   * Object rows of `keys`, in the order of `keys`; with `sortKey` (an expression of `o.n`), each
   * row also holds its value as `sortKey` (a page's positions, read with its rows).
   */
  byKey(keys: readonly number[], sortKey?: Sql): KeyedRow[] {
    if (keys.length === 0) return [];
    const extra = sortKey === undefined ? '' : `, ${sortKey.text} AS sortKey`;
    const rows = objectRows(
      this.database.statement(
        `SELECT ${OBJECT_COLUMNS}${extra} FROM objects o WHERE o.n IN (SELECT value FROM json_each(?))`,
      ),
      [...(sortKey?.params ?? []), JSON.stringify(keys)],
    );
    const byKey = new Map(rows.map((row) => [row.n, row]));
    return keys.map((key) => byKey.get(key)).filter((row): row is KeyedRow => row !== undefined);
  }

  /**
   * The stored objects of a page's `keys`, in the order of `keys` (a key whose row is gone is left
   * out), each with its value of `sortKey` (an expression of `o.n`): the objects remembered from
   * an earlier page (remembered-rows.ts), and the others read, with their links, in slices of the
   * event loop, then remembered.
   */
  async page(keys: readonly number[], sortKey: Sql | undefined, slices: LoopSlices): Promise<PageRow[]> {
    const read = this.remembered.open();
    const sortId = sortIdOf(sortKey);
    const found = new Map<number, PageRow>();
    const missing: number[] = [];
    for (const key of keys) {
      const row = read === null ? undefined : this.remembered.find(key, sortId);
      if (row === undefined) missing.push(key);
      else found.set(key, row);
    }
    if (missing.length > 0) {
      const rows = this.byKey(missing, sortKey);
      await slices.next();
      const objects = await this.hydrateInSlices(rows, slices);
      rows.forEach((row, index) => {
        const pageRow = { n: row.n, object: objects[index]!, sortKey: row.sortKey };
        found.set(row.n, pageRow);
        if (read !== null) this.remembered.remember(read, pageRow, rowChars(row), sortId);
      });
    }
    return keys.map((key) => found.get(key)).filter((row): row is PageRow => row !== undefined);
  }

  /** Up to `limit` objects in id order after `afterId`, whatever their access. */
  scan(afterId: string | null, limit: number): StoredObject[] {
    return this.hydrate(
      objectRows(
        this.database.statement(
          `SELECT ${OBJECT_COLUMNS} FROM objects o WHERE o.id > ? ORDER BY o.id ${limitClause(limit)}`,
        ),
        [afterId ?? ''],
      ),
    );
  }

  /** StoredObjects of rows, with their forward links read in one query. */
  hydrate(rows: readonly ObjectRow[]): StoredObject[] {
    if (rows.length === 0) return [];
    const links = this.linksOf(rows);
    return rows.map((row) => toStoredObject(row, links.get(row.n) ?? {}));
  }

  /** As {@link hydrate}, in slices of the event loop (the rows of a page of up to 1,000 objects). */
  async hydrateInSlices(rows: readonly ObjectRow[], slices: LoopSlices): Promise<StoredObject[]> {
    if (rows.length === 0) return [];
    const links = this.linksOf(rows);
    await slices.next();
    return mapInSlices(rows, (row) => toStoredObject(row, links.get(row.n) ?? {}), slices);
  }

  /** The forward links of rows, by key, read in one query. */
  private linksOf(rows: readonly ObjectRow[]): Map<number, Record<string, string[]>> {
    const sources = amongValues(
      'l.src',
      rows.map((row) => row.n),
    );
    const linkRows = this.database
      .statement(
        `SELECT l.src AS src, substr(k.name, 3) AS rel, t.id AS dst FROM links l
       JOIN dict k ON k.k = l.rel JOIN objects t ON t.n = l.dst
       WHERE ${sources.text} ORDER BY l.src, l.rel, l.pos`,
      )
      .raw(true)
      .all(...sources.params) as [src: number, rel: string, dst: string][];
    const links = new Map<number, Record<string, string[]>>();
    for (const [src, rel, dst] of linkRows) {
      const ofObject = links.get(src) ?? {};
      (ofObject[rel] ??= []).push(dst);
      links.set(src, ofObject);
    }
    return links;
  }
}

export function toStoredObject(
  row: ObjectRow,
  links: Readonly<Record<string, readonly string[]>>,
): StoredObject {
  return {
    id: row.id,
    basicClass: row.basic,
    classes: JSON.parse(row.classes) as string[],
    name: row.name,
    values: JSON.parse(row.vals) as Record<string, unknown>,
    links,
    createdAt: row.created,
    modifiedAt: row.modified,
  };
}

/** The characters of a row's text, about what its object holds once parsed. */
function rowChars(row: ObjectRow): number {
  return row.id.length + row.basic.length + row.classes.length + (row.name?.length ?? 0) + row.vals.length;
}
