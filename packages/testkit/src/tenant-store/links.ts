/** TenantStore contract: the links between objects read from the linked side (linksTo, refs, incoming refs). */

import type { IncomingRef } from '@odp/core';
import { REL, uuid } from '../fixture.js';
import { ALL, COMPANY, nums } from './data.js';
import type { TenantStoreCase } from './case.js';

/** Links read from the linked side, with relation keys and refs of the linking objects, bounded when asked. */

export function describeObjectLinksContract({ store, seed }: TenantStoreCase): void {
  describe('objects', () => {
    it('lists the objects linking to an object with the relation key', async () => {
      await seed();
      const links = await store.linksTo(uuid(1));
      expect(links.map((link) => `${Number(link.sourceId.slice(-12))} ${link.relationKey}`).sort()).toEqual([
        `20 ${REL.employer}`,
        `22 ${REL.employer}`,
        `30 ${REL.client}`,
        `32 ${REL.client}`,
      ]);
    });

    it('answers refs (id, BASIC class, name) of objects, leaving missing ids out', async () => {
      await seed();
      const refs = await store.refsOf([uuid(1), uuid(30), uuid(99)], ALL);
      expect([...refs].sort((a, b) => a.id.localeCompare(b.id))).toEqual([
        { id: uuid(1), basicClass: COMPANY, name: 'Acme' },
        { id: uuid(30), basicClass: 'ct.invoice', name: 'object 30' },
      ]);
      expect(await store.refsOf([], ALL)).toEqual([]);
    });

    it('answers the links to many objects with refs of the linking objects, per relation as linksTo', async () => {
      await seed();
      const incoming = await store.incomingRefs([uuid(1), uuid(2), uuid(99)], ALL);
      for (const target of [uuid(1), uuid(2)]) {
        const expected = await store.linksTo(target);
        for (const key of [REL.employer, REL.client]) {
          expect(
            incoming.filter((ref) => ref.targetId === target && ref.relationKey === key).map((ref) => ref.id),
          ).toEqual(expected.filter((link) => link.relationKey === key).map((link) => link.sourceId));
        }
      }
      expect(incoming).toHaveLength(6);
      expect(incoming.find((ref) => ref.id === uuid(22))).toEqual({
        targetId: uuid(1),
        relationKey: REL.employer,
        id: uuid(22),
        basicClass: 'ct.person',
        name: 'Cy Smith',
      });
      expect(await store.incomingRefs([uuid(23)], ALL)).toEqual([]);
    });

    it('reads only the bounded links: the named relations, the first `limit` per target and relation', async () => {
      await seed();
      const linkers = (refs: readonly IncomingRef[], target: number, key: string) =>
        nums(refs.filter((ref) => ref.targetId === uuid(target) && ref.relationKey === key));
      const both = await store.incomingRefs([uuid(1), uuid(2)], ALL, {
        relationKeys: [REL.employer, REL.client],
        limit: 1,
      });
      expect(both).toHaveLength(4);
      expect(linkers(both, 1, REL.employer)).toEqual([20]);
      expect(linkers(both, 1, REL.client)).toEqual([30]);
      expect(linkers(both, 2, REL.employer)).toEqual([21]);
      expect(linkers(both, 2, REL.client)).toEqual([31]);
      const clients = await store.incomingRefs([uuid(1)], ALL, { relationKeys: [REL.client], limit: 5 });
      expect(nums(clients)).toEqual([30, 32]);
      expect(clients.every((ref) => ref.relationKey === REL.client)).toBe(true);
      expect(
        await store.incomingRefs([uuid(1)], ALL, { relationKeys: ['ct.no#relation'], limit: 5 }),
      ).toEqual([]);
    });
  });
}
