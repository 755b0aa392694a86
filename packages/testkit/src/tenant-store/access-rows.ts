/** TenantStore contract: ACL rows and holdings stored with a write. */

import { uuid } from '../fixture.js';
import type { TenantStoreCase } from './case.js';

/** ACL rows per object and holdings per holder are stored, read back, replaced and reported. */

export function describeAccessRowsContract({ store, seedWithAcl }: TenantStoreCase): void {
  describe('access filter', () => {
    it('stores ACL rows and holdings and reports the stored ids', async () => {
      await seedWithAcl();
      expect(await store.aclRowsOf(uuid(1))).toEqual([{ acId: 'A', nodeId: 'node-a', definition: 'def' }]);
      const holding = {
        holderId: uuid(20),
        acId: 'A',
        definition: 'def',
        anchorId: uuid(1),
        stepIds: ['s1', 's2'],
      };
      await store.write({ holdings: [{ anchorId: uuid(1), definition: 'def', rows: [holding] }] });
      expect(await store.holdingsOf(uuid(20))).toEqual([holding]);
      expect(await store.holdingsOfAcId('A')).toEqual([holding]);
      expect(await store.storedAclIds()).toEqual({ nodeIds: ['node-a', 'node-b'], stepIds: ['s1', 's2'] });
      await store.write({ holdings: [{ anchorId: uuid(1), definition: 'def', rows: [] }] });
      expect(await store.holdingsOf(uuid(20))).toEqual([]);
      await store.write({ aclRows: [{ objectId: uuid(1), rows: [] }] });
      expect(await store.aclRowsOf(uuid(1))).toEqual([]);
    });
  });
}
