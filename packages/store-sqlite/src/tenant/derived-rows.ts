/**
 * The rows derived from one stored object: its class membership (`cls`), value index (`ix`),
 * class value tables (class-columns.ts), counters (aggregates.ts) and full-text row. A new object's
 * rows are inserted; an updated object's are compared with the stored ones and only the rows that
 * change are written, so a write touching one field dirties the pages of that field's entries, not
 * of every entry of the object (a deleted and re-inserted B-tree entry dirties its page as much as
 * a changed one).
 */
import { searchTextOf } from '@odp/core';
import type { StoredObject } from '@odp/core';
import type { AccessRows } from './access-rows.js';
import type { IxRow, TenantAggregates } from './aggregates.js';
import type { AppliedModel } from './applied-model.js';
import type { ClassColumns } from './class-columns.js';
import type { TenantDatabase } from './database.js';
import { indexKeysOf, indexedFields, ixKey } from './index-keys.js';
import type { SearchCompaction } from './search-compaction.js';

export class DerivedRows {
  constructor(
    private readonly database: TenantDatabase,
    private readonly model: AppliedModel,
    private readonly aggregates: TenantAggregates,
    private readonly columns: ClassColumns,
    private readonly accessRows: AccessRows,
    private readonly searchCompaction: SearchCompaction,
  ) {}

  /** Writes the derived rows of an object stored for the first time. */
  insert(object: StoredObject, n: number): void {
    const { classKeys, rows } = this.rowsOf(object);
    const insertClass = this.database.statement('INSERT OR IGNORE INTO cls (c, n) VALUES (?, ?)');
    for (const c of classKeys) insertClass.run(c, n);
    const insertValue = this.database.statement('INSERT OR IGNORE INTO ix (c, f, v, n) VALUES (?, ?, ?, ?)');
    for (const [c, f, v] of rows) insertValue.run(c, f, v, n);
    this.columns.put(object, n, true);
    this.aggregates.change([], rows);
    this.putSearchText(n, searchTextOf(this.model.current, object), false);
  }

  /**
   * Brings the derived rows of the stored object `n` to those of `object`, writing only the rows
   * that differ. `previous` is the object as stored, when its rows were derived by the current
   * model (a write): the rows to compare with are derived from it, not read back. A rebuild passes
   * none: the stored rows are read, and the search text is always written again.
   */
  replace(object: StoredObject, n: number, previous?: StoredObject): void {
    const derived = previous && this.rowsOf(previous);
    const before =
      derived?.rows ??
      (this.database.statement('SELECT c, f, v FROM ix WHERE n = ?').raw(true).all(n) as IxRow[]);
    const classesBefore = derived?.classKeys ?? this.classKeysOf(n);
    const { classKeys, rows } = this.rowsOf(object);
    this.aggregates.change(before, rows);
    const rowKey = ([c, f, v]: IxRow) => `${c}\u0000${f}\u0000${typeof v}\u0000${v}`;
    const kept = new Set(rows.map(rowKey));
    const stored = new Set(before.map(rowKey));
    const deleteValue = this.database.statement('DELETE FROM ix WHERE c = ? AND f = ? AND v = ? AND n = ?');
    for (const row of before) if (!kept.has(rowKey(row))) deleteValue.run(...row, n);
    const insertValue = this.database.statement('INSERT OR IGNORE INTO ix (c, f, v, n) VALUES (?, ?, ?, ?)');
    for (const row of rows) if (!stored.has(rowKey(row))) insertValue.run(...row, n);

    const lost = classesBefore.filter((c) => !classKeys.includes(c));
    const gained = classKeys.filter((c) => !classesBefore.includes(c));
    for (const c of lost) this.database.statement('DELETE FROM cls WHERE c = ? AND n = ?').run(c, n);
    for (const c of gained)
      this.database.statement('INSERT OR IGNORE INTO cls (c, n) VALUES (?, ?)').run(c, n);
    this.columns.remove(n, lost);
    this.columns.put(object, n, false);
    if (lost.length > 0 || gained.length > 0) this.accessRows.refreshAclClasses(n);

    const text = searchTextOf(this.model.current, object);
    if (previous === undefined || text !== searchTextOf(this.model.current, previous))
      this.putSearchText(n, text, true);
  }

  /** Removes every derived row of the stored object `n`. */
  remove(n: number): void {
    this.aggregates.apply(n, -1);
    this.columns.remove(n, this.classKeysOf(n));
    for (const sql of [
      'DELETE FROM cls WHERE n = ?',
      'DELETE FROM ix WHERE n = ?',
      'DELETE FROM search WHERE rowid = ?',
    ]) {
      this.database.statement(sql).run(n);
    }
    this.searchCompaction.noteChange();
  }

  /**
   * The class keys of the object's classes and its `ix` rows: one per (class, indexed field of the
   * class, index key), an empty field as one EMPTY_KEY (-Infinity) row. Interns the names.
   */
  private rowsOf(object: StoredObject): { classKeys: number[]; rows: IxRow[] } {
    const classKeys: number[] = [];
    const rows: IxRow[] = [];
    for (const className of new Set(object.classes)) {
      const c = this.database.intern(`c:${className}`);
      classKeys.push(c);
      const classDef = this.model.current.classes.get(className);
      if (classDef === undefined) continue;
      for (const field of indexedFields(classDef)) {
        const f = this.database.intern(`f:${field.name}`);
        const keys = indexKeysOf(field, object.values[field.name]);
        if (keys.length === 0) rows.push([c, f, -Infinity]);
        for (const key of keys) rows.push([c, f, ixKey(key)]);
      }
    }
    return { classKeys, rows };
  }

  /** The keys of the classes the object `n` is stored as a member of. */
  private classKeysOf(n: number): number[] {
    return this.database.statement('SELECT c FROM cls WHERE n = ?').pluck().all(n) as number[];
  }

  private putSearchText(n: number, text: string, replace: boolean): void {
    this.searchCompaction.noteChange();
    if (replace) this.database.statement('DELETE FROM search WHERE rowid = ?').run(n);
    if (text !== '') this.database.statement('INSERT INTO search (rowid, text) VALUES (?, ?)').run(n, text);
  }
}
