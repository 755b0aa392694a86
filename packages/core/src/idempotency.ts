/**
 * The idempotency records of one tenant (a sub-port of the tenant store): what a create, create
 * related or batch sent with an `Idempotency-Key` answered, so that a retry with the same key gets
 * the same answer instead of a second write (docs/data-api.md, "Idempotent creates").
 *
 * A record is stored by the very write it describes (`WriteBatch.idempotency`), in the same store
 * write: a committed create always has its record and a refused one never has. Keys are scoped by
 * account (and, the store being the tenant's, by tenant); a record lives until `expiresAt`.
 */

/** Whose key it is: the account (`system` or `profile:<id>`) and the key it sent. */
export interface IdempotencyScope {
  readonly accountId: string;
  readonly key: string;
}

/** The answer a keyed request got: what a retry with the same key and body is answered. */
export interface IdempotentResponse {
  readonly status: number;
  readonly location?: string;
  /** The JSON body, when the answer had one and it is stored (state `complete`). */
  readonly body?: unknown;
}

export interface IdempotencyRecord extends IdempotencyScope {
  /** A digest of the request (method, path and body): the same key with another one is refused. */
  readonly fingerprint: string;
  /**
   * `complete`: `response` is the whole answer. `awaiting-body`: the answer has a body (the object
   * at `response.location`, as Get one renders it) that the request stores with `complete` once it
   * has rendered it after the write; until then a retry renders the object itself.
   */
  readonly state: 'complete' | 'awaiting-body';
  readonly response: IdempotentResponse;
  /** The object the response names (a create), when there is one. */
  readonly objectId?: string;
  readonly createdAt: string;
  readonly expiresAt: string;
}

export interface IdempotencyRecords {
  /** The record of `scope` unless it expired at `now` (ISO), or null. */
  find(scope: IdempotencyScope, now: string): Promise<IdempotencyRecord | null>;
  /** Stores the body of an `awaiting-body` record and marks it complete; a missing record is ignored. */
  complete(scope: IdempotencyScope, body: unknown): Promise<void>;
  /** Deletes the records expired at `now` (ISO); resolves how many. */
  purgeExpired(now: string): Promise<number>;
}

/** The part of the tenant store that holds its idempotency records. */
export interface TenantIdempotency {
  readonly idempotency: IdempotencyRecords;
}
