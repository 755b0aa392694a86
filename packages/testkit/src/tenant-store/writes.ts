/** TenantStore contract: write batches (uniqueness, all or nothing, links within a batch, redirects). */

import { ConflictError, NotFoundError } from '@odp/core';
import type { StoredObject, WriteBatch } from '@odp/core';
import { REL, storedObject, uuid } from '../fixture.js';
import { ALL, COMPANY, DATA, nums, outboxJob } from './data.js';
import type { TenantStoreCase } from './case.js';

const company = (n: number, email: string, basicClass = COMPANY): StoredObject =>
  storedObject({ n, basicClass, values: { email } });
/** A batch applies whole or not at all; unique values, links and merge redirects hold across it. */

export function describeWritesContract({ store, seed, list }: TenantStoreCase): void {
  describe('writes', () => {
    it.each([
      ['another object of the class', company(40, 'info@acme.test')],
      ['an object of a subclass', company(41, 'info@acme.test', 'ct.subsidiary')],
    ])('refuses a unique value held by %s', async (_label, object) => {
      await seed();
      await expect(store.write({ put: [object] })).rejects.toBeInstanceOf(ConflictError);
      expect(await store.get(object.id, ALL)).toBeNull();
    });

    it('accepts a unique value kept by its own object and values freed in the same batch', async () => {
      await seed();
      await store.write({ put: [storedObject(DATA[2]!)] });
      await store.write({ put: [company(42, 'hi@globex.test')], delete: [uuid(2)] });
      expect((await store.get(uuid(42), ALL))?.values).toEqual({ email: 'hi@globex.test' });
    });
    it('applies nothing of a failing batch', async () => {
      await seed();
      const before = (await store.events.read(null, 100)).events;
      const batch: WriteBatch = {
        put: [
          storedObject({ n: 50, basicClass: COMPANY, name: 'Fine' }),
          storedObject({ n: 51, basicClass: 'ct.person', links: { [REL.employer]: [999] } }),
        ],
        delete: [uuid(2)],
        events: [{ type: 'create', objectId: uuid(50), classes: [COMPANY], at: '2024-01-01T00:00:00.000Z' }],
        jobs: [outboxJob('refused')],
      };
      await expect(store.write(batch)).rejects.toBeInstanceOf(NotFoundError);
      expect(await store.get(uuid(50), ALL)).toBeNull();
      expect(await store.get(uuid(2), ALL)).not.toBeNull();
      expect((await store.events.read(null, 100)).events).toEqual(before);
      expect(await store.outbox(10)).toEqual([]);
      await store.write({ put: [storedObject({ n: 50, basicClass: COMPANY, name: 'Fine' })] });
      expect(nums(await list({ className: COMPANY }))).toEqual([1, 2, 3, 4, 5, 9, 50]);
    });

    it('links objects put in the same batch in any order', async () => {
      await store.write({
        put: [
          storedObject({ n: 61, basicClass: 'ct.person', links: { [REL.employer]: [60] } }),
          storedObject({ n: 60, basicClass: COMPANY }),
        ],
      });
      expect((await store.get(uuid(61), ALL))?.links).toEqual({ [REL.employer]: [uuid(60)] });
    });

    it('resolves redirect chains to the surviving object', async () => {
      await store.write({ put: [storedObject({ n: 62, basicClass: COMPANY })] });
      await store.write({ redirects: [{ from: uuid(61), to: uuid(62) }] });
      await store.write({ redirects: [{ from: uuid(60), to: uuid(61) }] });
      expect(await store.redirectOf(uuid(60))).toBe(uuid(62));
      expect(await store.redirectOf(uuid(61))).toBe(uuid(62));
      expect(await store.redirectOf(uuid(62))).toBeNull();
      await store.write({ delete: [uuid(62)] });
      expect(await store.redirectOf(uuid(60))).toBeNull();
      expect(await store.redirectOf(uuid(61))).toBeNull();
    });

    it('follows successive merges from the first loser to the last survivor', async () => {
      const put = (n: number) => storedObject({ n, basicClass: COMPANY });
      await store.write({ put: [put(70), put(71), put(72)] });
      await store.write({ redirects: [{ from: uuid(70), to: uuid(71) }], delete: [uuid(70)] });
      expect(await store.redirectOf(uuid(70))).toBe(uuid(71));
      await store.write({ redirects: [{ from: uuid(71), to: uuid(72) }], delete: [uuid(71)] });
      expect(await store.redirectOf(uuid(70))).toBe(uuid(72));
      expect(await store.redirectOf(uuid(71))).toBe(uuid(72));
    });
  });
}
