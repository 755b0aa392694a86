/**
 * TenantStore contract: the idempotency records (`IdempotencyRecords`, `WriteBatch.idempotency`).
 * A record is stored by the batch it describes, all or nothing with it; an unexpired record holds
 * its account's key against every other batch (IdempotencyKeyTakenError, nothing applied).
 */
import { IdempotencyKeyTakenError, UNRESTRICTED } from '@odp/core';
import type { IdempotencyRecord } from '@odp/core';
import { storedObject, uuid } from '../fixture.js';
import type { TenantStoreCase } from './case.js';
import { COMPANY } from './data.js';

const CREATED = '2026-01-01T00:00:00.000Z';
const EXPIRES = '2026-01-02T00:00:00.000Z';
const BEFORE_EXPIRY = '2026-01-01T12:00:00.000Z';

function record(overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord {
  return {
    accountId: 'profile:1',
    key: 'key-1',
    fingerprint: 'fingerprint-1',
    state: 'complete',
    response: { status: 201, location: `/data/t/companies/${uuid(90)}` },
    objectId: uuid(90),
    createdAt: CREATED,
    expiresAt: EXPIRES,
    ...overrides,
  };
}

const company = (n: number) => storedObject({ n, basicClass: COMPANY });

export function describeIdempotencyContract({ store }: TenantStoreCase): void {
  describe('idempotency records', () => {
    it('stores a record with its batch and finds it until it expires', async () => {
      await store.write({ put: [company(90)], idempotency: record() });
      expect(await store.idempotency.find({ accountId: 'profile:1', key: 'key-1' }, BEFORE_EXPIRY)).toEqual(
        record(),
      );
      expect(await store.idempotency.find({ accountId: 'profile:1', key: 'key-1' }, EXPIRES)).toBeNull();
      expect(
        await store.idempotency.find({ accountId: 'profile:2', key: 'key-1' }, BEFORE_EXPIRY),
      ).toBeNull();
    });

    it('refuses a whole batch whose key an unexpired record of the account holds', async () => {
      await store.write({ put: [company(90)], idempotency: record() });
      const head = await store.events.head();
      const again = store.write({
        put: [company(91)],
        events: [{ type: 'create', objectId: uuid(91), classes: [COMPANY], at: BEFORE_EXPIRY }],
        idempotency: record({ fingerprint: 'other', createdAt: BEFORE_EXPIRY }),
      });
      await expect(again).rejects.toBeInstanceOf(IdempotencyKeyTakenError);
      expect(await store.get(uuid(91), UNRESTRICTED)).toBeNull();
      expect((await store.events.read(head, 10)).events).toEqual([]);
      const kept = await store.idempotency.find(record(), BEFORE_EXPIRY);
      expect(kept?.fingerprint).toBe('fingerprint-1');
    });

    it('keeps keys per account', async () => {
      await store.write({ put: [company(90)], idempotency: record() });
      await store.write({
        put: [company(91)],
        idempotency: record({ accountId: 'system', objectId: uuid(91) }),
      });
      expect(
        (await store.idempotency.find({ accountId: 'system', key: 'key-1' }, BEFORE_EXPIRY))?.objectId,
      ).toBe(uuid(91));
      expect(await store.get(uuid(91), UNRESTRICTED)).not.toBeNull();
    });

    it('replaces an expired record of the key', async () => {
      await store.write({ put: [company(90)], idempotency: record() });
      const later = record({
        fingerprint: 'fingerprint-2',
        objectId: uuid(91),
        createdAt: EXPIRES,
        expiresAt: '2026-01-03T00:00:00.000Z',
      });
      await store.write({ put: [company(91)], idempotency: later });
      expect(await store.idempotency.find(later, EXPIRES)).toEqual(later);
    });

    it('stores no record for a batch refused for another reason', async () => {
      const refused = store.write({
        put: [company(90)],
        expect: [{ id: uuid(90), modifiedAt: CREATED }],
        idempotency: record(),
      });
      await expect(refused).rejects.toThrow();
      expect(await store.idempotency.find(record(), BEFORE_EXPIRY)).toBeNull();
      await store.write({ put: [company(90)], idempotency: record() });
      expect(await store.idempotency.find(record(), BEFORE_EXPIRY)).not.toBeNull();
    });

    it('lets exactly one of two concurrent batches with one key write', async () => {
      const outcomes = await Promise.allSettled([
        store.write({ put: [company(90)], idempotency: record() }),
        store.write({ put: [company(91)], idempotency: record({ objectId: uuid(91) }) }),
      ]);
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = outcomes.find((outcome) => outcome.status === 'rejected');
      expect(refused?.status === 'rejected' && refused.reason).toBeInstanceOf(IdempotencyKeyTakenError);
      const winner = (await store.idempotency.find(record(), BEFORE_EXPIRY))?.objectId ?? '';
      const objects = await store.getMany([uuid(90), uuid(91)], UNRESTRICTED);
      expect(objects.map((object) => object.id)).toEqual([winner]);
    });

    it('completes an awaiting record with its body, once', async () => {
      const body = { legalName: 'Acme', 'dotted.key': 1, $dollar: [{ nested: true }] };
      await store.write({ put: [company(90)], idempotency: record({ state: 'awaiting-body' }) });
      await store.idempotency.complete(record(), body);
      await store.idempotency.complete(record(), { legalName: 'later' });
      await store.idempotency.complete({ accountId: 'system', key: 'missing' }, body);
      expect(await store.idempotency.find(record(), BEFORE_EXPIRY)).toEqual(
        record({ response: { ...record().response, body } }),
      );
    });

    it('purges the expired records only', async () => {
      await store.write({ put: [company(90)], idempotency: record() });
      await store.write({
        put: [company(91)],
        idempotency: record({ key: 'key-2', expiresAt: '2026-01-03T00:00:00.000Z' }),
      });
      expect(await store.idempotency.purgeExpired(EXPIRES)).toBe(1);
      expect(await store.idempotency.purgeExpired(EXPIRES)).toBe(0);
      expect(await store.idempotency.find({ accountId: 'profile:1', key: 'key-2' }, EXPIRES)).not.toBeNull();
      expect(await store.idempotency.find(record(), BEFORE_EXPIRY)).toBeNull();
    });
  });
}
