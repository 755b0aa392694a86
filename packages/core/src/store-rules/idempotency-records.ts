/**
 * The reading of a stored idempotency record, written once for the adapters (the port is in
 * `../idempotency.ts`): each stores the response as JSON text and may store a missing object id as
 * null.
 */
import type { IdempotencyRecord, IdempotentResponse } from '../idempotency.js';

/** A record as an adapter stores it: the response as JSON text, no object id as null or absent. */
export interface StoredIdempotencyRecord extends Omit<IdempotencyRecord, 'response' | 'objectId'> {
  readonly response: string;
  readonly objectId?: string | null;
}

/** The record an adapter read (see {@link StoredIdempotencyRecord}). */
export function idempotencyRecordOf(stored: StoredIdempotencyRecord): IdempotencyRecord {
  const { objectId, response, ...rest } = stored;
  return {
    ...rest,
    response: JSON.parse(response) as IdempotentResponse,
    ...(objectId === null || objectId === undefined ? {} : { objectId }),
  };
}
