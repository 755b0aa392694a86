/**
 * The reads that render links (`{href, name}`): the id, BASIC class and name of objects, and the
 * objects linking to a page of objects, each one query over the `objects` columns alone (no values
 * parsed, no links hydrated), under the caller's access filter.
 */
import type Database from 'better-sqlite3';
import type { AccessFilter, IncomingBound, IncomingRef, ObjectRef } from '@odp/core';
import { visibleLinked } from './query/access.js';
import type { KeyLookup } from './query/sql.js';

export interface TenantNamesContext {
  readonly keys: KeyLookup;
  /** Prepared-statement cache of the owning store. */
  readonly statement: (sql: string) => Database.Statement;
}

/** Rows are read raw (arrays): the driver then builds no object per row. */
type RefRow = [id: string, basic: string, name: string | null];
type IncomingRow = [dst: number, rel: number, ...ref: RefRow];

export class TenantNames {
  /**
   * Relation storage keys by interned key. A committed dict row never changes or goes away, and
   * these reads run outside write transactions, so what they saw stays true.
   */
  private readonly relationKeys = new Map<number, string>();

  constructor(private readonly context: TenantNamesContext) {}

  /** See `TenantStore.refsOf`. */
  refsOf(ids: readonly string[], access: AccessFilter): ObjectRef[] {
    if (ids.length === 0) return [];
    const visible = visibleLinked(this.context.keys, access, 'o.n');
    const rows = this.context
      .statement(
        `SELECT o.id, o.basic, o.name FROM objects o
         WHERE o.id IN (SELECT value FROM json_each(?)) AND ${visible.text}`,
      )
      .raw(true)
      .all(JSON.stringify(ids), ...visible.params) as RefRow[];
    return rows.map(([id, basicClass, name]) => ({ id, basicClass, name }));
  }

  /**
   * See `TenantStore.incomingRefs`: ordered by target and relation, then as `linksTo` (source,
   * position). The links are read with integer keys only; target ids and relation keys are mapped
   * back from a small lookup and remembered dict entries, which halves the cost of a page whose
   * objects have many linkers. With a bound, each (target, relation) is one range read of
   * `links_dst` (dst, rel, src, pos) that stops after `limit` visible linkers.
   */
  incomingRefs(ids: readonly string[], access: AccessFilter, bound?: IncomingBound): IncomingRef[] {
    if (ids.length === 0) return [];
    // A bounded read names its relations: when none of them has ever been stored, no object links
    // through them, and nothing is read.
    const rels = bound === undefined ? [] : this.storedRelations(bound.relationKeys);
    if (bound !== undefined && rels.length === 0) return [];
    const targets = new Map(
      this.context
        .statement('SELECT n, id FROM objects WHERE id IN (SELECT value FROM json_each(?))')
        .raw(true)
        .all(JSON.stringify(ids)) as [number, string][],
    );
    if (targets.size === 0) return [];
    const visible = visibleLinked(this.context.keys, access, 's.n');
    const select = `SELECT l.dst, l.rel, s.id, s.basic, s.name FROM links l JOIN objects s ON s.n = l.src`;
    let rows: IncomingRow[];
    if (bound === undefined) {
      rows = this.context
        .statement(
          `${select} WHERE l.dst IN (SELECT value FROM json_each(?)) AND ${visible.text}
           ORDER BY l.dst, l.rel, l.src, l.pos`,
        )
        .raw(true)
        .all(JSON.stringify([...targets.keys()]), ...visible.params) as IncomingRow[];
    } else {
      const range = this.context
        .statement(
          `${select} WHERE l.dst = ? AND l.rel = ? AND ${visible.text} ORDER BY l.src, l.pos LIMIT ?`,
        )
        .raw(true);
      rows = [];
      for (const dst of [...targets.keys()].sort((a, b) => a - b)) {
        for (const rel of rels) {
          rows.push(...(range.all(dst, rel, ...visible.params, bound.limit) as IncomingRow[]));
        }
      }
    }
    const unknown = [...new Set(rows.map((row) => row[1]))].filter((rel) => !this.relationKeys.has(rel));
    if (unknown.length > 0) {
      const found = this.context
        .statement('SELECT k, substr(name, 3) FROM dict WHERE k IN (SELECT value FROM json_each(?))')
        .raw(true)
        .all(JSON.stringify(unknown)) as [number, string][];
      for (const [rel, key] of found) this.relationKeys.set(rel, key);
    }
    return rows.map(([dst, rel, id, basicClass, name]) => ({
      targetId: targets.get(dst) ?? '',
      relationKey: this.relationKeys.get(rel) ?? '',
      id,
      basicClass,
      name,
    }));
  }

  /** The interned keys of the relations `relationKeys` that have been stored, in ascending order. */
  private storedRelations(relationKeys: readonly string[]): number[] {
    const rels: number[] = [];
    for (const key of relationKeys) {
      const rel = this.context.keys.key(`r:${key}`);
      if (rel !== null) {
        rels.push(rel);
        this.relationKeys.set(rel, key);
      }
    }
    return rels.sort((a, b) => a - b);
  }
}
