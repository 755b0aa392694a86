/**
 * The SearchIndex contract, backend-neutral. `open` returns a fresh, empty store with its search
 * index; objects are written through the store, and indexed through `index` as well when the index
 * is not maintained by the store.
 */
import { ValidationError } from '@odp/core';
import type { AccessFilter } from '@odp/core';
import type { SearchIndex, SearchQuery } from '@odp/core';
import { searchTextOf, searchTerms } from '@odp/core';
import type { StoredObject, TenantStore } from '@odp/core';
import type { ObjectSpec } from './fixture.js';
import { contractModel, storedObject, uuid } from './fixture.js';
import { perCase } from './per-case.js';

const ALL: AccessFilter = { kind: 'all' };
const COMPANIES = ['ct.company'];

function nums(ids: readonly string[]): number[] {
  return ids.map((id) => Number(id.slice(-12)));
}

const DATA: readonly ObjectSpec[] = [
  {
    n: 1,
    basicClass: 'ct.company',
    name: 'Café Zürich',
    values: { legalName: 'Café Zürich AG', kind: 'bv' },
  },
  {
    n: 2,
    basicClass: 'ct.company',
    name: 'Cafeteria Roma',
    values: { legalName: 'Cafeteria Roma SRL', kind: 'nv' },
  },
  {
    n: 3,
    basicClass: 'ct.company',
    name: 'Rome Imports',
    values: { legalName: 'Rome Imports', notes: 'secretword', internalCode: 'hiddenword', apiKey: 'keyword' },
  },
  { n: 4, basicClass: 'ct.person', name: 'Roma Person', values: { lastName: 'Roma' } },
  { n: 5, basicClass: 'ct.subsidiary', name: 'Zurich Branch', values: { legalName: 'Zurich Branch' } },
];

export interface SearchContractTarget {
  readonly store: TenantStore;
  readonly search: SearchIndex;
}

export function describeSearchIndexContract(name: string, open: () => Promise<SearchContractTarget>): void {
  describe(`SearchIndex contract: ${name}`, () => {
    const target = perCase(open, (opened) => opened.store.close());
    beforeEach(() => target.store.applyModel(contractModel));
    describeSearchMatchingContract(target);
    describeSearchPagingContract(target);
  });
}

/** Writes objects through the store, and indexes them too unless the store maintains the index. */
async function put(target: SearchContractTarget, objects: readonly StoredObject[]): Promise<void> {
  await target.store.write({ put: objects });
  if (!target.search.maintainedByStore) {
    await target.search.index(
      objects.map((object) => ({
        id: object.id,
        classes: object.classes,
        aclIds: [],
        text: searchTextOf(contractModel, object),
      })),
    );
  }
}
/** Writes and indexes the data set. */
const seed = (target: SearchContractTarget) =>
  put(
    target,
    DATA.map((spec) => storedObject(spec)),
  );
/** The object numbers of the matches of `text`, ascending. */
const find = async (
  target: SearchContractTarget,
  text: string,
  classes: readonly string[] = COMPANIES,
  access: AccessFilter = ALL,
) => nums((await target.search.search({ text, classes, size: 50 }, access)).ids).sort((a, b) => a - b);

/** Matching by folded terms and prefixes within the class scope, under the access filter, after updates. */
function describeSearchMatchingContract(target: SearchContractTarget): void {
  it.each([
    ['a whole word', 'Zürich', [1, 5]],
    ['a prefix', 'caf', [1, 2]],
    ['without accents', 'cafe zurich', [1]],
    ['in another case', 'ROME', [3]],
    ['typed with combining accents', 'cafe\u0301', [1, 2]],
    ['terms combined with AND', 'roma cafeteria', [2]],
    ['a LIST key', 'bv', [1]],
    ['a LIST label', 'public', [2]],
    ['no LONGTEXT, hidden or SECRET values', 'secretword hiddenword keyword', []],
    ['nothing', 'nothingmatches', []],
    ['an empty query', '', []],
    ['only punctuation', '"*:-()', []],
  ] as const)('finds %s', async (_label, text, expected) => {
    await seed(target);
    expect(await find(target, text)).toEqual([...expected]);
  });

  it.each([
    '"caf',
    'caf*',
    'NEAR(caf roma)',
    'legalName:caf',
    '-caf',
    '(caf',
    'caf OR roma',
    'caf AND',
    '^caf',
  ])('treats engine syntax in %j as plain separators', async (text) => {
    await seed(target);
    const expected = await find(target, searchTerms(text).join(' '));
    expect(await find(target, text)).toEqual(expected);
  });

  it('refuses a query of too many terms', async () => {
    await seed(target);
    await expect(
      target.search.search({ text: 'a '.repeat(5000), classes: COMPANIES, size: 20 }, ALL),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('keeps to the class scope (subclasses and several classes included)', async () => {
    await seed(target);
    expect(await find(target, 'roma', ['ct.person'])).toEqual([4]);
    expect(await find(target, 'roma', ['ct.person', 'ct.company'])).toEqual([2, 4]);
    expect(await find(target, 'zurich', ['ct.subsidiary'])).toEqual([5]);
    expect(await find(target, 'roma', ['ct.nothing'])).toEqual([]);
  });

  it('applies the access filter', async () => {
    await seed(target);
    await target.store.write({
      aclRows: [{ objectId: uuid(2), rows: [{ acId: 'A', nodeId: 'n', definition: 'd' }] }],
    });
    if (!target.search.maintainedByStore) {
      const object = (await target.store.get(uuid(2), ALL))!;
      await target.search.index([
        {
          id: object.id,
          classes: object.classes,
          aclIds: ['A'],
          text: searchTextOf(contractModel, object),
        },
      ]);
    }
    const acl = (acIds: string[]): AccessFilter => ({
      kind: 'acl',
      protectedClasses: ['ct.company'],
      acIds,
    });
    expect(await find(target, 'caf', COMPANIES, acl([]))).toEqual([]);
    expect(await find(target, 'caf', COMPANIES, acl(['A']))).toEqual([2]);
    expect(await find(target, 'roma', ['ct.person', 'ct.company'], acl([]))).toEqual([4]);
  });

  it('follows updates and deletes', async () => {
    await seed(target);
    await put(target, [storedObject({ ...DATA[1]!, name: 'Trattoria', values: { legalName: 'Trattoria' } })]);
    await target.store.write({ delete: [uuid(1)] });
    if (!target.search.maintainedByStore) await target.search.remove([uuid(1)]);
    expect(await find(target, 'caf')).toEqual([]);
    expect(await find(target, 'tratt')).toEqual([2]);
  });
}

/** Ranking, cursor paging stable under writes, refused cursors, and rebuilding the index. */
function describeSearchPagingContract(target: SearchContractTarget): void {
  it('ranks the closer match first', async () => {
    await put(target, [
      storedObject({ n: 10, basicClass: 'ct.company', name: 'Alpha', values: { legalName: 'Alpha' } }),
      storedObject({
        n: 11,
        basicClass: 'ct.company',
        name: 'Beta',
        values: { legalName: 'Beta Gamma Delta Epsilon Zeta Eta Theta alpha' },
      }),
    ]);
    const page = await target.search.search({ text: 'alpha', classes: COMPANIES, size: 10 }, ALL);
    expect(nums(page.ids)).toEqual([10, 11]);
  });

  it('pages with a cursor through every match once, stable under inserts', async () => {
    await put(
      target,
      Array.from({ length: 25 }, (_, index) =>
        storedObject({ n: 100 + index, basicClass: 'ct.company', name: `Widget ${index}` }),
      ),
    );
    const query: SearchQuery = { text: 'widget', classes: COMPANIES, size: 10 };
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await target.search.search({ ...query, ...(cursor === undefined ? {} : { cursor }) }, ALL);
      seen.push(...nums(page.ids));
      cursor = page.next ?? undefined;
      pages += 1;
      if (pages === 1)
        await put(target, [storedObject({ n: 200, basicClass: 'ct.company', name: 'Widget new' })]);
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, index) => 100 + index));
  });

  /**
   * Paging guarantee: the pages of one query, followed to the end, give every object that
   * matched at the first page exactly once, in the order of the first page's ranking, whatever
   * is written meanwhile (a match deleted before its page is absent; new objects are not part of
   * this paging).
   */
  it('keeps the first page ranking while shown matches are deleted and long documents inserted', async () => {
    await put(
      target,
      Array.from({ length: 12 }, (_, index) =>
        storedObject({
          n: 100 + index,
          basicClass: 'ct.company',
          name: `Gadget ${'gadget '.repeat(index % 4)}${'filler '.repeat(index)}`.trim(),
        }),
      ),
    );
    const query: SearchQuery = { text: 'gadget', classes: COMPANIES, size: 3 };
    const whole = nums((await target.search.search({ ...query, size: 100 }, ALL)).ids);
    expect([...whole].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, index) => 100 + index));
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await target.search.search({ ...query, ...(cursor === undefined ? {} : { cursor }) }, ALL);
      seen.push(...nums(page.ids));
      cursor = page.next ?? undefined;
      pages += 1;
      await target.store.write({ delete: [uuid(seen.at(-1) ?? 0)] });
      await put(
        target,
        Array.from({ length: 20 }, (_, index) =>
          storedObject({
            n: 1000 + pages * 100 + index,
            basicClass: 'ct.company',
            name: `Unrelated ${'lorem ipsum dolor '.repeat(30)}`,
          }),
        ),
      );
      await put(target, [
        storedObject({ n: 900 + pages, basicClass: 'ct.company', name: 'Gadget gadget gadget' }),
      ]);
    } while (cursor !== undefined);
    expect(pages).toBe(4);
    expect(seen).toEqual(whole);
  });

  it.each([
    ['a forged cursor', () => 'eyJmb28iOjF9.AAAAAAAAAAAAAAAAAAAAAA'],
    ['garbage', () => 'not a cursor'],
  ])('refuses %s', async (_label, cursor) => {
    await seed(target);
    await expect(
      target.search.search({ text: 'caf', classes: COMPANIES, size: 1, cursor: cursor() }, ALL),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('refuses a cursor of another query or a tampered one', async () => {
    await seed(target);
    const first = await target.search.search({ text: 'caf', classes: COMPANIES, size: 1 }, ALL);
    expect(first.next).not.toBeNull();
    const next = first.next!;
    await expect(
      target.search.search({ text: 'roma', classes: COMPANIES, size: 1, cursor: next }, ALL),
    ).rejects.toBeInstanceOf(ValidationError);
    const tampered = `${next.slice(0, 5)}${next[5] === 'A' ? 'B' : 'A'}${next.slice(6)}`;
    await expect(
      target.search.search({ text: 'caf', classes: COMPANIES, size: 1, cursor: tampered }, ALL),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('rebuilds the index from the stored objects', async () => {
    await seed(target);
    expect(await target.search.rebuild(contractModel)).toBe(DATA.length);
    expect(await find(target, 'caf')).toEqual([1, 2]);
  });
}
