/**
 * Orders computed here rather than by the server: a selection keyed by a value that depends on the
 * reader (hidden values sort as empty) or lives on other documents (relation names), the keys'
 * order (numbers before text, folded text), the seek past a position, and the order of buckets.
 */
import type { DistinctPlan, IndexKey, ListPosition } from '@odp/core';
import type { Document } from 'mongodb';
import type { ObjectFilter } from './query.js';
import { compareText, fold } from './documents.js';

/** An object of a selection ordered here, with its creation sequence and sort key (null: none). */
export interface Keyed<K> {
  readonly id: string;
  readonly seq: number;
  readonly key: K | null;
}

/**
 * Where `a` stands relative to `b` in the list order: objects without a key first ascending (last
 * descending), then by key, ties by creation order in the sort's direction.
 */
export function compareKeyed<K>(
  a: Pick<Keyed<K>, 'seq' | 'key'>,
  b: Pick<Keyed<K>, 'seq' | 'key'>,
  direction: 'asc' | 'desc',
  compare: (a: K, b: K) => number,
): number {
  const sign = direction === 'asc' ? 1 : -1;
  if (a.key === null || b.key === null) {
    if (a.key !== b.key) return a.key === null ? -sign : sign;
  } else {
    const byKey = compare(a.key, b.key);
    if (byKey !== 0) return sign * byKey;
  }
  return sign * (a.seq - b.seq);
}

/** The entries in the list order (see {@link compareKeyed}). */
export function orderKeyed<K>(
  keyed: readonly Keyed<K>[],
  direction: 'asc' | 'desc',
  compare: (a: K, b: K) => number,
): Keyed<K>[] {
  return [...keyed].sort((a, b) => compareKeyed(a, b, direction, compare));
}

/**
 * The sort key of a document's field keys as the server orders arrays: the smallest ascending, the
 * largest descending; null when the field has no value.
 */
export function sortKeyOf(keys: readonly IndexKey[] | undefined, direction: 'asc' | 'desc'): IndexKey | null {
  if (keys === undefined || keys.length === 0) return null;
  const sorted = [...keys].sort(compareKeys);
  return (direction === 'asc' ? sorted[0] : sorted.at(-1)) ?? null;
}

/**
 * The documents after `position` in the order `{[path]: direction, seq: direction}` (keyset paging).
 * A row's key is its smallest value ascending, its largest descending; a document without the field
 * comes first ascending, last descending. On a single-valued field ascending, the key bound is a
 * plain range of the field's index, `(path, seq)`; the ties at the boundary are excluded by `$nor`.
 */
export function seekCondition(
  path: string,
  multiple: boolean,
  direction: 'asc' | 'desc',
  position: ListPosition,
): ObjectFilter {
  // Built as plain documents: the driver's filter type cannot follow a computed `x_` key.
  const missing: Document = { [path]: { $exists: false } };
  const asc = direction === 'asc';
  if (position.key === null) {
    const seek: Document = asc
      ? { $nor: [{ ...missing, seq: { $lte: position.seq } }] }
      : { ...missing, seq: { $lt: position.seq } };
    return seek as ObjectFilter;
  }
  const key = position.key;
  const tiesUpTo = { [path]: key, seq: asc ? { $lte: position.seq } : { $gte: position.seq } };
  // Descending (largest value <= key, or none) and multi-valued ascending (smallest value >= key):
  // no value of the document lies beyond the key on the wrong side.
  const keyBound: Document = !asc
    ? { [path]: { $not: { $gt: key } } }
    : multiple
      ? { $and: [{ [path]: { $exists: true } }, { [path]: { $not: { $lt: key } } }] }
      : { [path]: { $gte: key } };
  const seek: Document = { $and: [keyBound, { $nor: [tiesUpTo] }] };
  return seek as ObjectFilter;
}

/** Numbers before strings; numbers numerically, strings in binary order. */
export function compareKeys(a: IndexKey, b: IndexKey): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return compareText(a, b);
}

/** Null last; others case-insensitively, then as they are. */
export function compareNullableText(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return compareText(fold(a), fold(b)) || compareText(a, b);
}

/** Buckets in the plan's order: by `byValue`, or by count (ascending or descending) then `byValue`. */
export function orderBuckets<T extends { count: number }>(
  buckets: T[],
  order: DistinctPlan['order'],
  byValue: (a: T, b: T) => number,
): T[] {
  const sign = order === 'countDesc' ? -1 : 1;
  return [...buckets].sort((a, b) => (order === 'value' ? 0 : sign * (a.count - b.count)) || byValue(a, b));
}
