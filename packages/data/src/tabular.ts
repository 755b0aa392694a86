/**
 * The object service's side of spreadsheet export and import (docs/excel.md): the selection of a
 * list read to its end in pages, split into one sheet per BASIC class, and the lookups an import
 * makes to match rows and relation cells to existing objects. Every read goes through the
 * account's access filter, exactly as a list does; writes stay with `ObjectWrites.create`/`patch`.
 */
import { ValidationError } from '@odp/core';
import type {
  AccessFilter,
  Account,
  ClassDef,
  FieldDef,
  IndexKey,
  ListDef,
  ListPlan,
  ListPosition,
  Model,
  RelationEnd,
  StoredObject,
} from '@odp/core';
import { NON_INDEXED_TYPES, foldCase, indexKey, indexKeysOf } from '@odp/core';
import { parseListQuery } from '@odp/query-engine';
import type { RelatedScope } from '@odp/query-engine';
import { isConcrete } from './classes.js';
import type { DataServiceDeps } from './deps.js';
import type { DataObject, Renderer } from './render.js';

/** Rows read (and rendered) per query while an export walks its selection. */
export const EXPORT_PAGE_SIZE = 100;

/**
 * The key an import's match cell `value` is looked up by in {@link Tabular.idsByValue}: the value as
 * the stores compare a filter operand of `field`'s type (numbers numerically, date-times in UTC,
 * text without case); null when no value of the type can equal it.
 */
export function matchKey(field: FieldDef, value: string): IndexKey | null {
  const key = indexKey(field.type, value);
  return key === null ? null : comparable(key);
}

/** An index key as text filters compare it: text without case, other keys as they are. */
function comparable(key: IndexKey): IndexKey {
  return typeof key === 'string' ? foldCase(key) : key;
}

/** The columns of one sheet: visible value fields, then the settable (forward) relations. */
export interface SheetColumns {
  readonly fields: readonly FieldDef[];
  readonly relations: readonly RelationEnd[];
}

/** One sheet of an export: the objects of one BASIC class in the list's order, rendered page by page. */
export interface ExportSheet {
  readonly cls: ClassDef;
  readonly columns: SheetColumns;
  /** The list of a LIST field (its keys and labels). */
  listOf(field: FieldDef): ListDef | undefined;
  pages(): AsyncGenerator<DataObject[]>;
}

/** What an import needs to know of its target class. */
export interface ImportTarget {
  readonly cls: ClassDef;
  readonly columns: SheetColumns;
  /** The list of a LIST field (its keys and labels). */
  listOf(field: FieldDef): ListDef | undefined;
}

/** The columns of a class: fields a reader sees (not hidden, not SECRET) and forward relations. */
export function sheetColumns(cls: ClassDef): SheetColumns {
  return {
    fields: [...cls.fields.values()].filter((field) => !field.hidden && field.type !== 'SECRET'),
    relations: [...cls.relations.values()].filter((end) => end.direction === 'forward'),
  };
}

/**
 * The rows of `selection` to its end, `selection.size` at a time, by keyset paging: each page
 * starts right after the previous page's last row (`after`), so reading page k costs one seek on
 * the order's index instead of skipping k pages, and rows created or deleted meanwhile never shift
 * a row into a second page or out of the walk.
 */
async function* walk(
  deps: DataServiceDeps,
  selection: ListPlan,
  access: AccessFilter,
): AsyncGenerator<readonly StoredObject[]> {
  let after: ListPosition | undefined;
  for (;;) {
    const { rows, positions } = await deps.store.page(
      after === undefined ? selection : { ...selection, after },
      access,
    );
    const page = rows.slice(0, selection.size);
    if (page.length > 0) yield page;
    after = positions[page.length - 1];
    if (rows.length <= selection.size || after === undefined) return;
  }
}

export class Tabular {
  constructor(
    private readonly deps: DataServiceDeps,
    private readonly renderer: Renderer,
  ) {}

  private get model(): Model {
    return this.deps.model;
  }

  /**
   * The sheets of an export of `cls` under the list parameters `params` (filters and sort; `page`
   * and `size` are ignored: an export holds the whole selection). One sheet per concrete class
   * among `cls` and its subclasses, each with that class's columns, in the list's order; objects
   * that gained `cls` through a role class while their BASIC class is none of these come last, in a
   * sheet of `cls` itself. Pages are read lazily, so a sheet never holds more than one page.
   */
  sheets(account: Account, cls: ClassDef, params: URLSearchParams, scope?: RelatedScope): ExportSheet[] {
    const plan = parseListQuery(this.model, cls.name, params, scope);
    const concrete = cls.descendants
      .map((name) => this.model.classes.get(name))
      .filter((sub): sub is ClassDef => sub !== undefined && isConcrete(sub));
    const basics = new Set(concrete.map((sub) => sub.name));
    const sheets = concrete.map((sub) =>
      this.sheet(account, sub, plan, sub.name, (object) => object.basicClass === sub.name),
    );
    const gained = cls.descendants.some((name) => this.model.classes.get(name)?.attachableTo);
    if (gained) {
      sheets.push(this.sheet(account, cls, plan, cls.name, (object) => !basics.has(object.basicClass)));
    }
    return sheets;
  }

  private sheet(
    account: Account,
    cls: ClassDef,
    plan: ListPlan,
    hasClass: string,
    keep: (object: StoredObject) => boolean,
  ): ExportSheet {
    const { deps, renderer } = this;
    const { sort, filters, className, related } = plan;
    return {
      cls,
      columns: sheetColumns(cls),
      listOf: (field) => this.listOf(field),
      async *pages() {
        const access = await deps.access.accessFilter(account);
        const selection: ListPlan = {
          className,
          ...(related ? { related } : {}),
          ...(sort ? { sort } : {}),
          filters: [...filters, { kind: 'hasClasses', classes: [hasClass] }],
          page: 0,
          size: EXPORT_PAGE_SIZE,
        };
        for await (const rows of walk(deps, selection, access)) {
          const page = rows.filter(keep);
          if (page.length > 0) yield await renderer.render(page, deps.store, access);
        }
      },
    };
  }

  target(cls: ClassDef): ImportTarget {
    return {
      cls,
      columns: sheetColumns(cls),
      listOf: (field) => this.listOf(field),
    };
  }

  private listOf(field: FieldDef): ListDef | undefined {
    return field.list ? this.model.lists.get(field.list) : undefined;
  }

  /**
   * The ids of the objects of `className` the account may read, by lower-cased name (the class's
   * name formula), read in pages. Relation cells of an import are matched against it.
   */
  idsByName(account: Account, className: string): Promise<Map<string, string[]>> {
    return this.idsByKeys(account, className, (row) =>
      row.name === null ? [] : [row.name.trim().toLowerCase()],
    );
  }

  /**
   * Checks that `field` of `cls` can identify objects (an indexed value field that is not hidden):
   * ValidationError naming it otherwise. The store ignores filters on other fields, which would
   * make every object match.
   */
  assertMatchField(cls: ClassDef, fieldName: string): FieldDef {
    const field = cls.fields.get(fieldName);
    if (
      !field ||
      field.hidden ||
      field.multiple ||
      NON_INDEXED_TYPES.has(field.type) ||
      field.type === 'FILE' ||
      field.type === 'IMAGE'
    ) {
      throw new ValidationError(`matchBy ${fieldName} is not an indexed field of ${cls.plural}.`, [
        { field: 'matchBy', message: `${fieldName} is not an indexed, single-valued field of ${cls.plural}` },
      ]);
    }
    return field;
  }

  /**
   * The ids of the readable objects of `cls` (subclasses included) by the {@link matchKey} of their
   * `field` value, read once in pages: an update or upsert import matches its rows against it
   * instead of querying the store once per row (on a document server, a query per row was most of
   * an import's time).
   */
  idsByValue(account: Account, cls: ClassDef, field: FieldDef): Promise<Map<IndexKey, string[]>> {
    return this.idsByKeys(account, cls.name, (row) =>
      indexKeysOf(field, row.values[field.name]).map(comparable),
    );
  }

  /** The ids of the objects of `className` the account may read, grouped by each key `keysOf` gives. */
  private async idsByKeys<K>(
    account: Account,
    className: string,
    keysOf: (row: StoredObject) => readonly K[],
  ): Promise<Map<K, string[]>> {
    const access = await this.deps.access.accessFilter(account);
    const byKey = new Map<K, string[]>();
    const selection: ListPlan = { className, filters: [], page: 0, size: EXPORT_PAGE_SIZE };
    for await (const rows of walk(this.deps, selection, access)) {
      for (const row of rows) {
        for (const key of keysOf(row)) {
          const ids = byKey.get(key);
          if (ids) ids.push(row.id);
          else byKey.set(key, [row.id]);
        }
      }
    }
    return byKey;
  }
}
