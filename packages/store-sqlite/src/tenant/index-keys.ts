/** The typed value index keys of `@odp/core`, as the rows of the `ix` table hold them. */
import { foldCase } from '@odp/core';
import type { IndexKey } from '@odp/core';

export { fromIndexKey, indexKey, indexKeysOf, indexSignature, indexedField, indexedFields } from '@odp/core';
export type { IndexKey } from '@odp/core';

const ASCII = /^[\x00-\x7f]*$/;

/**
 * A key as the `ix` table holds it (stored values and filter operands alike). `ix.v` compares with
 * NOCASE, which folds ASCII letters only; so text with any other character is held case-folded
 * (`foldCase`) and ASCII text as it is, and every comparison of `v` (equality, prefix ranges,
 * sorts, unique checks) is Unicode case-insensitive while using the same index as before. ASCII
 * keys, the common case, are written exactly as they were.
 */
export function ixKey(key: IndexKey): IndexKey {
  return typeof key === 'string' && !ASCII.test(key) ? foldCase(key) : key;
}

/**
 * The SQL function `odp_fold(text)`, registered on every tenant connection: `foldCase` for text
 * with a non-ASCII character, the text itself otherwise (compare with NOCASE). Used where text is
 * compared that the value index does not hold: the names of linked objects.
 */
export const FOLD_FUNCTION = 'odp_fold';

export function foldForNocase(text: unknown): unknown {
  return typeof text === 'string' ? ixKey(text) : text;
}
