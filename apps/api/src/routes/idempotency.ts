/**
 * `Idempotency-Key` on the creating POSTs: Create, Create related and the batch (docs/data-api.md,
 * "Idempotent creates"). A request with a key the account used within `ODP_IDEMPOTENCY_TTL_SECONDS`
 * is not run again: the same method, path and body get the first answer (status, `Location`, body
 * when it had one, and `Idempotent-Replayed: true`); another one gets 422.
 *
 * The record of an answer is stored by the write itself, in the same store write
 * (`WriteBatch.idempotency`): there is no reservation before the write, so no crash can leave a
 * created object without its record or a record without its object (on stores with transactions).
 * Two concurrent requests with one key both run their rules; the store takes the record of the
 * first to commit and refuses the other's whole write, which then answers with the first one's
 * record, so a duplicate never waits for a lock and never gets a 409.
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { IdempotencyKeyReusedError, ValidationError } from '@odp/core';
import type { Account, IdempotencyRecord } from '@odp/core';
import type { DataObject, DataResources, IdempotencyKeyUse } from '@odp/data';
import type { Logger } from '@odp/platform';
import { readableObject } from './write-answers.js';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** A key: 1 to 255 visible ASCII characters (a UUID, a ULID, a client's own request id). */
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/** What a keyed write needs besides the request: who writes, where, and how long a key is kept. */
export interface KeyedWriteContext {
  readonly account: Account;
  readonly data: DataResources;
  readonly ttlSeconds: number;
  readonly now: () => Date;
  readonly log: Logger;
}

/** The request's `Idempotency-Key`; undefined without one, 400 for a malformed one. */
function idempotencyKeyOf(req: Request): string | undefined {
  const key = req.get(IDEMPOTENCY_KEY_HEADER);
  if (key === undefined) return undefined;
  if (!KEY_FORMAT.test(key)) {
    throw new ValidationError('Invalid Idempotency-Key.', [
      { field: IDEMPOTENCY_KEY_HEADER, message: 'must be 1 to 255 visible ASCII characters' },
    ]);
  }
  return key;
}

/** Whose keys these are: the system account of the tenant, or one user profile. */
function accountIdOf(account: Account): string {
  return account.kind === 'system' ? 'system' : `profile:${account.profileId}`;
}

/** The JSON value with every object's members in code-unit order: one text per value, whatever the order sent. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  const members = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(members)
      .sort()
      .map((name) => [name, canonical(members[name])]),
  );
}

/** A digest of what the key names: the method, the path with its query, and the body. */
function fingerprintOf(req: Request): string {
  const request = JSON.stringify([req.method, req.originalUrl, canonical(req.body ?? null)]);
  return createHash('sha256').update(request).digest('base64url');
}

/**
 * Runs `write`, which performs the write (passing the key use down to the store write) and answers
 * the request, under the request's `Idempotency-Key`; without one, just runs it. `withBody`: the
 * answer carries the written object (`Prefer: return=representation` on a create).
 */
export async function idempotent(
  req: Request,
  res: Response,
  context: KeyedWriteContext,
  withBody: boolean,
  write: (key: IdempotencyKeyUse | undefined) => Promise<void>,
): Promise<void> {
  const key = idempotencyKeyOf(req);
  if (key === undefined) {
    await write(undefined);
    return;
  }
  const records = context.data.objects.idempotency;
  const scope = { accountId: accountIdOf(context.account), key };
  const fingerprint = fingerprintOf(req);
  const recorded = () => records.find(scope, context.now().toISOString());
  const earlier = await recorded();
  if (earlier !== null) {
    await replay(res, earlier, fingerprint, context);
    return;
  }
  try {
    await write({ scope, fingerprint, ttlSeconds: context.ttlSeconds, withBody });
  } catch (error) {
    // A concurrent request with the same key committed first (and refused this write whole).
    const first = res.headersSent ? null : await recorded();
    if (first === null) throw error;
    await replay(res, first, fingerprint, context);
    return;
  }
  await records
    .purgeExpired(context.now().toISOString())
    .catch((error: unknown) => context.log.error('idempotency purge failed', { error: String(error) }));
}

/**
 * Stores the body a keyed create answered (rendered after its write) in the key's record. The write
 * is committed and answered either way: a failure is logged, and a retry renders the object then.
 */
export async function recordAnswerBody(
  context: KeyedWriteContext,
  key: IdempotencyKeyUse | undefined,
  body: DataObject | null,
): Promise<void> {
  if (key === undefined || body === null) return;
  await context.data.objects.idempotency
    .complete(key.scope, body)
    .catch((error: unknown) =>
      context.log.error('idempotency record not completed', { error: String(error) }),
    );
}

/**
 * Answers a retry with the first request's answer, or 422 when the key named another request. A
 * create whose body was not stored yet (the first request is still rendering it, or its process
 * stopped in between) is answered with the object as Get one renders it now.
 */
async function replay(
  res: Response,
  record: IdempotencyRecord,
  fingerprint: string,
  context: KeyedWriteContext,
): Promise<void> {
  if (record.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
  const { status, location, body } = record.response;
  res.setHeader('Idempotent-Replayed', 'true');
  if (location !== undefined) res.location(location);
  const answer =
    record.state === 'awaiting-body' && record.objectId !== undefined
      ? await readableObject(context.data, context.account, record.objectId)
      : body;
  if (answer === undefined || answer === null) {
    res.status(status).end();
    return;
  }
  if (record.objectId !== undefined) res.setHeader('Preference-Applied', 'return=representation');
  res.status(status).json(answer);
}
