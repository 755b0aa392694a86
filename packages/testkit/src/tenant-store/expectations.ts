/** TenantStore contract: optimistic concurrency (a write that expects what it read). */

import { WriteConflictError } from '@odp/core';
import type { StoredObject } from '@odp/core';
import { uuid } from '../fixture.js';
import { ALL, COMPANY } from './data.js';
import type { TenantStoreCase } from './case.js';

/** A batch whose expectations no longer hold is refused whole with WriteConflictError. */

export function describeExpectationsContract({ store, seed }: TenantStoreCase): void {
  describe('writes', () => {
    describe('expectations (optimistic concurrency)', () => {
      const read = async (id: string) => {
        const object = await store.get(id, ALL);
        if (object === null) throw new Error(`no object ${id}`);
        return object;
      };
      const renamed = (object: StoredObject, name: string, modifiedAt: string): StoredObject => ({
        ...object,
        name,
        modifiedAt,
      });

      it('applies a batch whose expected objects are as they were read', async () => {
        await seed();
        const before = await read(uuid(1));
        await store.write({
          expect: [
            { id: before.id, modifiedAt: before.modifiedAt },
            { id: uuid(77), modifiedAt: null },
          ],
          put: [renamed(before, 'Renamed', '2031-01-01T00:00:00.000Z')],
        });
        expect((await read(uuid(1))).name).toBe('Renamed');
      });

      it.each([
        ['changed since it was read', async () => ({ id: uuid(1), modifiedAt: '1999-01-01T00:00:00.000Z' })],
        ['deleted since it was read', async () => ({ id: uuid(70), modifiedAt: '2024-01-01T00:00:00.000Z' })],
        ['created since it was read as absent', async () => ({ id: uuid(2), modifiedAt: null })],
      ])('refuses the whole batch when an expected object was %s', async (_label, expectation) => {
        await seed();
        const before = await read(uuid(1));
        const events = (await store.events.read(null, 100)).events;
        await expect(
          store.write({
            expect: [await expectation()],
            put: [renamed(before, 'Lost', '2031-01-01T00:00:00.000Z')],
            delete: [uuid(3)],
            events: [
              { type: 'update', objectId: uuid(1), classes: [COMPANY], at: '2031-01-01T00:00:00.000Z' },
            ],
          }),
        ).rejects.toBeInstanceOf(WriteConflictError);
        expect(await read(uuid(1))).toEqual(before);
        expect(await store.get(uuid(3), ALL)).not.toBeNull();
        expect((await store.events.read(null, 100)).events).toEqual(events);
      });

      it('lets exactly one of two writers that read the same version win', async () => {
        await seed();
        const version = await read(uuid(1));
        const write = (name: string) =>
          store.write({
            expect: [{ id: version.id, modifiedAt: version.modifiedAt }],
            put: [renamed(version, name, `2031-01-01T00:00:00.00${name === 'First' ? 1 : 2}Z`)],
          });
        const outcomes = await Promise.allSettled([write('First'), write('Second')]);
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
        const refused = outcomes.find((outcome) => outcome.status === 'rejected');
        expect(refused?.status === 'rejected' && refused.reason).toBeInstanceOf(WriteConflictError);
        expect(['First', 'Second']).toContain((await read(uuid(1))).name);
      });
    });
  });
}
