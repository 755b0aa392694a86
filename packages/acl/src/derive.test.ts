import { anchoredAcId, pathlessAcId } from './ids.js';
import { TENANT, crmFixture } from '../test/crm-fixture.js';

const team = (anchor: string): string => anchoredAcId(TENANT, 'companyTeam', anchor);
const own = (person: string): string => anchoredAcId(TENANT, 'ownData', person);
const everything = pathlessAcId(TENANT, 'everything');
const allInvoices = pathlessAcId(TENANT, 'allInvoices');

describe('derivation of ACL rows on the example CRM', () => {
  const rows: [string, string[]][] = [
    ['acme', [`companyTeam/n-company/${team('acme')}`, `everything/n-all-organisations/${everything}`]],
    [
      'inv1',
      [
        `allInvoices/n-all-invoices/${allInvoices}`,
        `companyTeam/n-invoices/${team('acme')}`,
        `everything/n-all-invoices/${everything}`,
      ],
    ],
    ['l3', [`companyTeam/n-lines/${team('globex')}`, `everything/n-all-lines/${everything}`]],
    [
      'd1',
      [
        `companyTeam/n-docs/${team('acme')}`,
        `companyTeam/n-docs/${team('globex')}`,
        `everything/n-all-documents/${everything}`,
      ],
    ],
    ['ann', [`everything/n-all-persons/${everything}`, `ownData/n-self/${own('ann')}`]],
    [
      'carla',
      [
        `everything/n-all-persons/${everything}`,
        `everything/n-all-shareholders/${everything}`,
        `ownData/n-self/${own('carla')}`,
      ],
    ],
    ['n1', [`everything/n-all-notes/${everything}`, `ownData/n-notes/${own('ann')}`]],
  ];
  it.each(rows)('%s carries its anchored, zero-hop and path-less rows', async (id, expected) => {
    const { store } = await crmFixture();
    expect(store.snapshot().rows[id]).toEqual(expected.sort());
  });

  it('derives holdings through grantToUsers, and zero-hop holdings on the anchor itself', async () => {
    const { store } = await crmFixture();
    expect(store.snapshot().holdings).toEqual(
      [
        'companyTeam/acme/ann/st-emp',
        'companyTeam/acme/bob/st-emp',
        'companyTeam/globex/carla/st-emp',
        'ownData/ann/ann/',
        'ownData/bob/bob/',
        'ownData/carla/carla/',
      ].sort(),
    );
  });

  it('gives the same acId for the same tenant, definition and anchor, and differing ones otherwise', () => {
    expect(team('acme')).toBe(anchoredAcId(TENANT, 'companyTeam', 'acme'));
    expect(team('acme')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(
      new Set([team('acme'), team('globex'), own('acme'), anchoredAcId('other', 'companyTeam', 'acme')]).size,
    ).toBe(4);
    expect(pathlessAcId(TENANT, 'everything')).not.toBe(pathlessAcId('other', 'everything'));
  });
});
