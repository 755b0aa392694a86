/**
 * The SQL fragments the tenant query compilers (selection.ts, filters.ts, access.ts, sort.ts) build
 * and share: a predicate is an SQL condition on one object key `n`; a query walks one *driver*
 * (an index range that yields candidate keys) and checks the remaining conditions per key with
 * indexed probes (docs/storage.md).
 */
import type { RelationRef } from '@odp/core';
import { FOLD_FUNCTION } from '../index-keys.js';
import type { IndexKey } from '../index-keys.js';

export interface Sql {
  readonly text: string;
  readonly params: readonly unknown[];
}

/** A predicate on the object key expression `n`. */
export type Condition = (n: string) => Sql;

/** An index range that can drive a query, and the conditions it makes redundant. */
export interface Driver {
  readonly from: string;
  readonly where: Sql;
  /** The object key expression of a driver row. */
  readonly n: string;
  /** Indexes into the selection's conditions that every driver row satisfies. */
  readonly covers: readonly number[];
  /** Whether rows come out in ascending `n` (creation) order. */
  readonly orderedByN: boolean;
  /** The field key whose value order (then `n`) the rows come out in, for ranges of the value index. */
  readonly sortedField?: number;
  /** The column holding `sortedField`'s value in a driver row: `d.v` (a value index range) unless set. */
  readonly sortedValue?: string;
  /** For the range of one value of a single-valued field: the field key and the value's index key. */
  readonly equals?: { readonly field: number; readonly key: IndexKey };
  /**
   * For a driver whose range holds an object more than once (`where` then keeps one row per object):
   * the range without that condition, for a query that selects DISTINCT keys (cheaper than the
   * per-row check when the query sorts its rows anyway).
   */
  readonly repeating?: { readonly where: Sql };
}

export interface CompiledSelection {
  readonly conditions: readonly Condition[];
  /** The class membership driver (always usable; covers condition 0). */
  readonly classDriver: Driver;
  /** Drivers from filters and the related anchor, to be measured. */
  readonly candidates: readonly Driver[];
  /** False when the selection is empty by construction (unknown class, anchor or relation). */
  readonly satisfiable: boolean;
}

/** What the compiler needs to know about the database: interned keys and object keys. */
export interface KeyLookup {
  /** The interned key of a name (`c:`/`f:`/`r:` prefixed), or null when it was never stored. */
  key(name: string): number | null;
  /** The internal key of an object id, or null when no such object is stored. */
  objectKey(id: string): number | null;
}

export const FALSE: Condition = () => ({ text: '0', params: [] });
/**
 * The index key of an empty field: -Infinity, below every number and string, so empty values sort
 * first ascending (last descending). Primary-key columns of a WITHOUT ROWID table cannot be NULL.
 */
export const EMPTY_KEY = '-9e999';
/** The greatest code point: `prefix <= v < prefix + MAX_CHAR` is the prefix range of `prefix`. */
export const MAX_CHAR = '\u{10FFFF}';

/**
 * An object name (`objects.name`, shown as it was written) as text compares: like an `ix` key
 * (`ixKey`), ASCII names as they are, others through `odp_fold`, with NOCASE. The length test
 * (characters against bytes) keeps the function call off ASCII names.
 */
export function comparableName(column: string): string {
  return `(CASE WHEN length(${column}) = length(CAST(${column} AS BLOB)) THEN ${column} ELSE ${FOLD_FUNCTION}(${column}) END) COLLATE NOCASE`;
}

/**
 * `column` among `values`: `column = ?` for one value, else `column IN` the values bound as one
 * JSON array (any number, one statement). Most reads of a write or of one object ask for one key,
 * and the equality costs less than half of the lookup through `json_each` (1.4 against 3.4 us).
 */
export function amongValues(column: string, values: readonly (string | number)[]): Sql {
  return values.length === 1
    ? { text: `${column} = ?`, params: values }
    : { text: `${column} IN (SELECT value FROM json_each(?))`, params: [JSON.stringify(values)] };
}

/**
 * `LIMIT n` with the count written into the statement's text instead of bound. SQLite (3.49) plans
 * a statement for the value bound to its LIMIT and marks it expired whenever that parameter is
 * bound again, so a cached statement with `LIMIT ?` is parsed and planned anew on every run (a
 * page's key query: 7 us more alone, 50-70 us instead of 18-22 in an api process). Counts take
 * few values (a page's size plus one, a batch size), each its own cached statement; a list's walk
 * is bounded by the count of a filter's range, so it has one per count met, each prepared once
 * where it was prepared on every run. An OFFSET bound as a parameter does not expire its
 * statement and stays bound.
 */
export function limitClause(count: number): string {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`Not a row count: ${count}`);
  return `LIMIT ${count}`;
}

export function joined(left: Sql, operator: 'AND' | 'OR', right: Sql): Sql {
  return { text: `(${left.text} ${operator} ${right.text})`, params: [...left.params, ...right.params] };
}

export function negated(condition: Sql): Sql {
  return { text: `NOT ${condition.text}`, params: condition.params };
}

/** Column names of a link row seen from one end of a relation. */
export interface LinkSide {
  /** The column holding the object the relation is seen from. */
  readonly anchor: 'src' | 'dst';
  /** The column holding the objects on the other end. */
  readonly other: 'src' | 'dst';
}

/**
 * The link columns of a relation seen from one object (a filtered object, or a related list's
 * anchor): along a forward side that object is the link's source, along an inverse side its target.
 */
export function linkSide(relation: RelationRef): LinkSide {
  return relation.direction === 'forward' ? { anchor: 'src', other: 'dst' } : { anchor: 'dst', other: 'src' };
}

/** `WHERE` of a query over `driver`: its own range plus every condition it does not cover. */
export function whereClause(selection: CompiledSelection, driver: Driver): Sql {
  const parts: Sql[] = [driver.where];
  selection.conditions.forEach((condition, index) => {
    if (!driver.covers.includes(index)) parts.push(condition(driver.n));
  });
  return { text: parts.map((part) => part.text).join(' AND '), params: parts.flatMap((part) => part.params) };
}
