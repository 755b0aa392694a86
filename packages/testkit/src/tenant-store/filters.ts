/** TenantStore contract: filters of every data type and kind, and selections related to an anchor object. */

import type { Filter } from '@odp/core';
import { REL, storedObject, uuid } from '../fixture.js';
import { buildModel } from '../model-builder.js';
import { COMPANY, DATA, nums, forward, inverse, textEquals, range, fieldSort } from './data.js';
import type { TenantStoreCase } from './case.js';

/** Label, filters, the companies the list holds in creation order. */

const cases: readonly [string, Filter[], number[]][] = [
  ['equals TEXT', [textEquals('legalName', 'Globex NV')], [2]],
  ['equals CURRENCY', [{ kind: 'equals', field: 'revenue', type: 'CURRENCY', value: 100 }], [1, 5]],
  ['equals INTEGER', [{ kind: 'equals', field: 'employees', type: 'INTEGER', value: 10 }], [2]],
  ['equals DECIMAL', [{ kind: 'equals', field: 'rating', type: 'DECIMAL', value: 4.5 }], [1]],
  ['equals PERCENTAGE', [{ kind: 'equals', field: 'margin', type: 'PERCENTAGE', value: 12.5 }], [1]],
  ['equals BOOLEAN true', [{ kind: 'equals', field: 'active', type: 'BOOLEAN', value: true }], [1, 3, 4]],
  ['equals BOOLEAN false', [{ kind: 'equals', field: 'active', type: 'BOOLEAN', value: false }], [2, 9]],
  ['equals DATE', [{ kind: 'equals', field: 'founded', type: 'DATE', value: '2001-05-01' }], [1]],
  [
    'equals DATETIME (stored with an offset)',
    [{ kind: 'equals', field: 'checkedAt', type: 'DATETIME', value: '2024-03-01T08:00:00.000Z' }],
    [1],
  ],
  ['equals TIME', [{ kind: 'equals', field: 'opensAt', type: 'TIME', value: '08:30' }], [1]],
  ['equals EMAIL', [{ kind: 'equals', field: 'email', type: 'EMAIL', value: 'hi@globex.test' }], [2]],
  ['equals LIST', [{ kind: 'equals', field: 'kind', type: 'LIST', value: 'bv' }], [1, 3]],
  ['equals on a multi-valued field (any value)', [textEquals('tags', 'blue')], [1, 2]],
  ['a field of a subclass only is ignored', [textEquals('parentCode', 'A1')], [1, 2, 3, 4, 5, 9]],
  [
    'a LONGTEXT filter is ignored',
    [{ kind: 'equals', field: 'notes', type: 'LONGTEXT', value: 'x' }],
    [1, 2, 3, 4, 5, 9],
  ],
  ['an unknown field is ignored', [textEquals('nope', 'x')], [1, 2, 3, 4, 5, 9]],
  [
    'a wrongly typed operand matches nothing',
    [{ kind: 'equals', field: 'employees', type: 'INTEGER', value: 'ten' }],
    [],
  ],
  ['range INTEGER compares numerically', [range('employees', 'INTEGER', 9, 50)], [1, 2, 5]],
  ['range from only', [range('employees', 'INTEGER', 10)], [2, 3, 5]],
  ['range to only', [range('employees', 'INTEGER', undefined, 9)], [1, 4, 9]],
  ['range DATE', [range('founded', 'DATE', '2000-01-01', '2005-12-31')], [1]],
  ['range DATETIME compares instants', [range('checkedAt', 'DATETIME', '2024-03-01T08:30:00.000Z')], [2]],
  ['range TIME', [range('opensAt', 'TIME', '08:45', '23:59')], [2]],
  ['startsWith', [{ kind: 'startsWith', field: 'legalName', type: 'TEXT', value: 'Acme' }], [1, 9]],
  ['equals TEXT ignores case', [textEquals('legalName', 'globex nv')], [2]],
  [
    'startsWith ignores case',
    [{ kind: 'startsWith', field: 'legalName', type: 'TEXT', value: 'aCME' }],
    [1, 9],
  ],
  ['notEmpty', [{ kind: 'notEmpty', field: 'revenue', type: 'CURRENCY' }], [1, 2, 3, 5, 9]],
  ['empty', [{ kind: 'empty', field: 'revenue', type: 'CURRENCY' }], [4]],
  ['empty on a multi-valued field', [{ kind: 'empty', field: 'tags', type: 'TEXT' }], [3, 4, 5, 9]],
  [
    'relation name, forward side',
    [
      {
        kind: 'relationName',
        relation: forward(REL.shareholders),
        match: 'equals',
        value: 'Ann Smith',
      },
    ],
    [1],
  ],
  [
    'relation name, inverse side',
    [{ kind: 'relationName', relation: inverse(REL.employer), match: 'equals', value: 'Bob Jones' }],
    [2],
  ],
  [
    'relation name prefix',
    [{ kind: 'relationName', relation: inverse(REL.employer), match: 'startsWith', value: 'Cy' }],
    [1],
  ],
  ['relation id, inverse side', [{ kind: 'relationId', relation: inverse(REL.employer), id: uuid(20) }], [1]],
  [
    'relation id, forward side',
    [{ kind: 'relationId', relation: forward(REL.shareholders), id: uuid(3) }],
    [1],
  ],
  [
    'relation id of a missing object',
    [{ kind: 'relationId', relation: forward(REL.shareholders), id: uuid(999) }],
    [],
  ],
  ['has a gained class', [{ kind: 'hasClasses', classes: ['ct.shareholder'] }], [3]],
  ['has a subclass', [{ kind: 'hasClasses', classes: ['ct.subsidiary'] }], [9]],
  ['has an unknown class', [{ kind: 'hasClasses', classes: ['ct.nothing'] }], []],
  [
    'filters combine with AND',
    [{ kind: 'equals', field: 'active', type: 'BOOLEAN', value: true }, range('employees', 'INTEGER', 5)],
    [1, 3],
  ],
];
/** Every filter kind on every data type, on subclasses and gained classes, after renames and model changes. */

export function describeFiltersContract({ store, seed, list }: TenantStoreCase): void {
  describe('filters', () => {
    it.each(cases)('%s', async (_label, filters, expected) => {
      await seed();
      expect(nums(await list({ className: COMPANY, filters }))).toEqual(expected);
    });

    it('lists subclasses and objects that gained the class', async () => {
      await seed();
      expect(nums(await list({ className: 'ct.organisation' }))).toEqual([1, 2, 3, 4, 5, 9]);
      expect(nums(await list({ className: 'ct.shareholder' }))).toEqual([3, 20]);
      expect(
        nums(await list({ className: 'ct.shareholder', filters: [range('share', 'PERCENTAGE', 10)] })),
      ).toEqual([20]);
    });

    it('follows a rename of a related object at once', async () => {
      await seed();
      await store.write({ put: [storedObject({ ...DATA[3]!, name: 'Zeta' })] });
      const byEmployer = (value: string) =>
        list({
          className: 'ct.person',
          filters: [{ kind: 'relationName', relation: forward(REL.employer), match: 'equals', value }],
        });
      expect(nums(await byEmployer('Zeta'))).toEqual([21]);
      expect(nums(await byEmployer('Globex'))).toEqual([]);
    });

    it('makes fields of a newly applied model filterable for objects stored before', async () => {
      await seed();
      await store.write({
        put: [storedObject({ n: 70, basicClass: 'ct.person', values: { nickname: 'Bo' } })],
      });
      const extended = buildModel([
        {
          name: 'ct.person',
          plural: 'persons',
          fields: [
            ['lastName', 'TEXT'],
            ['nickname', 'TEXT'],
          ],
        },
      ]);
      await store.applyModel(extended);
      await store.applyModel(extended);
      expect(nums(await list({ className: 'ct.person', filters: [textEquals('nickname', 'Bo')] }))).toEqual([
        70,
      ]);
    });
  });
}

/** Lists narrowed to the objects related to an anchor, on either side of a relation. */

export function describeRelatedSelectionsContract({ seed, list }: TenantStoreCase): void {
  describe('related selections', () => {
    it.each([
      ['inverse side (employees of company 1)', 'ct.person', inverse(REL.employer), 1, [20, 22]],
      ['forward side (shareholders of company 1)', 'ct.shareholder', forward(REL.shareholders), 1, [3, 20]],
      ['forward single (employer of person 21)', COMPANY, forward(REL.employer), 21, [2]],
      ['an anchor without links', 'ct.person', inverse(REL.employer), 4, []],
      ['a missing anchor', 'ct.person', inverse(REL.employer), 999, []],
    ] as const)('%s', async (_label, className, relation, anchor, expected) => {
      await seed();
      const related = { anchorId: uuid(anchor), relation };
      expect(nums(await list({ className, related }))).toEqual([...expected]);
    });

    it('narrows a related list with filters and sorts it', async () => {
      await seed();
      const related = { anchorId: uuid(1), relation: inverse(REL.client) };
      const rows = await list({
        className: 'ct.invoice',
        related,
        filters: [range('amount', 'CURRENCY', 1)],
        sort: fieldSort('amount', 'CURRENCY', 'asc'),
      });
      expect(nums(rows)).toEqual([32, 30]);
    });
  });
}
