/** TenantStore contract: reading objects back (get, getMany, a second put, delete, scan). */

import { REL, storedObject, uuid } from '../fixture.js';
import { ALL, COMPANY, DATA, nums, textEquals } from './data.js';
import type { TenantStoreCase } from './case.js';

/** A put object reads back whole; a second put replaces it; a delete removes it with its links. */

export function describeObjectReadsContract({ store, seed, list }: TenantStoreCase): void {
  describe('objects', () => {
    it('returns a put object whole: classes, name, values, links in order', async () => {
      await seed();
      const company = await store.get(uuid(1), ALL);
      const expected = storedObject({ ...DATA[2]! });
      expect(company).toEqual(expected);
      expect(company?.links[REL.shareholders]).toEqual([uuid(20), uuid(3)]);
      expect((await store.get(uuid(20), ALL))?.classes).toEqual(['ct.person', 'ct.shareholder']);
    });

    it('answers null for a missing object and leaves missing ids out of getMany', async () => {
      await seed();
      expect(await store.get(uuid(999), ALL)).toBeNull();
      expect(nums(await store.getMany([uuid(2), uuid(999), uuid(21)], ALL)).sort((a, b) => a - b)).toEqual([
        2, 21,
      ]);
      expect(await store.getMany([], ALL)).toEqual([]);
    });

    it('replaces an object whole on a second put (values and links)', async () => {
      await seed();
      await store.write({
        put: [
          storedObject({
            n: 22,
            basicClass: 'ct.person',
            name: 'Cy Smith',
            values: { lastName: 'Smythe' },
          }),
        ],
      });
      const person = await store.get(uuid(22), ALL);
      expect(person?.values).toEqual({ lastName: 'Smythe' });
      expect(person?.links).toEqual({});
      expect(
        nums(await list({ className: 'ct.person', filters: [textEquals('lastName', 'Smith')] })),
      ).toEqual([20]);
    });

    it('deletes an object with its links in both directions', async () => {
      await seed();
      await store.write({ delete: [uuid(2)] });
      expect(await store.get(uuid(2), ALL)).toBeNull();
      expect((await store.get(uuid(21), ALL))?.links).toEqual({});
      expect(await store.linksTo(uuid(2))).toEqual([]);
      expect(nums(await list({ className: COMPANY }))).toEqual([1, 3, 4, 5, 9]);
    });

    it('scans every object in id order, a page at a time', async () => {
      await seed();
      const first = await store.scan(null, 5);
      const rest = await store.scan(first.at(-1)!.id, 100);
      const ids = [...first, ...rest].map((object) => object.id);
      expect(first).toHaveLength(5);
      expect(ids).toEqual([...ids].sort());
      expect(ids).toHaveLength(DATA.length);
    });
  });
}
