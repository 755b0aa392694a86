/**
 * The tenant's idempotency records (the `IdempotencyRecords` port, `@odp/core` idempotency.ts) in
 * the `idempotency` table, one row per account and key. A record is inserted by the batch writer
 * inside the transaction of the write it describes, before anything else of the batch: the
 * primary key makes the insert the reservation, so of two writes with one key exactly one commits.
 */
import { IdempotencyKeyTakenError, idempotencyRecordOf } from '@odp/core';
import type {
  IdempotencyRecord,
  IdempotencyRecords,
  IdempotencyScope,
  StoredIdempotencyRecord,
} from '@odp/core';
import type { TenantDatabase } from './database.js';

export class SqliteIdempotencyRecords implements IdempotencyRecords {
  constructor(private readonly database: TenantDatabase) {}

  /**
   * Stores `record` inside the caller's transaction, replacing an expired record of its key;
   * IdempotencyKeyTakenError when an unexpired one holds the key (the transaction then rolls back).
   */
  insert(record: IdempotencyRecord): void {
    this.database
      .statement('DELETE FROM idempotency WHERE account = ? AND key = ? AND expires <= ?')
      .run(record.accountId, record.key, record.createdAt);
    const inserted = this.database
      .statement(
        `INSERT INTO idempotency (account, key, fingerprint, state, response, object_id, created, expires)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      )
      .run(
        record.accountId,
        record.key,
        record.fingerprint,
        record.state,
        JSON.stringify(record.response),
        record.objectId ?? null,
        record.createdAt,
        record.expiresAt,
      );
    if (inserted.changes === 0) throw new IdempotencyKeyTakenError();
  }

  async find(scope: IdempotencyScope, now: string): Promise<IdempotencyRecord | null> {
    const row = this.database
      .statement(
        `SELECT account AS accountId, key, fingerprint, state, response, object_id AS objectId,
                created AS createdAt, expires AS expiresAt
         FROM idempotency WHERE account = ? AND key = ? AND expires > ?`,
      )
      .get(scope.accountId, scope.key, now) as StoredIdempotencyRecord | undefined;
    return row === undefined ? null : idempotencyRecordOf(row);
  }

  async complete(scope: IdempotencyScope, body: unknown): Promise<void> {
    this.database
      .statement(
        `UPDATE idempotency SET state = 'complete', response = json_set(response, '$.body', json(?))
         WHERE account = ? AND key = ? AND state = 'awaiting-body'`,
      )
      .run(JSON.stringify(body), scope.accountId, scope.key);
  }

  async purgeExpired(now: string): Promise<number> {
    return this.database.statement('DELETE FROM idempotency WHERE expires <= ?').run(now).changes;
  }
}
