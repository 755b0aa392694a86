/** TenantStore contract: sorting by fields of every data type and by related names. */

import type { Sort } from '@odp/core';
import { REL } from '../fixture.js';
import { COMPANY, nums, forward, fieldSort } from './data.js';
import type { TenantStoreCase } from './case.js';

/** Label, sort, the companies in the order the sort gives them. */

export const sortCases: readonly [string, Sort, number[]][] = [
  ['TEXT asc', fieldSort('legalName', 'TEXT', 'asc'), [1, 9, 2, 5, 3, 4]],
  ['TEXT desc', fieldSort('legalName', 'TEXT', 'desc'), [4, 3, 5, 2, 9, 1]],
  [
    'CURRENCY asc: empty first, ties by creation',
    fieldSort('revenue', 'CURRENCY', 'asc'),
    [4, 9, 3, 1, 5, 2],
  ],
  ['CURRENCY desc: empty last, ties reversed', fieldSort('revenue', 'CURRENCY', 'desc'), [2, 5, 1, 3, 9, 4]],
  ['INTEGER asc is numeric', fieldSort('employees', 'INTEGER', 'asc'), [9, 4, 1, 2, 5, 3]],
  ['DATE asc', fieldSort('founded', 'DATE', 'asc'), [4, 5, 9, 2, 1, 3]],
  ['DATETIME desc compares instants', fieldSort('checkedAt', 'DATETIME', 'desc'), [2, 1, 9, 5, 4, 3]],
  ['BOOLEAN asc', fieldSort('active', 'BOOLEAN', 'asc'), [5, 2, 9, 1, 3, 4]],
  ['DECIMAL desc', fieldSort('rating', 'DECIMAL', 'desc'), [1, 2, 9, 5, 4, 3]],
  ['TIME asc', fieldSort('opensAt', 'TIME', 'asc'), [3, 4, 5, 9, 1, 2]],
  ['LIST desc', fieldSort('kind', 'LIST', 'desc'), [2, 3, 1, 9, 5, 4]],
  ['EMAIL asc', fieldSort('email', 'EMAIL', 'asc'), [3, 4, 5, 9, 2, 1]],
  ['an unknown field keeps creation order', fieldSort('nope', 'TEXT', 'asc'), [1, 2, 3, 4, 5, 9]],
];
/** Objects without a value first ascending (last descending); ties by creation order in the sort's direction. */

export function describeSortContract({ seed, list }: TenantStoreCase): void {
  describe('sorting and paging', () => {
    it.each(sortCases)('%s', async (_label, sort, expected) => {
      await seed();
      expect(nums(await list({ className: COMPANY, sort }))).toEqual(expected);
    });

    it.each([
      ['asc', [23, 20, 22, 21]],
      ['desc', [21, 22, 20, 23]],
    ] as const)('sorts by a related object name %s', async (direction, expected) => {
      await seed();
      const sort: Sort = { key: { kind: 'relationName', relation: forward(REL.employer) }, direction };
      expect(nums(await list({ className: 'ct.person', sort }))).toEqual([...expected]);
    });
  });
}
