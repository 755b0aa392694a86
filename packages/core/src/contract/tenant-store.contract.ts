/**
 * The TenantStore contract, backend-neutral: every adapter runs it unchanged from its own test file
 * (`describeTenantStoreContract('sqlite', open)`). `open` returns a fresh, empty store per test.
 *
 * Orders the contract fixes: lists default to creation order; a sort puts objects without a value
 * first ascending (last descending); ties break by creation order in the sort's direction.
 */
import { ConflictError, NotFoundError, WriteConflictError } from '../errors.js';
import type { AccessFilter } from '../account.js';
import type { DataType, Formula } from '../model.js';
import type { Filter, ListPlan, ListPosition, RelationRef, Selection, Sort } from '../query.js';
import type { IncomingRef, StoredObject, TenantStore, WriteBatch } from '../store.js';
import type { NewJob } from '../jobs.js';
import type { ObjectSpec } from './fixture.js';
import { REL, contractModel, storedObject, uuid } from './fixture.js';
import { buildModel } from './model-builder.js';

const ALL: AccessFilter = { kind: 'all' };
const COMPANY = 'ct.company';

/** Object numbers of objects (the last 12 digits of the contract's UUIDs). */
function nums(objects: readonly { id: string }[]): number[] {
  return objects.map((object) => Number(object.id.slice(-12)));
}

const forward = (key: string): RelationRef => ({ key, direction: 'forward' });
const inverse = (key: string): RelationRef => ({ key, direction: 'inverse' });

/** The shared data set: companies 1-5 and subsidiary 9, persons 20-23, invoices 30-33. */
const DATA: readonly ObjectSpec[] = [
  {
    n: 3,
    basicClass: COMPANY,
    name: 'Initech',
    gained: ['ct.shareholder'],
    values: {
      legalName: 'Initech',
      revenue: 30,
      employees: 100,
      founded: '2010-01-01',
      active: true,
      kind: 'bv',
      share: 5,
    },
  },
  {
    n: 20,
    basicClass: 'ct.person',
    name: 'Ann Smith',
    gained: ['ct.shareholder'],
    values: { lastName: 'Smith', share: 50 },
    links: { [REL.employer]: [1] },
  },
  {
    n: 1,
    basicClass: COMPANY,
    name: 'Acme',
    values: {
      legalName: 'Acme BV',
      revenue: 100,
      employees: 9,
      rating: 4.5,
      margin: 12.5,
      founded: '2001-05-01',
      checkedAt: '2024-03-01T10:00:00+02:00',
      opensAt: '08:30',
      active: true,
      email: 'info@acme.test',
      kind: 'bv',
      tags: ['red', 'blue'],
      notes: 'long notes',
    },
    links: { [REL.shareholders]: [20, 3] },
  },
  {
    n: 2,
    basicClass: COMPANY,
    name: 'Globex',
    values: {
      legalName: 'Globex NV',
      revenue: 2500,
      employees: 10,
      rating: 3,
      founded: '1999-12-31',
      checkedAt: '2024-03-01T09:00:00Z',
      opensAt: '09:00',
      active: false,
      email: 'hi@globex.test',
      kind: 'nv',
      tags: ['blue'],
    },
  },
  {
    n: 4,
    basicClass: COMPANY,
    name: 'Umbrella',
    values: { legalName: 'umbrella corp', employees: 2, active: true },
  },
  { n: 5, basicClass: COMPANY, name: 'Hooli', values: { legalName: 'Hooli', revenue: 100, employees: 50 } },
  {
    n: 9,
    basicClass: 'ct.subsidiary',
    name: 'Acme Sub',
    values: { legalName: 'Acme Subsidiary', revenue: 5, employees: 1, parentCode: 'A1', active: false },
  },
  {
    n: 21,
    basicClass: 'ct.person',
    name: 'Bob Jones',
    values: { lastName: 'Jones' },
    links: { [REL.employer]: [2] },
  },
  {
    n: 22,
    basicClass: 'ct.person',
    name: 'Cy Smith',
    values: { lastName: 'Smith' },
    links: { [REL.employer]: [1] },
  },
  { n: 23, basicClass: 'ct.person', name: 'Di No', values: { lastName: 'No' } },
  { n: 30, basicClass: 'ct.invoice', values: { amount: 10, number: 'I-30' }, links: { [REL.client]: [1] } },
  { n: 31, basicClass: 'ct.invoice', values: { amount: 20, number: 'I-31' }, links: { [REL.client]: [2] } },
  { n: 32, basicClass: 'ct.invoice', values: { amount: 5, number: 'I-32' }, links: { [REL.client]: [1] } },
  { n: 33, basicClass: 'ct.invoice', values: { amount: 7, number: 'I-33' } },
];

export function describeTenantStoreContract(name: string, open: () => Promise<TenantStore>): void {
  describe(`TenantStore contract: ${name}`, () => {
    let store: TenantStore;

    beforeEach(async () => {
      store = await open();
      await store.applyModel(contractModel);
    });
    afterEach(async () => {
      await store.close();
    });

    /** Writes the data set in one batch, in creation (`n`) order. */
    async function seed(): Promise<void> {
      await store.write({ put: [...DATA].sort((a, b) => a.n - b.n).map((spec) => storedObject(spec)) });
    }

    const list = (selection: Partial<ListPlan> & { className: string }, access: AccessFilter = ALL) =>
      store.list({ filters: [], page: 0, size: 100, ...selection }, access);

    describe('objects', () => {
      it('returns a put object whole: classes, name, values, links in order', async () => {
        await seed();
        const company = await store.get(uuid(1), ALL);
        const expected = storedObject({ ...DATA[2]! });
        expect(company).toEqual(expected);
        expect(company?.links[REL.shareholders]).toEqual([uuid(20), uuid(3)]);
        expect((await store.get(uuid(20), ALL))?.classes).toEqual(['ct.person', 'ct.shareholder']);
      });

      it('answers null for a missing object and leaves missing ids out of getMany', async () => {
        await seed();
        expect(await store.get(uuid(999), ALL)).toBeNull();
        expect(nums(await store.getMany([uuid(2), uuid(999), uuid(21)], ALL)).sort((a, b) => a - b)).toEqual([
          2, 21,
        ]);
        expect(await store.getMany([], ALL)).toEqual([]);
      });

      it('replaces an object whole on a second put (values and links)', async () => {
        await seed();
        await store.write({
          put: [
            storedObject({
              n: 22,
              basicClass: 'ct.person',
              name: 'Cy Smith',
              values: { lastName: 'Smythe' },
            }),
          ],
        });
        const person = await store.get(uuid(22), ALL);
        expect(person?.values).toEqual({ lastName: 'Smythe' });
        expect(person?.links).toEqual({});
        expect(
          nums(await list({ className: 'ct.person', filters: [textEquals('lastName', 'Smith')] })),
        ).toEqual([20]);
      });

      it('deletes an object with its links in both directions', async () => {
        await seed();
        await store.write({ delete: [uuid(2)] });
        expect(await store.get(uuid(2), ALL)).toBeNull();
        expect((await store.get(uuid(21), ALL))?.links).toEqual({});
        expect(await store.linksTo(uuid(2))).toEqual([]);
        expect(nums(await list({ className: COMPANY }))).toEqual([1, 3, 4, 5, 9]);
      });

      it('lists the objects linking to an object with the relation key', async () => {
        await seed();
        const links = await store.linksTo(uuid(1));
        expect(links.map((link) => `${Number(link.sourceId.slice(-12))} ${link.relationKey}`).sort()).toEqual(
          [`20 ${REL.employer}`, `22 ${REL.employer}`, `30 ${REL.client}`, `32 ${REL.client}`],
        );
      });

      it('answers refs (id, BASIC class, name) of objects, leaving missing ids out', async () => {
        await seed();
        const refs = await store.refsOf([uuid(1), uuid(30), uuid(99)], ALL);
        expect([...refs].sort((a, b) => a.id.localeCompare(b.id))).toEqual([
          { id: uuid(1), basicClass: COMPANY, name: 'Acme' },
          { id: uuid(30), basicClass: 'ct.invoice', name: 'object 30' },
        ]);
        expect(await store.refsOf([], ALL)).toEqual([]);
      });

      it('answers the links to many objects with refs of the linking objects, per relation as linksTo', async () => {
        await seed();
        const incoming = await store.incomingRefs([uuid(1), uuid(2), uuid(99)], ALL);
        for (const target of [uuid(1), uuid(2)]) {
          const expected = await store.linksTo(target);
          for (const key of [REL.employer, REL.client]) {
            expect(
              incoming
                .filter((ref) => ref.targetId === target && ref.relationKey === key)
                .map((ref) => ref.id),
            ).toEqual(expected.filter((link) => link.relationKey === key).map((link) => link.sourceId));
          }
        }
        expect(incoming).toHaveLength(6);
        expect(incoming.find((ref) => ref.id === uuid(22))).toEqual({
          targetId: uuid(1),
          relationKey: REL.employer,
          id: uuid(22),
          basicClass: 'ct.person',
          name: 'Cy Smith',
        });
        expect(await store.incomingRefs([uuid(23)], ALL)).toEqual([]);
      });

      it('reads only the bounded links: the named relations, the first `limit` per target and relation', async () => {
        await seed();
        const linkers = (refs: readonly IncomingRef[], target: number, key: string) =>
          nums(refs.filter((ref) => ref.targetId === uuid(target) && ref.relationKey === key));
        const both = await store.incomingRefs([uuid(1), uuid(2)], ALL, {
          relationKeys: [REL.employer, REL.client],
          limit: 1,
        });
        expect(both).toHaveLength(4);
        expect(linkers(both, 1, REL.employer)).toEqual([20]);
        expect(linkers(both, 1, REL.client)).toEqual([30]);
        expect(linkers(both, 2, REL.employer)).toEqual([21]);
        expect(linkers(both, 2, REL.client)).toEqual([31]);
        const clients = await store.incomingRefs([uuid(1)], ALL, { relationKeys: [REL.client], limit: 5 });
        expect(nums(clients)).toEqual([30, 32]);
        expect(clients.every((ref) => ref.relationKey === REL.client)).toBe(true);
        expect(
          await store.incomingRefs([uuid(1)], ALL, { relationKeys: ['ct.no#relation'], limit: 5 }),
        ).toEqual([]);
      });

      it('scans every object in id order, a page at a time', async () => {
        await seed();
        const first = await store.scan(null, 5);
        const rest = await store.scan(first.at(-1)!.id, 100);
        const ids = [...first, ...rest].map((object) => object.id);
        expect(first).toHaveLength(5);
        expect(ids).toEqual([...ids].sort());
        expect(ids).toHaveLength(DATA.length);
      });
    });

    /**
     * Text compares with Unicode case folding (`foldCase`): letters of every script with their
     * other case, ß as "ss", Turkish İ only with itself (i + combining dot), accents still count.
     */
    describe('Unicode case folding', () => {
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

    describe('filters', () => {
      const cases: readonly [string, Filter[], number[]][] = [
        ['equals TEXT', [textEquals('legalName', 'Globex NV')], [2]],
        ['equals CURRENCY', [{ kind: 'equals', field: 'revenue', type: 'CURRENCY', value: 100 }], [1, 5]],
        ['equals INTEGER', [{ kind: 'equals', field: 'employees', type: 'INTEGER', value: 10 }], [2]],
        ['equals DECIMAL', [{ kind: 'equals', field: 'rating', type: 'DECIMAL', value: 4.5 }], [1]],
        ['equals PERCENTAGE', [{ kind: 'equals', field: 'margin', type: 'PERCENTAGE', value: 12.5 }], [1]],
        [
          'equals BOOLEAN true',
          [{ kind: 'equals', field: 'active', type: 'BOOLEAN', value: true }],
          [1, 3, 4],
        ],
        [
          'equals BOOLEAN false',
          [{ kind: 'equals', field: 'active', type: 'BOOLEAN', value: false }],
          [2, 9],
        ],
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
        [
          'range DATETIME compares instants',
          [range('checkedAt', 'DATETIME', '2024-03-01T08:30:00.000Z')],
          [2],
        ],
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
        [
          'relation id, inverse side',
          [{ kind: 'relationId', relation: inverse(REL.employer), id: uuid(20) }],
          [1],
        ],
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
          [
            { kind: 'equals', field: 'active', type: 'BOOLEAN', value: true },
            range('employees', 'INTEGER', 5),
          ],
          [1, 3],
        ],
      ];
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
        expect(nums(await list({ className: 'ct.person', filters: [textEquals('nickname', 'Bo')] }))).toEqual(
          [70],
        );
      });
    });

    describe('sorting and paging', () => {
      const sortCases: readonly [string, Sort, number[]][] = [
        ['TEXT asc', fieldSort('legalName', 'TEXT', 'asc'), [1, 9, 2, 5, 3, 4]],
        ['TEXT desc', fieldSort('legalName', 'TEXT', 'desc'), [4, 3, 5, 2, 9, 1]],
        [
          'CURRENCY asc: empty first, ties by creation',
          fieldSort('revenue', 'CURRENCY', 'asc'),
          [4, 9, 3, 1, 5, 2],
        ],
        [
          'CURRENCY desc: empty last, ties reversed',
          fieldSort('revenue', 'CURRENCY', 'desc'),
          [2, 5, 1, 3, 9, 4],
        ],
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

      describe('keyset paging (after a position)', () => {
        /** Every row of the plan's list, walked `size` rows at a time from the position of each page's last row. */
        async function walk(
          plan: Partial<ListPlan> & { className: string },
          size: number,
        ): Promise<number[]> {
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

    describe('distinct, values, aggregate', () => {
      const selection = (className: string, filters: Filter[] = []): Selection => ({ className, filters });

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
          await store.aggregate(
            { ...selection(COMPANY), sum: ['revenue'], avg: [], count: ['revenue'] },
            ALL,
          ),
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
      ] as const)(
        'distinct relation buckets ordered by %s, with the null bucket',
        async (order, expected) => {
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
        },
      );

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
        const tags = await store.values(
          selection(COMPANY, [textEquals('legalName', 'Acme BV')]),
          'tags',
          ALL,
        );
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

    describe('access filter', () => {
      async function seedWithAcl(): Promise<void> {
        await seed();
        await store.write({
          aclRows: [
            { objectId: uuid(1), rows: [{ acId: 'A', nodeId: 'node-a', definition: 'def' }] },
            { objectId: uuid(2), rows: [{ acId: 'B', nodeId: 'node-b', definition: 'def' }] },
          ],
        });
      }
      const acl = (protectedClasses: string[], acIds: string[]): AccessFilter => ({
        kind: 'acl',
        protectedClasses,
        acIds,
      });
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
      it.each(cases)('lists: %s', async (_label, access, expected) => {
        await seedWithAcl();
        expect(nums(await list({ className: COMPANY }, access))).toEqual(expected);
      });

      it('applies to get, getMany, paging, distinct, values and aggregate', async () => {
        await seedWithAcl();
        const access = acl([COMPANY], ['A', 'B']);
        expect(await store.get(uuid(3), access)).toBeNull();
        expect((await store.get(uuid(1), access))?.id).toBe(uuid(1));
        expect(nums(await store.getMany([uuid(1), uuid(3), uuid(20)], access)).sort((a, b) => a - b)).toEqual(
          [1, 20],
        );
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

      it('stores ACL rows and holdings and reports the stored ids', async () => {
        await seedWithAcl();
        expect(await store.aclRowsOf(uuid(1))).toEqual([{ acId: 'A', nodeId: 'node-a', definition: 'def' }]);
        const holding = {
          holderId: uuid(20),
          acId: 'A',
          definition: 'def',
          anchorId: uuid(1),
          stepIds: ['s1', 's2'],
        };
        await store.write({ holdings: [{ anchorId: uuid(1), definition: 'def', rows: [holding] }] });
        expect(await store.holdingsOf(uuid(20))).toEqual([holding]);
        expect(await store.holdingsOfAcId('A')).toEqual([holding]);
        expect(await store.storedAclIds()).toEqual({ nodeIds: ['node-a', 'node-b'], stepIds: ['s1', 's2'] });
        await store.write({ holdings: [{ anchorId: uuid(1), definition: 'def', rows: [] }] });
        expect(await store.holdingsOf(uuid(20))).toEqual([]);
        await store.write({ aclRows: [{ objectId: uuid(1), rows: [] }] });
        expect(await store.aclRowsOf(uuid(1))).toEqual([]);
      });
    });

    describe('writes', () => {
      const company = (n: number, email: string, basicClass = COMPANY): StoredObject =>
        storedObject({ n, basicClass, values: { email } });

      it.each([
        ['another object of the class', company(40, 'info@acme.test')],
        ['an object of a subclass', company(41, 'info@acme.test', 'ct.subsidiary')],
      ])('refuses a unique value held by %s', async (_label, object) => {
        await seed();
        await expect(store.write({ put: [object] })).rejects.toBeInstanceOf(ConflictError);
        expect(await store.get(object.id, ALL)).toBeNull();
      });

      it('accepts a unique value kept by its own object and values freed in the same batch', async () => {
        await seed();
        await store.write({ put: [storedObject(DATA[2]!)] });
        await store.write({ put: [company(42, 'hi@globex.test')], delete: [uuid(2)] });
        expect((await store.get(uuid(42), ALL))?.values).toEqual({ email: 'hi@globex.test' });
      });

      describe('expectations (optimistic concurrency)', () => {
        const read = async (id: string) => {
          const object = await store.get(id, ALL);
          if (object === null) throw new Error(`no object ${id}`);
          return object;
        };
        const renamed = (object: StoredObject, name: string, modifiedAt: string): StoredObject => ({
          ...object,
          name,
          modifiedAt,
        });

        it('applies a batch whose expected objects are as they were read', async () => {
          await seed();
          const before = await read(uuid(1));
          await store.write({
            expect: [
              { id: before.id, modifiedAt: before.modifiedAt },
              { id: uuid(77), modifiedAt: null },
            ],
            put: [renamed(before, 'Renamed', '2031-01-01T00:00:00.000Z')],
          });
          expect((await read(uuid(1))).name).toBe('Renamed');
        });

        it.each([
          [
            'changed since it was read',
            async () => ({ id: uuid(1), modifiedAt: '1999-01-01T00:00:00.000Z' }),
          ],
          [
            'deleted since it was read',
            async () => ({ id: uuid(70), modifiedAt: '2024-01-01T00:00:00.000Z' }),
          ],
          ['created since it was read as absent', async () => ({ id: uuid(2), modifiedAt: null })],
        ])('refuses the whole batch when an expected object was %s', async (_label, expectation) => {
          await seed();
          const before = await read(uuid(1));
          const events = (await store.events.read(null, 100)).events;
          await expect(
            store.write({
              expect: [await expectation()],
              put: [renamed(before, 'Lost', '2031-01-01T00:00:00.000Z')],
              delete: [uuid(3)],
              events: [
                { type: 'update', objectId: uuid(1), classes: [COMPANY], at: '2031-01-01T00:00:00.000Z' },
              ],
            }),
          ).rejects.toBeInstanceOf(WriteConflictError);
          expect(await read(uuid(1))).toEqual(before);
          expect(await store.get(uuid(3), ALL)).not.toBeNull();
          expect((await store.events.read(null, 100)).events).toEqual(events);
        });

        it('lets exactly one of two writers that read the same version win', async () => {
          await seed();
          const version = await read(uuid(1));
          const write = (name: string) =>
            store.write({
              expect: [{ id: version.id, modifiedAt: version.modifiedAt }],
              put: [renamed(version, name, `2031-01-01T00:00:00.00${name === 'First' ? 1 : 2}Z`)],
            });
          const outcomes = await Promise.allSettled([write('First'), write('Second')]);
          expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
          const refused = outcomes.find((outcome) => outcome.status === 'rejected');
          expect(refused?.status === 'rejected' && refused.reason).toBeInstanceOf(WriteConflictError);
          expect(['First', 'Second']).toContain((await read(uuid(1))).name);
        });
      });

      it('applies nothing of a failing batch', async () => {
        await seed();
        const before = (await store.events.read(null, 100)).events;
        const batch: WriteBatch = {
          put: [
            storedObject({ n: 50, basicClass: COMPANY, name: 'Fine' }),
            storedObject({ n: 51, basicClass: 'ct.person', links: { [REL.employer]: [999] } }),
          ],
          delete: [uuid(2)],
          events: [
            { type: 'create', objectId: uuid(50), classes: [COMPANY], at: '2024-01-01T00:00:00.000Z' },
          ],
          jobs: [outboxJob('refused')],
        };
        await expect(store.write(batch)).rejects.toBeInstanceOf(NotFoundError);
        expect(await store.get(uuid(50), ALL)).toBeNull();
        expect(await store.get(uuid(2), ALL)).not.toBeNull();
        expect((await store.events.read(null, 100)).events).toEqual(before);
        expect(await store.outbox(10)).toEqual([]);
        await store.write({ put: [storedObject({ n: 50, basicClass: COMPANY, name: 'Fine' })] });
        expect(nums(await list({ className: COMPANY }))).toEqual([1, 2, 3, 4, 5, 9, 50]);
      });

      it('links objects put in the same batch in any order', async () => {
        await store.write({
          put: [
            storedObject({ n: 61, basicClass: 'ct.person', links: { [REL.employer]: [60] } }),
            storedObject({ n: 60, basicClass: COMPANY }),
          ],
        });
        expect((await store.get(uuid(61), ALL))?.links).toEqual({ [REL.employer]: [uuid(60)] });
      });

      it('resolves redirect chains to the surviving object', async () => {
        await store.write({ put: [storedObject({ n: 62, basicClass: COMPANY })] });
        await store.write({ redirects: [{ from: uuid(61), to: uuid(62) }] });
        await store.write({ redirects: [{ from: uuid(60), to: uuid(61) }] });
        expect(await store.redirectOf(uuid(60))).toBe(uuid(62));
        expect(await store.redirectOf(uuid(61))).toBe(uuid(62));
        expect(await store.redirectOf(uuid(62))).toBeNull();
        await store.write({ delete: [uuid(62)] });
        expect(await store.redirectOf(uuid(60))).toBeNull();
        expect(await store.redirectOf(uuid(61))).toBeNull();
      });

      it('follows successive merges from the first loser to the last survivor', async () => {
        const put = (n: number) => storedObject({ n, basicClass: COMPANY });
        await store.write({ put: [put(70), put(71), put(72)] });
        await store.write({ redirects: [{ from: uuid(70), to: uuid(71) }], delete: [uuid(70)] });
        expect(await store.redirectOf(uuid(70))).toBe(uuid(71));
        await store.write({ redirects: [{ from: uuid(71), to: uuid(72) }], delete: [uuid(71)] });
        expect(await store.redirectOf(uuid(70))).toBe(uuid(72));
        expect(await store.redirectOf(uuid(71))).toBe(uuid(72));
      });

      it('keeps the jobs of a batch in the outbox until they are removed', async () => {
        await store.write({ put: [storedObject({ n: 80, basicClass: COMPANY })], jobs: [outboxJob('a')] });
        await store.write({ jobs: [outboxJob('b'), outboxJob('c')] });
        expect(await store.outbox(10)).toEqual([outboxJob('a'), outboxJob('b'), outboxJob('c')]);
        expect((await store.outbox(2)).map((job) => job.id)).toEqual(['a', 'b']);
        await store.removeFromOutbox(['a', 'c', 'unknown']);
        expect(await store.outbox(10)).toEqual([outboxJob('b')]);
      });
    });
  });
}

function outboxJob(id: string): NewJob {
  return {
    id,
    tenantId: 'contract-tenant',
    kind: 'gateway',
    objectId: uuid(80),
    payload: { script: 'notify', parameters: { url: 'https://example.test/', note: 'ü' } },
    createdAt: '2024-01-01T00:00:00.000Z',
  };
}

function textEquals(field: string, value: string): Filter {
  return { kind: 'equals', field, type: 'TEXT', value };
}

function range(
  field: string,
  type: 'INTEGER' | 'DATE' | 'DATETIME' | 'TIME' | 'PERCENTAGE' | 'CURRENCY',
  from?: string | number,
  to?: string | number,
): Filter {
  return {
    kind: 'range',
    field,
    type,
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  };
}

function fieldSort(field: string, type: DataType, direction: 'asc' | 'desc'): Sort {
  return { key: { kind: 'field', field, type }, direction };
}
