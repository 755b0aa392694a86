/** TenantStore contract: text compares with Unicode case folding. */

import { ConflictError } from '@odp/core';
import type { Filter } from '@odp/core';
import { REL, storedObject } from '../fixture.js';
import type { ObjectSpec } from '../fixture.js';
import { ALL, COMPANY, nums, inverse, textEquals, fieldSort } from './data.js';
import type { TenantStoreCase } from './case.js';

/** Companies and persons whose names differ only by case, accents or folding. */

const UNICODE: readonly ObjectSpec[] = [
  {
    n: 101,
    basicClass: COMPANY,
    name: 'École',
    values: { legalName: 'École Centrale', email: 'josé@example.test' },
  },
  { n: 102, basicClass: COMPANY, name: 'Ärzte', values: { legalName: 'ÄRZTE GmbH' } },
  { n: 103, basicClass: COMPANY, name: 'Omega', values: { legalName: 'Ωmega' } },
  {
    n: 104,
    basicClass: COMPANY,
    name: 'Straße',
    values: { legalName: 'Straße 1', email: 'straße@example.test' },
  },
  { n: 105, basicClass: COMPANY, name: 'İstanbul', values: { legalName: 'İstanbul' } },
  { n: 106, basicClass: COMPANY, name: 'Strasse', values: { legalName: 'STRASSE 2' } },
  { n: 107, basicClass: COMPANY, name: 'Istanbul', values: { legalName: 'Istanbul' } },
  { n: 108, basicClass: COMPANY, name: 'ärzte', values: { legalName: 'ärzte ag' } },
  {
    n: 120,
    basicClass: 'ct.person',
    name: 'Élodie Ångström',
    values: { lastName: 'Ångström' },
    links: { [REL.employer]: [101] },
  },
  {
    n: 121,
    basicClass: 'ct.person',
    name: 'ZOË',
    values: { lastName: 'ZOË' },
    links: { [REL.employer]: [104] },
  },
  {
    n: 122,
    basicClass: 'ct.person',
    name: 'zoé',
    values: { lastName: 'zoé' },
    links: { [REL.employer]: [103] },
  },
];
/**
 * Text compares with Unicode case folding (`foldCase`): letters of every script with their
 * other case, ß as "ss", Turkish İ only with itself (i + combining dot), accents still count.
 */
export function describeUnicodeFoldingContract({ store, list }: TenantStoreCase): void {
  describe('Unicode case folding', () => {
    const seedUnicode = () => store.write({ put: UNICODE.map((spec) => storedObject(spec)) });
    const startsWith = (value: string): Filter => ({
      kind: 'startsWith',
      field: 'legalName',
      type: 'TEXT',
      value,
    });
    const employee = (match: 'equals' | 'startsWith', value: string): Filter => ({
      kind: 'relationName',
      relation: inverse(REL.employer),
      match,
      value,
    });

    it.each<[string, Filter[], number[]]>([
      ['É equals é', [textEquals('legalName', 'école centrale')], [101]],
      ['é equals É', [textEquals('legalName', 'ÉCOLE CENTRALE')], [101]],
      ['accents still count', [textEquals('legalName', 'ecole centrale')], []],
      ['Ä starts like ä', [startsWith('ärz')], [102, 108]],
      ['ä starts like Ä', [startsWith('ÄRZ')], [102, 108]],
      ['Ω equals ω', [textEquals('legalName', 'ωMEGA')], [103]],
      ['ß folds to ss', [startsWith('strasse')], [104, 106]],
      ['ss matches ß', [startsWith('STRAß')], [104, 106]],
      ['İ equals only itself, in either case', [textEquals('legalName', 'i\u0307STANBUL')], [105]],
      ['I is not İ', [textEquals('legalName', 'istanbul')], [107]],
      ['a related name equals in the other case', [employee('equals', 'ÉLODIE ÅNGSTRÖM')], [101]],
      ['a related name starts in the other case', [employee('startsWith', 'élo')], [101]],
      ['related names fold ë and é apart', [employee('equals', 'zoë')], [104]],
    ])('%s', async (_label, filters, expected) => {
      await seedUnicode();
      expect(nums(await list({ className: COMPANY, filters }))).toEqual(expected);
    });

    it('sorts by the folded text, ties in creation order', async () => {
      await seedUnicode();
      const sorted = await list({ className: COMPANY, sort: fieldSort('legalName', 'TEXT', 'asc') });
      expect(nums(sorted)).toEqual([107, 105, 104, 106, 108, 102, 101, 103]);
      const byEmployee = await list({
        className: COMPANY,
        filters: [{ kind: 'notEmpty', field: 'legalName', type: 'TEXT' }],
        sort: { key: { kind: 'relationName', relation: inverse(REL.employer) }, direction: 'desc' },
      });
      // ZOË and zoé differ by their accent; Élodie folds to élodie (é sorts after z).
      expect(nums(byEmployee).slice(0, 3)).toEqual([101, 104, 103]);
    });

    it('refuses a unique value held in another case', async () => {
      await seedUnicode();
      for (const email of ['JOSÉ@EXAMPLE.TEST', 'STRASSE@example.test']) {
        const other = storedObject({ n: 130, basicClass: COMPANY, values: { email } });
        await expect(store.write({ put: [other] })).rejects.toBeInstanceOf(ConflictError);
      }
      await store.write({
        put: [storedObject({ n: 130, basicClass: COMPANY, values: { email: 'jose@example.test' } })],
      });
    });

    it('counts case variants as one distinct value, shown as written', async () => {
      await seedUnicode();
      await store.write({
        put: [storedObject({ n: 131, basicClass: COMPANY, values: { legalName: 'straße 1' } })],
      });
      const buckets = await store.distinct(
        {
          className: COMPANY,
          filters: [startsWith('STRASSE 1')],
          target: { kind: 'field', field: 'legalName', type: 'TEXT' },
          order: 'value',
        },
        ALL,
      );
      expect(buckets).toHaveLength(1);
      expect(['Straße 1', 'straße 1']).toContain(buckets[0]!.value);
      expect(buckets[0]!.count).toBe(2);
      const all = await store.distinct(
        {
          className: COMPANY,
          filters: [],
          target: { kind: 'field', field: 'legalName', type: 'TEXT' },
          order: 'value',
        },
        ALL,
      );
      expect(all.map((bucket) => bucket.value)).toContain('École Centrale');
      expect(all.map((bucket) => bucket.value)).toContain('Ωmega');
    });
  });
}
