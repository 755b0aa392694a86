/** TenantStore contract: the values of a field and aggregates over a filtered set. */

import { REL, uuid } from '../fixture.js';
import { ALL, COMPANY, forward, textEquals, selection } from './data.js';
import type { TenantStoreCase } from './case.js';

/** Field values one entry per object; sums, averages and counts of numeric fields. */

export function describeValuesAndAggregateContract({ store, seed }: TenantStoreCase): void {
  describe('distinct, values, aggregate', () => {
    it('lists field values, one entry per object with a value', async () => {
      await seed();
      const revenue = await store.values(selection(COMPANY), 'revenue', ALL);
      expect(revenue.map((entry) => [Number(entry.objectId.slice(-12)), entry.value])).toEqual([
        [1, 100],
        [2, 2500],
        [3, 30],
        [5, 100],
        [9, 5],
      ]);
      expect(revenue.find((entry) => entry.objectId === uuid(9))?.basicClass).toBe('ct.subsidiary');
      const tags = await store.values(selection(COMPANY, [textEquals('legalName', 'Acme BV')]), 'tags', ALL);
      expect(tags.map((entry) => entry.value)).toEqual([['red', 'blue']]);
    });

    it('aggregates the whole filtered set', async () => {
      await seed();
      const all = await store.aggregate(
        { ...selection('ct.invoice'), sum: ['amount'], avg: ['amount'], count: ['amount'] },
        ALL,
      );
      expect(all).toEqual({ total: 4, sum: { amount: 42 }, avg: { amount: 10.5 }, count: { amount: 4 } });
      const ofClient = await store.aggregate(
        {
          ...selection('ct.invoice', [{ kind: 'relationId', relation: forward(REL.client), id: uuid(1) }]),
          sum: ['amount'],
          avg: [],
          count: [],
        },
        ALL,
      );
      expect(ofClient).toEqual({ total: 2, sum: { amount: 15 }, avg: {}, count: {} });
    });

    it('aggregates only numeric fields and omits an average over no values', async () => {
      await seed();
      const result = await store.aggregate(
        {
          ...selection(COMPANY, [{ kind: 'equals', field: 'active', type: 'BOOLEAN', value: false }]),
          sum: ['margin', 'legalName', 'nope'],
          avg: ['margin', 'rating'],
          count: ['margin', 'rating'],
        },
        ALL,
      );
      expect(result).toEqual({
        total: 2,
        sum: { margin: 0 },
        avg: { rating: 3 },
        count: { margin: 0, rating: 1 },
      });
      expect(
        (await store.aggregate({ ...selection('ct.nothing'), sum: [], avg: [], count: [] }, ALL)).total,
      ).toBe(0);
    });
  });
}
