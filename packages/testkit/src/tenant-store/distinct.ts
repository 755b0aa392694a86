/** TenantStore contract: distinct buckets of a field or a relation. */

import type { AccessFilter, Filter } from '@odp/core';
import { REL, storedObject, uuid } from '../fixture.js';
import { ALL, COMPANY, DATA, forward, inverse, selection } from './data.js';
import type { TenantStoreCase } from './case.js';

/** Buckets of LIST, number, BOOLEAN and multi-valued fields, in each order. */

export function describeDistinctOrderContract({ store, seed }: TenantStoreCase): void {
  describe('distinct, values, aggregate', () => {
    it.each([
      [
        'value',
        [
          ['bv', 2],
          ['nv', 1],
        ],
      ],
      [
        'count',
        [
          ['nv', 1],
          ['bv', 2],
        ],
      ],
      [
        'countDesc',
        [
          ['bv', 2],
          ['nv', 1],
        ],
      ],
    ] as const)('distinct LIST values ordered by %s', async (order, expected) => {
      await seed();
      const buckets = await store.distinct(
        { ...selection(COMPANY), target: { kind: 'field', field: 'kind', type: 'LIST' }, order },
        ALL,
      );
      expect(buckets.map((bucket) => [bucket.value, bucket.count])).toEqual(expected);
    });

    it('distinct numbers by count, then value', async () => {
      await seed();
      const target = { kind: 'field', field: 'revenue', type: 'CURRENCY' } as const;
      const count = await store.distinct({ ...selection(COMPANY), target, order: 'count' }, ALL);
      expect(count.map((bucket) => [bucket.value, bucket.count])).toEqual([
        [5, 1],
        [30, 1],
        [2500, 1],
        [100, 2],
      ]);
      const countDesc = await store.distinct({ ...selection(COMPANY), target, order: 'countDesc' }, ALL);
      expect(countDesc.map((bucket) => [bucket.value, bucket.count])).toEqual([
        [100, 2],
        [5, 1],
        [30, 1],
        [2500, 1],
      ]);
    });

    it('distinct BOOLEAN and multi-valued fields', async () => {
      await seed();
      const active = await store.distinct(
        {
          ...selection(COMPANY),
          target: { kind: 'field', field: 'active', type: 'BOOLEAN' },
          order: 'value',
        },
        ALL,
      );
      expect(active.map((bucket) => [bucket.value, bucket.count])).toEqual([
        [false, 2],
        [true, 3],
      ]);
      const tags = await store.distinct(
        { ...selection(COMPANY), target: { kind: 'field', field: 'tags', type: 'TEXT' }, order: 'value' },
        ALL,
      );
      expect(tags.map((bucket) => [bucket.value, bucket.count])).toEqual([
        ['blue', 2],
        ['red', 1],
      ]);
    });
  });
}

/** Distinct and aggregations agree for every reader, whatever was written before. */

export function describeDistinctReadersContract({ store, seed }: TenantStoreCase): void {
  describe('distinct, values, aggregate', () => {
    it('answers distinct and aggregations alike for every reader after creates, updates and deletes', async () => {
      await seed();
      await store.write({
        put: [
          storedObject({
            ...DATA[2]!,
            values: { ...DATA[2]!.values, kind: 'nv', revenue: 70, active: false },
          }),
          storedObject({
            n: 6,
            basicClass: COMPANY,
            name: 'Initech',
            values: { legalName: 'Initech', revenue: 1, employees: 3, founded: '1999-12-31', kind: 'bv' },
          }),
        ],
        delete: [uuid(5)],
      });
      // Nothing protected: the same objects as ALL, answered by reading each object of the selection.
      const open: AccessFilter = { kind: 'acl', protectedClasses: [], acIds: [] };
      const filters: Filter[][] = [
        [],
        [{ kind: 'equals', field: 'kind', type: 'LIST', value: 'nv' }],
        [{ kind: 'range', field: 'founded', type: 'DATE', from: '1990-01-01', to: '1999-12-31' }],
        [{ kind: 'range', field: 'founded', type: 'DATE', to: '1999-12-31' }],
        [{ kind: 'empty', field: 'founded', type: 'DATE' }],
        [{ kind: 'equals', field: 'active', type: 'BOOLEAN', value: false }],
      ];
      for (const narrowed of filters) {
        const plan = {
          ...selection(COMPANY, narrowed),
          sum: ['revenue', 'employees'],
          avg: ['revenue', 'rating'],
          count: ['employees', 'rating'],
        };
        expect(await store.aggregate(plan, ALL)).toEqual(await store.aggregate(plan, open));
      }
      expect(
        await store.aggregate({ ...selection(COMPANY), sum: ['revenue'], avg: [], count: ['revenue'] }, ALL),
      ).toEqual({
        total: 6,
        sum: { revenue: 2606 },
        avg: {},
        count: { revenue: 5 },
      });
      for (const [field, type] of [
        ['kind', 'LIST'],
        ['active', 'BOOLEAN'],
        ['founded', 'DATE'],
      ] as const) {
        for (const order of ['value', 'count', 'countDesc'] as const) {
          const plan = { ...selection(COMPANY), target: { kind: 'field', field, type } as const, order };
          expect(await store.distinct(plan, ALL)).toEqual(await store.distinct(plan, open));
        }
      }
      const kinds = await store.distinct(
        { ...selection(COMPANY), target: { kind: 'field', field: 'kind', type: 'LIST' }, order: 'value' },
        ALL,
      );
      expect(kinds.map((bucket) => [bucket.value, bucket.count])).toEqual([
        ['bv', 2],
        ['nv', 2],
      ]);
    });
  });
}

/** Buckets narrowed by filters, and relation buckets on either side. */

export function describeDistinctNarrowedContract({ store, seed }: TenantStoreCase): void {
  describe('distinct, values, aggregate', () => {
    it('distinct values narrowed by filters', async () => {
      await seed();
      const buckets = await store.distinct(
        {
          ...selection(COMPANY, [{ kind: 'equals', field: 'active', type: 'BOOLEAN', value: true }]),
          target: { kind: 'field', field: 'kind', type: 'LIST' },
          order: 'value',
        },
        ALL,
      );
      expect(buckets.map((bucket) => [bucket.value, bucket.count])).toEqual([['bv', 2]]);
    });

    it.each([
      [
        'value',
        [
          ['Acme', 2],
          ['Globex', 1],
          [null, 1],
        ],
      ],
      [
        'count',
        [
          ['Globex', 1],
          [null, 1],
          ['Acme', 2],
        ],
      ],
      [
        'countDesc',
        [
          ['Acme', 2],
          ['Globex', 1],
          [null, 1],
        ],
      ],
    ] as const)('distinct relation buckets ordered by %s, with the null bucket', async (order, expected) => {
      await seed();
      const buckets = await store.distinct(
        {
          ...selection('ct.person'),
          target: { kind: 'relation', relation: forward(REL.employer) },
          order,
        },
        ALL,
      );
      expect(buckets.map((bucket) => [bucket.name ?? null, bucket.count])).toEqual(expected);
      const acme = buckets.find((bucket) => bucket.name === 'Acme');
      expect(acme).toMatchObject({ value: uuid(1), basicClass: COMPANY });
      expect(buckets.find((bucket) => bucket.name === null)?.value).toBeNull();
    });

    it('distinct relation buckets of a relation never linked: only the null bucket', async () => {
      await store.write({
        put: [
          storedObject({ n: 1, basicClass: 'ct.person' }),
          storedObject({ n: 2, basicClass: 'ct.person' }),
        ],
      });
      const buckets = await store.distinct(
        {
          ...selection('ct.person'),
          target: { kind: 'relation', relation: forward(REL.employer) },
          order: 'value',
        },
        ALL,
      );
      expect(buckets).toEqual([{ value: null, name: null, count: 2 }]);
    });

    it('distinct relation buckets on an inverse side', async () => {
      await seed();
      const buckets = await store.distinct(
        {
          ...selection(COMPANY, [{ kind: 'equals', field: 'active', type: 'BOOLEAN', value: false }]),
          target: { kind: 'relation', relation: inverse(REL.employer) },
          order: 'value',
        },
        ALL,
      );
      expect(buckets.map((bucket) => [bucket.name ?? null, bucket.count])).toEqual([
        ['Bob Jones', 1],
        [null, 1],
      ]);
    });
  });
}
