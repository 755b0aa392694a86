/** The typed value index keys of `@odp/core`, as the rows of the `ix` table hold them. */
export { fromIndexKey, indexKey, indexKeysOf, indexSignature, indexedField, indexedFields } from '@odp/core';
export type { IndexKey } from '@odp/core';
