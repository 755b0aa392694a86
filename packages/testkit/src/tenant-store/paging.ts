/** TenantStore contract: pages by number and offset, and keyset pages after a position. */

import type { ListPlan, ListPosition, Sort, WriteBatch } from '@odp/core';
import { REL, storedObject, uuid } from '../fixture.js';
import { ALL, COMPANY, nums, forward, fieldSort } from './data.js';
import { sortCases } from './sort.js';
import type { TenantStoreCase } from './case.js';

/** A page holds size + 1 rows (the extra one tells a next page exists); offsets override page numbers. */

export function describePageNumberPagingContract({ seed, list }: TenantStoreCase): void {
  describe('sorting and paging', () => {
    it('returns size + 1 rows per page and consistent pages', async () => {
      await seed();
      const sort = fieldSort('legalName', 'TEXT', 'asc');
      const page = async (n: number) => nums(await list({ className: COMPANY, sort, page: n, size: 2 }));
      expect(await page(0)).toEqual([1, 9, 2]);
      expect(await page(1)).toEqual([2, 5, 3]);
      expect(await page(2)).toEqual([3, 4]);
      expect(await page(3)).toEqual([]);
    });

    it('starts a page at its offset when one is given, whatever the page number', async () => {
      await seed();
      const sort = fieldSort('legalName', 'TEXT', 'asc');
      const at = async (offset: number) =>
        nums(await list({ className: COMPANY, sort, page: 7, size: 2, offset }));
      expect(await at(0)).toEqual([1, 9, 2]);
      expect(await at(1)).toEqual([9, 2, 5]);
      expect(await at(5)).toEqual([4]);
    });

    it('pages a filtered sorted list', async () => {
      await seed();
      const plan = {
        className: COMPANY,
        filters: [{ kind: 'notEmpty', field: 'revenue', type: 'CURRENCY' } as const],
        sort: fieldSort('employees', 'INTEGER', 'desc'),
        size: 2,
      };
      expect(nums(await list({ ...plan, page: 0 }))).toEqual([3, 5, 2]);
      expect(nums(await list({ ...plan, page: 1 }))).toEqual([2, 1, 9]);
    });
  });
}

/** Walking a list after the position of each page's last row gives exactly the list, in every order. */

export function describeKeysetWalkContract({ store, seed, list }: TenantStoreCase): void {
  describe('sorting and paging', () => {
    describe('keyset paging (after a position)', () => {
      /** Every row of the plan's list, walked `size` rows at a time from the position of each page's last row. */
      async function walk(plan: Partial<ListPlan> & { className: string }, size: number): Promise<number[]> {
        const seen: number[] = [];
        let after: ListPosition | undefined;
        for (let pages = 0; pages < 50; pages++) {
          const page = await store.page(
            { filters: [], page: 0, ...plan, size, ...(after === undefined ? {} : { after }) },
            ALL,
          );
          expect(page.positions).toHaveLength(page.rows.length);
          seen.push(...nums(page.rows.slice(0, size)));
          if (page.rows.length <= size) return seen;
          after = page.positions[size - 1];
        }
        throw new Error('paging did not end');
      }

      const orders: readonly [string, Sort | undefined][] = [
        ['creation order', undefined],
        ...sortCases.map(([label, sort]): [string, Sort] => [label, sort]),
        ['multi-valued TEXT asc (smallest value)', fieldSort('tags', 'TEXT', 'asc')],
        ['multi-valued TEXT desc (largest value)', fieldSort('tags', 'TEXT', 'desc')],
      ];
      it.each(orders)('walks %s exactly as the list orders it', async (_label, sort) => {
        await seed();
        const plan = { className: COMPANY, ...(sort === undefined ? {} : { sort }) };
        const all = nums(await list(plan));
        expect(all).toHaveLength(6);
        expect(await walk(plan, 1)).toEqual(all);
        expect(await walk(plan, 4)).toEqual(all);
      });

      it.each(['asc', 'desc'] as const)(
        'walks a related-name sort %s and a filtered sort',
        async (direction) => {
          await seed();
          const byEmployer: Sort = {
            key: { kind: 'relationName', relation: forward(REL.employer) },
            direction,
          };
          const persons = { className: 'ct.person', sort: byEmployer };
          expect(await walk(persons, 1)).toEqual(nums(await list(persons)));
          const filtered = {
            className: COMPANY,
            filters: [{ kind: 'notEmpty', field: 'revenue', type: 'CURRENCY' } as const],
            sort: fieldSort('employees', 'INTEGER', direction),
          };
          expect(await walk(filtered, 2)).toEqual(nums(await list(filtered)));
          const narrowed = {
            className: COMPANY,
            filters: [{ kind: 'equals', field: 'active', type: 'BOOLEAN', value: true } as const],
            sort: fieldSort('legalName', 'TEXT', direction),
          };
          expect(await walk(narrowed, 1)).toEqual(nums(await list(narrowed)));
        },
      );
    });
  });
}

/** A keyset page continues after its boundary row when rows are written between pages. */

export function describeKeysetAcrossWritesContract({ store, seed }: TenantStoreCase): void {
  describe('sorting and paging', () => {
    describe('keyset paging (after a position)', () => {
      /** The first page (size 2) of `plan`, then the rest walked after `change` was written. */
      async function pagedAcross(
        plan: Partial<ListPlan> & { className: string },
        change: WriteBatch,
      ): Promise<{ first: number[]; rest: number[] }> {
        const first = await store.page({ filters: [], page: 0, size: 2, ...plan }, ALL);
        await store.write(change);
        const rest: number[] = [];
        let after = first.positions[1];
        while (after !== undefined) {
          const page = await store.page({ filters: [], page: 0, size: 2, ...plan, after }, ALL);
          rest.push(...nums(page.rows.slice(0, 2)));
          after = page.rows.length > 2 ? page.positions[1] : undefined;
        }
        return { first: nums(first.rows.slice(0, 2)), rest };
      }

      it('continues after its boundary row when rows are inserted and deleted meanwhile (ascending)', async () => {
        await seed();
        const company = (n: number, legalName: string) =>
          storedObject({ n, basicClass: COMPANY, values: { legalName } });
        const { first, rest } = await pagedAcross(
          { className: COMPANY, sort: fieldSort('legalName', 'TEXT', 'asc') },
          {
            // Before the boundary, a tie with the boundary row (created later, so after it), after it;
            // the boundary row itself and a row before it deleted.
            put: [company(40, 'Aardvark'), company(41, 'ACME subsidiary'), company(42, 'Zeta')],
            delete: [uuid(9), uuid(1)],
          },
        );
        expect(first).toEqual([1, 9]);
        expect(rest).toEqual([41, 2, 5, 3, 4, 42]);
      });

      it('continues after its boundary row when rows are inserted meanwhile (descending, ties and empty keys)', async () => {
        await seed();
        const company = (n: number, revenue?: number) =>
          storedObject({ n, basicClass: COMPANY, values: revenue === undefined ? {} : { revenue } });
        const { first, rest } = await pagedAcross(
          { className: COMPANY, sort: fieldSort('revenue', 'CURRENCY', 'desc') },
          // A tie with the boundary row created later (so before it, descending), a row after it
          // and one without a value (last).
          { put: [company(43, 100), company(45, 50), company(46)] },
        );
        expect(first).toEqual([2, 5]);
        expect(rest).toEqual([1, 45, 3, 9, 46, 4]);
      });

      it('continues in creation order after a boundary row that was deleted', async () => {
        await seed();
        const { first, rest } = await pagedAcross(
          { className: COMPANY },
          { put: [storedObject({ n: 47, basicClass: COMPANY })], delete: [uuid(2)] },
        );
        expect(first).toEqual([1, 2]);
        expect(rest).toEqual([3, 4, 5, 9, 47]);
      });

      it('starts after the position whatever the page number or offset', async () => {
        await seed();
        const sort = fieldSort('legalName', 'TEXT', 'asc');
        const first = await store.page({ className: COMPANY, filters: [], sort, page: 0, size: 2 }, ALL);
        const after = first.positions[1];
        expect(after).toBeDefined();
        const second = await store.page(
          {
            className: COMPANY,
            filters: [],
            sort,
            page: 9,
            offset: 4,
            size: 2,
            ...(after ? { after } : {}),
          },
          ALL,
        );
        expect(nums(second.rows)).toEqual([2, 5, 3]);
        expect(
          nums(await store.list({ className: COMPANY, filters: [], sort, page: 1, size: 2 }, ALL)),
        ).toEqual(nums(second.rows));
      });
    });
  });
}
