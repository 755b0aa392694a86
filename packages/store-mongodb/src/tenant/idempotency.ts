/**
 * The tenant's idempotency records (the `IdempotencyRecords` port, `@odp/core` idempotency.ts) in
 * the `idempotency` collection, one document per account and key (`_id`). The batch writer inserts
 * a record with the write it describes: the unique `_id` makes the insert the reservation, so of
 * two writes with one key exactly one stores it. With transactions the insert commits with the
 * batch; without them the batch writer removes the record again when the rest of the batch fails
 * (batch-writer.ts, README.md).
 */
import { IdempotencyKeyTakenError, idempotencyRecordOf } from '@odp/core';
import type { IdempotencyRecord, IdempotencyRecords, IdempotencyScope, IdempotentResponse } from '@odp/core';
import type { Collection } from 'mongodb';
import { isDuplicateKey } from '../server-errors.js';
import type { Session } from './collections.js';

/**
 * A record; `response` is the IdempotentResponse as JSON text (a body's keys may hold `.` or `$`),
 * the times ISO strings (UTC), which compare as text.
 */
export interface IdempotencyDoc {
  /** `JSON.stringify([accountId, key])`. */
  _id: string;
  fingerprint: string;
  state: IdempotencyRecord['state'];
  response: string;
  objectId?: string;
  createdAt: string;
  expiresAt: string;
}

function idOf(scope: IdempotencyScope): string {
  return JSON.stringify([scope.accountId, scope.key]);
}

export class MongoIdempotencyRecords implements IdempotencyRecords {
  constructor(private readonly docs: Collection<IdempotencyDoc>) {}

  /**
   * Stores `record` (in the batch's session, when it has one), replacing an expired record of its
   * key; IdempotencyKeyTakenError when an unexpired one holds the key.
   */
  async insert(record: IdempotencyRecord, session: Session): Promise<void> {
    const _id = idOf(record);
    await this.docs.deleteOne({ _id, expiresAt: { $lte: record.createdAt } }, session);
    try {
      await this.docs.insertOne(
        {
          _id,
          fingerprint: record.fingerprint,
          state: record.state,
          response: JSON.stringify(record.response),
          ...(record.objectId === undefined ? {} : { objectId: record.objectId }),
          createdAt: record.createdAt,
          expiresAt: record.expiresAt,
        },
        session,
      );
    } catch (error) {
      if (isDuplicateKey(error)) throw new IdempotencyKeyTakenError();
      throw error;
    }
  }

  /** Removes the record `insert` stored for a batch that then failed (stores without transactions). */
  async withdraw(record: IdempotencyRecord): Promise<void> {
    await this.docs.deleteOne({ _id: idOf(record), createdAt: record.createdAt });
  }

  async find(scope: IdempotencyScope, now: string): Promise<IdempotencyRecord | null> {
    const doc = await this.docs.findOne({ _id: idOf(scope), expiresAt: { $gt: now } });
    if (doc === null) return null;
    const { _id, ...stored } = doc;
    return idempotencyRecordOf({ ...scope, ...stored });
  }

  async complete(scope: IdempotencyScope, body: unknown): Promise<void> {
    const doc = await this.docs.findOne({ _id: idOf(scope), state: 'awaiting-body' });
    if (doc === null) return;
    const response: IdempotentResponse = { ...(JSON.parse(doc.response) as IdempotentResponse), body };
    await this.docs.updateOne(
      { _id: doc._id, state: 'awaiting-body', createdAt: doc.createdAt },
      { $set: { state: 'complete', response: JSON.stringify(response) } },
    );
  }

  async purgeExpired(now: string): Promise<number> {
    return (await this.docs.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
  }
}
