/**
 * Writes sent with an `Idempotency-Key` (docs/data-api.md, "Idempotent creates"): the record of
 * the answer, which the write's unit of work stores with its batch, so that the write and its
 * record commit together (port: `IdempotencyRecords` in `@odp/core`).
 */
import type { IdempotencyRecord, IdempotencyScope } from '@odp/core';
import type { WrittenObject } from './writes.js';

/** The key a request was sent with, the digest of the request, and how long the key is kept. */
export interface IdempotencyKeyUse {
  readonly scope: IdempotencyScope;
  readonly fingerprint: string;
  readonly ttlSeconds: number;
  /**
   * Whether the answer carries the written object (`Prefer: return=representation`), which the
   * caller renders after the write and stores with `IdempotencyRecords.complete`.
   */
  readonly withBody: boolean;
}

/** What the record of a write's answer holds besides its key, from the write's result. */
export type RecordedAnswer = Pick<IdempotencyRecord, 'state' | 'response' | 'objectId'>;

/** A write sent with a key: the key and how the answer follows from the write's result. */
export interface KeyedWrite<T> {
  readonly key: IdempotencyKeyUse;
  answer(result: T): RecordedAnswer;
}

/** The record a keyed write stores with its batch, written at `at` (ISO). */
export function idempotencyRecord<T>(keyed: KeyedWrite<T>, result: T, at: string): IdempotencyRecord {
  const { scope, fingerprint, ttlSeconds } = keyed.key;
  return {
    ...scope,
    fingerprint,
    ...keyed.answer(result),
    createdAt: at,
    expiresAt: new Date(Date.parse(at) + ttlSeconds * 1000).toISOString(),
  };
}

/**
 * A keyed create (or create related): answered 201 with the new object's `Location` (`href`), and
 * with its body when the request asked for it, which the caller stores once rendered.
 */
export function keyedCreate(
  key: IdempotencyKeyUse,
  href: (object: WrittenObject) => string,
): KeyedWrite<WrittenObject> {
  return {
    key,
    answer: (object) => ({
      state: key.withBody ? 'awaiting-body' : 'complete',
      response: { status: 201, location: href(object) },
      objectId: object.id,
    }),
  };
}

/** A keyed batch: answered 200 with the body `body` makes of the written objects. */
export function keyedBatch<T>(key: IdempotencyKeyUse, body: (written: T) => unknown): KeyedWrite<T> {
  return {
    key,
    answer: (written) => ({ state: 'complete', response: { status: 200, body: body(written) } }),
  };
}
