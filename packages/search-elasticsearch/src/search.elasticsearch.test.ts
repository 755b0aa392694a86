import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import type { AccessFilter, StoredObject } from '@odp/core';
import { ValidationError, searchTextOf } from '@odp/core';
import {
  contractModel,
  describeSearchIndexContract,
  describeWithEngine,
  storedObject,
  uuid,
} from '@odp/testkit';
import { openSqliteTenantStore } from '@odp/store-sqlite';
import type { SqliteTenantStore } from '@odp/store-sqlite';
import { foldSearchText } from './engine-query.js';
import { ElasticsearchSearchIndex } from './search-elasticsearch.js';

const ALL: AccessFilter = { kind: 'all' };
const COMPANIES = ['ct.company'];

describe('foldSearchText', () => {
  it.each([
    ['Café Zürich', 'cafe zurich'],
    ['cafe\u0301', 'cafe'],
    ['ÅNGSTRÖM', 'angstrom'],
    ['İstanbul', 'istanbul'],
    ['ﬁne Ｗｉｄｅ', 'fine wide'],
    ['ΆΘΗΝΑ', 'αθηνα'],
    ['Ёлка', 'елка'],
    ['한국어 東京', '한국어 東京'],
    ['हिन्दी', 'हिन्दी'],
    ['carla@globex.example', 'carla globex example'],
    ["O'Brien-Smith", 'o brien smith'],
  ])('folds %j to %j', (text, folded) => {
    expect(foldSearchText(text)).toBe(folded);
  });
});

describeWithEngine('search-elasticsearch', 'ODP_TEST_ELASTICSEARCH_URL', (url) => {
  const client = new Client({ node: url });
  const dir = mkdtempSync(join(tmpdir(), 'odp-search-es-'));
  const indexes: ElasticsearchSearchIndex[] = [];
  afterAll(async () => {
    for (const index of indexes) await index.drop();
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An SQLite store for the documents, paired with a fresh tenant index on the real node. */
  function open(): { store: SqliteTenantStore; search: ElasticsearchSearchIndex } {
    const store = openSqliteTenantStore({ file: join(dir, `${randomUUID()}.db`) });
    const search = new ElasticsearchSearchIndex({
      client,
      alias: `odp-test-${randomUUID()}`,
      store,
      secret: randomBytes(32),
      refresh: true,
      replicas: 0,
    });
    indexes.push(search);
    return { store, search };
  }

  describeSearchIndexContract('elasticsearch', async () => open());

  describe('beyond the contract', () => {
    let store: SqliteTenantStore;
    let search: ElasticsearchSearchIndex;
    beforeEach(async () => {
      ({ store, search } = open());
      await store.applyModel(contractModel);
    });
    afterEach(async () => {
      await store.close();
    });

    async function put(objects: readonly StoredObject[], aclIds: readonly string[] = []): Promise<void> {
      await store.write({ put: objects });
      await search.index(
        objects.map((object) => ({
          id: object.id,
          classes: object.classes,
          aclIds,
          text: searchTextOf(contractModel, object),
        })),
      );
    }
    const company = (n: number, name: string) => storedObject({ n, basicClass: 'ct.company', name });
    const find = async (text: string) =>
      (await search.search({ text, classes: COMPANIES, size: 50 }, ALL)).ids.map((id) =>
        Number(id.slice(-12)),
      );

    it.each([
      ['a ligature and full-width letters', 'finance tokyo', [1]],
      ['Greek with tonos', 'αθηνα', [2]],
      ['a dotted capital I', 'istan', [3]],
      ['CJK ideographs, prefix of a run', '東京', [4]],
      ['a long word beyond the indexed prefixes', 'donaudampfschiff', [5]],
      ['a word after a dot of an address', 'example', [6]],
    ])('finds %s', async (_label, text, expected) => {
      await put([company(1, 'ﬁnance Ｔｏｋｙｏ'), company(2, 'Αθήνα'), company(3, 'İSTANBUL')]);
      await put([
        company(4, '東京都庁'),
        company(5, 'Donaudampfschifffahrt'),
        company(6, 'carla@globex.example'),
      ]);
      expect(await find(text)).toEqual(expected);
    });

    it('leaves out of later pages what was deleted or hidden since the first page', async () => {
      await put(Array.from({ length: 6 }, (_, index) => company(100 + index, `Widget ${index}`)));
      const acl = (acIds: string[]): AccessFilter => ({ kind: 'acl', protectedClasses: COMPANIES, acIds });
      await search.index(
        (await store.getMany([uuid(100), uuid(101), uuid(102), uuid(103), uuid(104), uuid(105)], ALL)).map(
          (object) => ({ id: object.id, classes: object.classes, aclIds: ['A'], text: object.name! }),
        ),
      );
      const query = { text: 'widget', classes: COMPANIES, size: 2 };
      const whole = (await search.search({ ...query, size: 10 }, acl(['A']))).ids;
      expect(whole).toHaveLength(6);
      const first = await search.search(query, acl(['A']));
      expect(first.ids).toEqual(whole.slice(0, 2));
      await search.remove([whole[2]!]);
      const hidden = (await store.get(whole[3]!, ALL))!;
      await search.index([{ id: hidden.id, classes: hidden.classes, aclIds: ['B'], text: hidden.name! }]);
      const second = await search.search({ ...query, cursor: first.next! }, acl(['A']));
      expect(second.ids).toEqual(whole.slice(4, 6));
      expect(second.next).toBeNull();
    });

    it('refuses a cursor whose point-in-time is gone', async () => {
      await put([company(1, 'Widget one'), company(2, 'Widget two')]);
      const first = await search.search({ text: 'widget', classes: COMPANIES, size: 1 }, ALL);
      const pit = JSON.parse(Buffer.from(first.next!.split('.')[0]!, 'base64url').toString()) as {
        pit: string;
      };
      await client.closePointInTime({ id: pit.pit });
      await expect(
        search.search({ text: 'widget', classes: COMPANIES, size: 1, cursor: first.next! }, ALL),
      ).rejects.toBeInstanceOf(ValidationError);
    });

    it('rebuilds into a new index, swaps the alias and keeps the position', async () => {
      await put([company(1, 'Alpha'), company(2, 'Beta')]);
      await store.write({
        aclRows: [{ objectId: uuid(2), rows: [{ acId: 'A', nodeId: 'n', definition: 'd' }] }],
      });
      const before = await search.concreteIndex();
      const seven = { cursor: 'seven', ordinal: 7 };
      await search.savePosition(before, seven);
      expect(await search.rebuild(contractModel)).toBe(2);
      const after = await search.concreteIndex();
      expect(after).not.toBe(before);
      expect(await client.indices.exists({ index: before })).toBe(false);
      expect(await search.position(after)).toEqual(seven);
      const acl: AccessFilter = { kind: 'acl', protectedClasses: COMPANIES, acIds: ['A'] };
      expect((await search.search({ text: 'beta', classes: COMPANIES, size: 5 }, acl)).ids).toEqual([
        uuid(2),
      ]);
      expect((await search.search({ text: 'alpha', classes: COMPANIES, size: 5 }, acl)).ids).toEqual([]);

      // An indexer that saved its position into the old index just after the swap re-created it.
      await search.savePosition(before, { cursor: 'eight', ordinal: 8 });
      expect(await client.indices.exists({ index: before })).toBe(true);
      await search.rebuild(contractModel);
      expect(await client.indices.exists({ index: before })).toBe(false);
      expect(await client.indices.exists({ index: after })).toBe(false);
      expect(await search.position(await search.concreteIndex())).toEqual(seven);
    });

    it('never puts back an older state than the one indexed', async () => {
      await store.write({ put: [company(1, 'Newer')] });
      const index = await search.concreteIndex();
      const document = (name: string) => ({ id: uuid(1), classes: COMPANIES, aclIds: [], text: name });
      await search.apply(index, [{ document: document('Newer'), version: 5 }]);
      await search.apply(index, [{ document: document('Older'), version: 4 }]);
      expect(await find('newer')).toEqual([1]);
      expect(await find('older')).toEqual([]);
      await search.apply(index, [{ removeId: uuid(1), version: 3 }]);
      expect(await find('newer')).toEqual([1]);
      await search.apply(index, [{ removeId: uuid(1), version: 6 }]);
      expect(await find('newer')).toEqual([]);
    });
  });
});
