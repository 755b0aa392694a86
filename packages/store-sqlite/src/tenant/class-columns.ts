/**
 * The per-class value tables of the tenant store: for each class, one row per member object
 * (`cv<c>_<shape>`, keyed by the object key `n`) holding every single-valued indexed field of the class as a
 * column `f<f>` (the field's index key as `ix` holds it, EMPTY_KEY (-Infinity) when empty), with a composite
 * index per (equality field, sort field) pair the layout rule picks. A list filtered on an
 * equality field and sorted by another field walks that index in order, so its page at any page
 * number costs an index range read (no probe per skipped row). The generic value index `ix` still
 * serves every other filter, sort, distinct value and aggregate. See docs/storage.md.
 *
 * The tables are derived data, named for their columns (`cv<c>_<shape>`): brought to the model's
 * layout when a rebuild starts (the rebuild re-derives their rows), and read only while the stored
 * derived data is current for the model and layout.
 */
import { createHash } from 'node:crypto';
import type { FieldDef, Model, StoredObject } from '@odp/core';
import type { AppliedModel } from './applied-model.js';
import type { TenantDatabase } from './database.js';
import { indexKeysOf, indexedFields, ixKey } from './index-keys.js';
import type { IndexKey } from './index-keys.js';
import type { Driver, Sql } from './query/sql.js';

/**
 * Field types whose values split a class into a few large groups (an enumeration, a flag): a filter
 * on one selects a share of the class too large to sort, so a composite index serves its sorted
 * pages. Other types (numbers, text, dates) are selective enough for their own `ix` range.
 */
const EQUALITY_TYPES: ReadonlySet<string> = new Set(['LIST', 'BOOLEAN']);

/** The value table of one class. */
export interface ClassLayout {
  readonly table: string;
  /** The single-valued indexed fields, each with its column. */
  readonly columns: readonly { readonly field: FieldDef; readonly column: string }[];
  /** `${equality field key}:${sort field key}` of the composite indexes. */
  readonly composites: ReadonlySet<string>;
}

/** The layout of the stored tables, changed only by a rebuild; part of the derived-data signature. */
export function classColumnsTag(compositeLimit: number): string {
  return `classColumns-1:${compositeLimit}`;
}

export class ClassColumns {
  private readonly layouts = new WeakMap<Model, Map<number, ClassLayout>>();

  constructor(
    private readonly database: TenantDatabase,
    private readonly model: AppliedModel,
    /** Composite indexes per class at most (each costs an index entry per write of a member). */
    private readonly compositeLimit: number,
  ) {}

  /**
   * Brings the class value tables to the current model's layout, inside the transaction that
   * starts a rebuild (which then re-derives every object's rows): a table named for its columns is
   * kept when the layout still has it (another process rebuilding for the same model at the same
   * time keeps the rows it wrote), created when missing; tables and composite indexes the layout no
   * longer has are dropped. Interns the names it needs.
   */
  prepareTables(): void {
    for (const classDef of this.model.current.classes.values()) {
      this.database.intern(`c:${classDef.name}`);
      for (const field of singleValued(indexedFields(classDef))) this.database.intern(`f:${field.name}`);
    }
    const layouts = [...this.current().values()];
    const tables = new Set(layouts.map((layout) => layout.table));
    const indexes = new Set(
      layouts.flatMap((layout) => [...layout.composites].map((pair) => compositeIndexName(layout, pair))),
    );
    const db = this.database.db;
    const stored = db
      .prepare(
        "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'index') AND name GLOB 'cv[0-9]*'",
      )
      .all() as { type: 'table' | 'index'; name: string }[];
    for (const { type, name } of stored) {
      if (type === 'table' && !tables.has(name)) db.exec(`DROP TABLE ${name}`);
    }
    for (const { type, name } of stored) {
      if (type === 'index' && !indexes.has(name) && tables.has(name.split('_').slice(0, 2).join('_'))) {
        db.exec(`DROP INDEX ${name}`);
      }
    }
    for (const layout of layouts) {
      const columns = layout.columns.map(({ column }) => `${column} COLLATE NOCASE NOT NULL`);
      db.exec(`CREATE TABLE IF NOT EXISTS ${layout.table} (n INTEGER PRIMARY KEY, ${columns.join(', ')})`);
      for (const pair of layout.composites) {
        const [equality, sort] = pair.split(':');
        db.exec(
          `CREATE INDEX IF NOT EXISTS ${compositeIndexName(layout, pair)} ON ${layout.table} (f${equality}, f${sort})`,
        );
      }
    }
  }

  /**
   * Writes the object's row in the table of each of its classes: inserted when missing (always for
   * an object `isNew`, stored for the first time), else only the columns whose value changed are
   * updated (an unchanged row is not written, and an index over unchanged columns is left alone).
   */
  put(object: StoredObject, n: number, isNew: boolean): void {
    const layouts = this.current();
    for (const className of new Set(object.classes)) {
      const c = this.database.lookupKey(`c:${className}`);
      const layout = c === null ? undefined : layouts.get(c);
      if (layout === undefined) continue;
      const names = layout.columns.map(({ column }) => column);
      const values = layout.columns.map(({ field }) => {
        const key: IndexKey | undefined = indexKeysOf(field, object.values[field.name])[0];
        return key === undefined ? -Infinity : ixKey(key);
      });
      const stored = isNew
        ? undefined
        : (this.database
            .statement(`SELECT ${names.join(', ')} FROM ${layout.table} WHERE n = ?`)
            .raw(true)
            .get(n) as IndexKey[] | undefined);
      if (stored === undefined) {
        this.database
          .statement(
            `INSERT INTO ${layout.table} (n, ${names.join(', ')}) VALUES (?, ${names.map(() => '?').join(', ')})`,
          )
          .run(n, ...values);
        continue;
      }
      const changed = names.flatMap((name, index) => (stored[index] === values[index] ? [] : [index]));
      if (changed.length === 0) continue;
      this.database
        .statement(
          `UPDATE ${layout.table} SET ${changed.map((index) => `${names[index]} = ?`).join(', ')} WHERE n = ?`,
        )
        .run(...changed.map((index) => values[index]), n);
    }
  }

  /** Removes the object's rows from the tables of the class keys `classKeys` (its classes before). */
  remove(n: number, classKeys: readonly number[]): void {
    const layouts = this.current();
    for (const c of classKeys) {
      const layout = layouts.get(c);
      if (layout !== undefined) this.database.statement(`DELETE FROM ${layout.table} WHERE n = ?`).run(n);
    }
  }

  /**
   * A driver over the composite index of (`equality`'s field, `sortField`) of class `c`: the rows of
   * the class with `equality`'s value, in the sort field's order (then `n`), covering what
   * `equality` covers. Undefined when the layout has no such index or the tables are not current.
   */
  sortedEqualityDriver(c: number, equality: Driver, sortField: number): Driver | undefined {
    if (equality.equals === undefined) return undefined;
    const layout = this.current().get(c);
    const pair = `${equality.equals.field}:${sortField}`;
    if (layout === undefined || !layout.composites.has(pair) || !this.model.derivedCurrent())
      return undefined;
    return {
      from: `${layout.table} d`,
      where: { text: `d.f${equality.equals.field} = ?`, params: [equality.equals.key] },
      n: 'd.n',
      covers: equality.covers,
      orderedByN: false,
      sortedField: sortField,
      sortedValue: `d.f${sortField}`,
    };
  }

  /**
   * The value of the single-valued field `f` of class `c`'s members, as the `ix` row of `(c, f)`
   * holds it (its index key, EMPTY_KEY when empty), read from the class value table by the object
   * key: a rowid lookup in a narrow table instead of a probe of `ix (n, f, c)`. Undefined when the
   * layout has no such column or the tables are not current.
   */
  valueOf(c: number, f: number): ((n: string) => Sql) | undefined {
    const layout = this.current().get(c);
    const column = layout?.columns.find(({ column }) => column === `f${f}`);
    if (layout === undefined || column === undefined || !this.model.derivedCurrent()) return undefined;
    return (n) => ({
      text: `(SELECT t.${column.column} FROM ${layout.table} t WHERE t.n = ${n})`,
      params: [],
    });
  }

  /** The layouts of the current model's classes by class key (classes with no key yet left out). */
  private current(): Map<number, ClassLayout> {
    const model = this.model.current;
    const known = this.layouts.get(model);
    if (known !== undefined) return known;
    const layouts = new Map<number, ClassLayout>();
    let complete = true;
    for (const classDef of model.classes.values()) {
      const c = this.database.lookupKey(`c:${classDef.name}`);
      const fields = singleValued(indexedFields(classDef));
      const keyed = fields.map((field) => ({ field, key: this.database.lookupKey(`f:${field.name}`) }));
      if (c === null || keyed.some(({ key }) => key === null)) {
        complete = false;
        continue;
      }
      if (fields.length === 0) continue;
      const columns = keyed.map(({ field, key }) => ({ field, column: `f${key}` }));
      const shape = createHash('sha256')
        .update(columns.map(({ column }) => column).join(','))
        .digest('hex')
        .slice(0, 8);
      layouts.set(c, {
        table: `cv${c}_${shape}`,
        columns,
        composites: this.compositesOf(keyed as { field: FieldDef; key: number }[]),
      });
    }
    // Keys interned later (the next rebuild) complete the layout: remembered only when complete.
    if (complete) this.layouts.set(model, layouts);
    return layouts;
  }

  /**
   * The layout rule: each equality field (LIST, BOOLEAN) paired with each other field, the sort
   * fields ranked unique first (natural keys: numbers, codes), then required, then the rest, by
   * name; taken rank by rank across the equality fields, at most `compositeLimit` pairs.
   */
  private compositesOf(keyed: readonly { field: FieldDef; key: number }[]): Set<string> {
    const equality = keyed.filter(({ field }) => EQUALITY_TYPES.has(field.type));
    const rank = ({ field }: { field: FieldDef }) => (field.unique ? 0 : field.required ? 1 : 2);
    const sorts = [...keyed].sort((a, b) => rank(a) - rank(b) || (a.field.name < b.field.name ? -1 : 1));
    const pairs = new Set<string>();
    for (const sort of sorts) {
      for (const eq of equality) {
        if (pairs.size >= this.compositeLimit) return pairs;
        if (eq.key !== sort.key) pairs.add(`${eq.key}:${sort.key}`);
      }
    }
    return pairs;
  }
}

/** `cv<c>_<shape>_<equality field key>_<sort field key>`. */
function compositeIndexName(layout: ClassLayout, pair: string): string {
  return `${layout.table}_${pair.replace(':', '_')}`;
}

function singleValued(fields: readonly FieldDef[]): FieldDef[] {
  return fields.filter((field) => !field.multiple);
}
