/** TenantStore contract: the access filter on every read, derived values included. */

import type { AccessFilter, Formula, Filter, ListPlan, Sort, StoredObject } from '@odp/core';
import { REL, storedObject, uuid } from '../fixture.js';
import { buildModel } from '../model-builder.js';
import { ALL, COMPANY, nums, forward, textEquals, acl } from './data.js';
import type { TenantStoreCase } from './case.js';

/** Label, access filter, the companies it lets a reader list. */

const cases: readonly [string, AccessFilter, number[]][] = [
  ['all', ALL, [1, 2, 3, 4, 5, 9]],
  ['nothing protected', acl([], []), [1, 2, 3, 4, 5, 9]],
  ['protected, no acIds held', acl([COMPANY], []), []],
  ['protected, one acId held', acl([COMPANY], ['A']), [1]],
  ['protected, two acIds held', acl([COMPANY], ['A', 'B', 'C']), [1, 2]],
  ['an ancestor protected', acl(['ct.organisation'], ['B']), [2]],
  ['a gained class protected', acl(['ct.shareholder'], []), [1, 2, 4, 5, 9]],
  ['an unknown class protected', acl(['ct.nothing'], []), [1, 2, 3, 4, 5, 9]],
];
/** The access filter applies to lists, reads, pages, buckets, values, aggregates, refs and relation filters. */

export function describeAccessFilterContract({ store, seedWithAcl, list }: TenantStoreCase): void {
  describe('access filter', () => {
    it.each(cases)('lists: %s', async (_label, access, expected) => {
      await seedWithAcl();
      expect(nums(await list({ className: COMPANY }, access))).toEqual(expected);
    });

    it('applies to get, getMany, paging, distinct, values and aggregate', async () => {
      await seedWithAcl();
      const access = acl([COMPANY], ['A', 'B']);
      expect(await store.get(uuid(3), access)).toBeNull();
      expect((await store.get(uuid(1), access))?.id).toBe(uuid(1));
      expect(nums(await store.getMany([uuid(1), uuid(3), uuid(20)], access)).sort((a, b) => a - b)).toEqual([
        1, 20,
      ]);
      expect(nums(await list({ className: COMPANY, size: 1, page: 0 }, access))).toEqual([1, 2]);
      expect(nums(await list({ className: COMPANY, size: 1, page: 1 }, access))).toEqual([2]);
      const buckets = await store.distinct(
        {
          className: COMPANY,
          filters: [],
          target: { kind: 'field', field: 'kind', type: 'LIST' },
          order: 'value',
        },
        access,
      );
      expect(buckets.map((bucket) => [bucket.value, bucket.count])).toEqual([
        ['bv', 1],
        ['nv', 1],
      ]);
      const values = await store.values({ className: COMPANY, filters: [] }, 'revenue', access);
      expect(values.map((entry) => entry.value)).toEqual([100, 2500]);
      const aggregate = await store.aggregate(
        { className: COMPANY, filters: [], sum: ['revenue'], avg: [], count: [] },
        access,
      );
      expect(aggregate).toEqual({ total: 2, sum: { revenue: 2600 }, avg: {}, count: {} });
    });

    it('applies to refs and to the linking objects of incoming refs', async () => {
      await seedWithAcl();
      const refs = await store.refsOf([uuid(1), uuid(2), uuid(20)], acl([COMPANY], ['A']));
      expect(nums(refs).sort((a, b) => a - b)).toEqual([1, 20]);
      const incoming = await store.incomingRefs([uuid(1)], acl(['ct.person'], []));
      expect(nums(incoming).sort((a, b) => a - b)).toEqual([30, 32]);
      const first = await store.incomingRefs([uuid(1)], acl(['ct.person'], []), {
        relationKeys: [REL.employer, REL.client],
        limit: 1,
      });
      expect(nums(first)).toEqual([30]);
    });

    it('treats links to unreadable objects as absent in relation filters, sorts and buckets', async () => {
      await seedWithAcl();
      const access = acl([COMPANY], ['A']);
      const byEmployer = async (value: string) =>
        nums(
          await list(
            {
              className: 'ct.person',
              filters: [{ kind: 'relationName', relation: forward(REL.employer), match: 'equals', value }],
            },
            access,
          ),
        );
      expect(await byEmployer('Acme')).toEqual([20, 22]);
      expect(await byEmployer('Globex')).toEqual([]);
      const sort: Sort = {
        key: { kind: 'relationName', relation: forward(REL.employer) },
        direction: 'asc',
      };
      expect(nums(await list({ className: 'ct.person', sort }, access))).toEqual([21, 23, 20, 22]);
      const buckets = await store.distinct(
        {
          className: 'ct.person',
          filters: [],
          target: { kind: 'relation', relation: forward(REL.employer) },
          order: 'value',
        },
        access,
      );
      expect(buckets.map((bucket) => [bucket.name ?? null, bucket.count])).toEqual([
        ['Acme', 2],
        [null, 2],
      ]);
    });
  });
}

/** Derived values computed from objects a reader cannot read are empty for that reader. */

export function describeDerivedAccessContract({ store, seedWithAcl, list }: TenantStoreCase): void {
  describe('access filter', () => {
    it('treats derived values computed from unreadable objects as empty everywhere', async () => {
      await seedWithAcl();
      const through = (relation: string, property: string): Formula => ({
        source: `${relation}.${property}`,
        ast: { kind: 'member', object: { kind: 'identifier', name: relation }, property },
      });
      const derivedModel = buildModel([
        { name: 'ct.organisation', plural: 'organisations', fields: [['legalName', 'TEXT']] },
        {
          name: COMPANY,
          plural: 'companies',
          extends: ['ct.organisation'],
          fields: [['revenue', 'CURRENCY']],
        },
        {
          name: 'ct.invoice',
          plural: 'invoices',
          fields: [
            ['number', 'TEXT'],
            ['clientName', 'TEXT', { formula: through('client', 'legalName') }],
            ['clientRevenue', 'CURRENCY', { formula: through('client', 'revenue') }],
          ],
          relations: [{ name: 'client', target: COMPANY, multiple: false, inverse: 'invoices' }],
        },
      ]);
      await store.applyModel(derivedModel);
      const invoice = (n: number, client: 1 | 2 | null): StoredObject =>
        storedObject(
          {
            n,
            basicClass: 'ct.invoice',
            values: {
              number: `I-${n}`,
              ...(client === null
                ? {}
                : client === 1
                  ? { clientName: 'Acme BV', clientRevenue: 100 }
                  : { clientName: 'Globex NV', clientRevenue: 2500 }),
            },
            links: client === null ? {} : { [REL.client]: [client] },
          },
          derivedModel,
        );
      await store.write({ put: [invoice(30, 1), invoice(31, 2), invoice(32, 1), invoice(33, null)] });
      // Company 2 (Globex) carries acId B: this reader holds A only.
      const access = acl([COMPANY], ['A']);
      const ids = [30, 31, 32, 33].map(uuid);

      const hidden = await store.hiddenDerivedFields(ids, access);
      expect([...hidden.keys()]).toEqual([uuid(31)]);
      expect([...(hidden.get(uuid(31)) ?? [])].sort()).toEqual(['clientName', 'clientRevenue']);
      expect((await store.hiddenDerivedFields(ids, ALL)).size).toBe(0);

      const invoices = (plan: Partial<ListPlan>, filter: AccessFilter) =>
        list({ className: 'ct.invoice', ...plan }, filter).then(nums);
      expect(await invoices({ filters: [textEquals('clientName', 'Globex NV')] }, ALL)).toEqual([31]);
      expect(await invoices({ filters: [textEquals('clientName', 'Globex NV')] }, access)).toEqual([]);
      const empty: Filter = { kind: 'empty', field: 'clientName', type: 'TEXT' };
      expect(await invoices({ filters: [empty] }, access)).toEqual([31, 33]);
      const byName: Sort = { key: { kind: 'field', field: 'clientName', type: 'TEXT' }, direction: 'asc' };
      expect(await invoices({ sort: byName }, ALL)).toEqual([33, 30, 32, 31]);
      expect(await invoices({ sort: byName }, access)).toEqual([31, 33, 30, 32]);

      const values = await store.values({ className: 'ct.invoice', filters: [] }, 'clientName', access);
      expect(values.map((entry) => entry.value)).toEqual(['Acme BV', 'Acme BV']);
      const buckets = await store.distinct(
        {
          className: 'ct.invoice',
          filters: [],
          target: { kind: 'field', field: 'clientName', type: 'TEXT' },
          order: 'value',
        },
        access,
      );
      expect(buckets.map((bucket) => [bucket.value, bucket.count])).toEqual([['Acme BV', 2]]);
      const sums = (filter: AccessFilter) =>
        store.aggregate(
          {
            className: 'ct.invoice',
            filters: [],
            sum: ['clientRevenue'],
            avg: [],
            count: ['clientRevenue'],
          },
          filter,
        );
      expect(await sums(ALL)).toEqual({
        total: 4,
        sum: { clientRevenue: 2700 },
        avg: {},
        count: { clientRevenue: 3 },
      });
      expect(await sums(access)).toEqual({
        total: 4,
        sum: { clientRevenue: 200 },
        avg: {},
        count: { clientRevenue: 2 },
      });
    });
  });
}
