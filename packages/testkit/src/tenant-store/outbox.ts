/** TenantStore contract: the outbox of jobs written with a batch. */

import { storedObject } from '../fixture.js';
import { COMPANY, outboxJob } from './data.js';
import type { TenantStoreCase } from './case.js';

/** Jobs written with a batch stay in the outbox, in order, until removed. */

export function describeOutboxContract({ store }: TenantStoreCase): void {
  describe('writes', () => {
    it('keeps the jobs of a batch in the outbox until they are removed', async () => {
      await store.write({ put: [storedObject({ n: 80, basicClass: COMPANY })], jobs: [outboxJob('a')] });
      await store.write({ jobs: [outboxJob('b'), outboxJob('c')] });
      expect(await store.outbox(10)).toEqual([outboxJob('a'), outboxJob('b'), outboxJob('c')]);
      expect((await store.outbox(2)).map((job) => job.id)).toEqual(['a', 'b']);
      await store.removeFromOutbox(['a', 'c', 'unknown']);
      expect(await store.outbox(10)).toEqual([outboxJob('b')]);
    });
  });
}
