import type { StoredObject } from '@odp/core';
import { SYSTEM, crmFixture } from '../test/crm-fixture.js';
import type { CrmFixture } from '../test/crm-fixture.js';
import { EXPORT_PAGE_SIZE } from './tabular.js';

let crm: CrmFixture;
beforeEach(async () => {
  crm = await crmFixture();
});
afterEach(async () => {
  await crm.close();
});

const at = (index: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString();
const uuid = (kind: number, index: number) =>
  `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;

function person(index: number, classes: string[] = ['crm.person']): StoredObject {
  return {
    id: uuid(1, index),
    basicClass: 'crm.person',
    classes,
    name: `P${index} Person`,
    values: {
      firstName: `P${index}`,
      lastName: 'Person',
      ...(classes.length > 1 ? { sharePercentage: 5 } : {}),
    },
    links: {},
    createdAt: at(index),
    modifiedAt: at(index),
  };
}

async function exportedIds(plural: string, params = ''): Promise<Map<string, string[]>> {
  const sheets = await crm.data.exportSheets(SYSTEM, { typeName: plural }, new URLSearchParams(params));
  const bySheet = new Map<string, string[]>();
  for (const sheet of sheets) {
    const ids: string[] = [];
    for await (const page of sheet.pages()) {
      expect(page.length).toBeLessThanOrEqual(EXPORT_PAGE_SIZE);
      for (const object of page) {
        const self = (object['_links'] as { _self: { href: string } })._self.href;
        ids.push(self.slice(-36));
      }
    }
    bySheet.set(sheet.cls.plural, ids);
  }
  return bySheet;
}

describe('export sheets', () => {
  it('reads the whole selection across pages, in the list order', async () => {
    const count = EXPORT_PAGE_SIZE * 2 + 7;
    crm.store.bulkWrite(Array.from({ length: count }, (_, index) => person(index)));
    const all = await exportedIds('persons');
    expect(all.get('persons')).toEqual(Array.from({ length: count }, (_, index) => uuid(1, index)));
    const sorted = await exportedIds('persons', 'sort=firstName,desc&size=3&page=2');
    expect(sorted.get('persons')).toHaveLength(count);
    // firstName descending is text order: the first row is the largest P<index> as text.
    const largest =
      Array.from({ length: count }, (_, index) => `P${index}`)
        .sort()
        .at(-1) ?? '';
    expect(sorted.get('persons')?.[0]).toBe(uuid(1, Number(largest.slice(1))));
    const filtered = await exportedIds('persons', 'firstName=P7');
    expect(filtered.get('persons')).toEqual([uuid(1, 7)]);
  });

  it('one sheet per concrete class; objects gaining a role class in a sheet of that class', async () => {
    expect(
      (await crm.data.exportSheets(SYSTEM, { typeName: 'organisations' }, new URLSearchParams())).map(
        (sheet) => sheet.cls.plural,
      ),
    ).toEqual(['companies']);
    crm.store.bulkWrite([person(1), person(2, ['crm.person', 'crm.shareholder'])]);
    const shareholders = await exportedIds('shareholders');
    expect([...shareholders.keys()]).toEqual(['shareholders']);
    expect(shareholders.get('shareholders')).toEqual([uuid(1, 2)]);
    const sheets = await crm.data.exportSheets(SYSTEM, { typeName: 'shareholders' }, new URLSearchParams());
    expect(sheets[0]?.columns.fields.map((field) => field.name)).toEqual([
      'sharePercentage',
      'shareholderSince',
    ]);
  });

  it('columns: visible fields (no hidden, no SECRET) and settable relations only', async () => {
    const [companies] = await crm.data.exportSheets(SYSTEM, { typeName: 'companies' }, new URLSearchParams());
    const fields = companies?.columns.fields.map((field) => field.name) ?? [];
    expect(fields).toContain('legalName');
    expect(fields).not.toContain('displayName');
    expect(fields).not.toContain('apiToken');
    expect(companies?.columns.relations.map((end) => end.name)).toEqual(['employees', 'shareholders']);
  });

  it('refuses q and unknown classes', async () => {
    await expect(
      crm.data.exportSheets(SYSTEM, { typeName: 'persons' }, new URLSearchParams('q=ann')),
    ).rejects.toThrow('full-text');
    await expect(
      crm.data.exportSheets(SYSTEM, { typeName: 'nothings' }, new URLSearchParams()),
    ).rejects.toThrow('Unknown class');
  });
});
