import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import type { AccessFilter, NewChangeEvent, StoredObject } from '@odp/core';
import { contractModel, describeWithEngine, storedObject, uuid } from '@odp/testkit';
import { openSqliteTenantStore } from '@odp/store-sqlite';
import type { SqliteTenantStore } from '@odp/store-sqlite';
import { SearchIndexer } from './indexer.js';
import { ElasticsearchSearchIndex } from './search-elasticsearch.js';

const ALL: AccessFilter = { kind: 'all' };
const COMPANIES = ['ct.company'];
const AT = '2026-01-01T00:00:00.000Z';

describeWithEngine('search-elasticsearch indexer', 'ODP_TEST_ELASTICSEARCH_URL', (url) => {
  const client = new Client({ node: url });
  const dir = mkdtempSync(join(tmpdir(), 'odp-indexer-es-'));
  let store: SqliteTenantStore;
  let alias: string;
  const indexes: ElasticsearchSearchIndex[] = [];

  /** A fresh adapter on the tenant's alias: what a restarted process has. */
  function searchIndex(): ElasticsearchSearchIndex {
    const index = new ElasticsearchSearchIndex({
      client,
      alias,
      store,
      secret: randomBytes(32),
      replicas: 0,
    });
    indexes.push(index);
    return index;
  }
  const indexer = (index: ElasticsearchSearchIndex) =>
    new SearchIndexer({ store, index, model: () => contractModel, batchSize: 3 });

  beforeEach(async () => {
    store = openSqliteTenantStore({ file: join(dir, `${randomUUID()}.db`) });
    await store.applyModel(contractModel);
    alias = `odp-test-${randomUUID()}`;
  });
  afterEach(async () => {
    await store.close();
  });
  afterAll(async () => {
    for (const index of indexes) await index.drop();
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const company = (n: number, name: string): StoredObject =>
    storedObject({ n, basicClass: 'ct.company', name });
  const event = (type: NewChangeEvent['type'], object: StoredObject, loserId?: string): NewChangeEvent => ({
    type,
    objectId: object.id,
    classes: object.classes,
    at: AT,
    ...(loserId === undefined ? {} : { loserId }),
  });
  async function create(...objects: StoredObject[]): Promise<void> {
    await store.write({ put: objects, events: objects.map((object) => event('create', object)) });
  }
  const find = async (index: ElasticsearchSearchIndex, text: string, access: AccessFilter = ALL) =>
    (await index.search({ text, classes: COMPANIES, size: 50 }, access)).ids
      .map((id) => Number(id.slice(-12)))
      .sort((a, b) => a - b);

  it('indexes created objects and saves its position', async () => {
    const index = searchIndex();
    await create(
      company(1, 'Acme Works'),
      company(2, 'Acme Trading'),
      company(3, 'Other'),
      company(4, 'Acme Four'),
    );
    expect(await indexer(index).catchUp()).toBe(4);
    expect(await find(index, 'acme')).toEqual([1, 2, 4]);
    const head = await store.events.head();
    expect(await index.position(await index.concreteIndex())).toEqual({
      cursor: head,
      ordinal: store.events.ordinal(head),
    });
    expect(await indexer(index).catchUp()).toBe(0);
  });

  it('catches up after downtime with updates, deletes, merges and ACL changes', async () => {
    await create(company(1, 'Acme Works'), company(2, 'Acme Trading'), company(3, 'Globex'));
    await indexer(searchIndex()).catchUp();

    const renamed = company(1, 'Initech');
    await store.write({ put: [renamed], events: [event('update', renamed)] });
    await store.write({ delete: [uuid(2)], events: [event('delete', company(2, 'Acme Trading'))] });
    const survivor = company(4, 'Globex Merged');
    await store.write({ put: [survivor], events: [event('create', survivor)] });
    await store.write({ delete: [uuid(3)], events: [event('merge', survivor, uuid(3))] });
    await store.write({
      aclRows: [{ objectId: uuid(4), rows: [{ acId: 'A', nodeId: 'n', definition: 'd' }] }],
      events: [event('update', survivor)],
    });

    const restarted = searchIndex();
    expect(await indexer(restarted).catchUp()).toBe(5);
    expect(await find(restarted, 'acme')).toEqual([]);
    expect(await find(restarted, 'initech')).toEqual([1]);
    expect(await find(restarted, 'globex')).toEqual([4]);
    const acl = (acIds: string[]): AccessFilter => ({ kind: 'acl', protectedClasses: COMPANIES, acIds });
    expect(await find(restarted, 'globex', acl([]))).toEqual([]);
    expect(await find(restarted, 'globex', acl(['A']))).toEqual([4]);
  });

  it('replays the events that raced a rebuild into the rebuilt index', async () => {
    const index = searchIndex();
    await create(company(1, 'Acme Works'));
    await indexer(index).catchUp();
    const created = await store.events.head();
    const renamed = company(1, 'Initech');
    await store.write({ put: [renamed], events: [event('update', renamed)] });
    // The rebuild starts from the position before the update, so the indexer applies it again.
    expect(await index.rebuild(contractModel)).toBe(1);
    expect((await index.position(await index.concreteIndex())).cursor).toBe(created);
    expect(await indexer(index).catchUp()).toBe(1);
    expect(await find(index, 'initech')).toEqual([1]);
  });

  it('runs in the background and picks up new events', async () => {
    const index = searchIndex();
    const errors: unknown[] = [];
    const running = new SearchIndexer({
      store,
      index,
      model: () => contractModel,
      pollMs: 50,
      onError: (error) => errors.push(error),
    });
    running.start();
    try {
      await create(company(1, 'Background Job'));
      running.notify();
      const deadline = Date.now() + 10_000;
      while ((await find(index, 'background')).length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await find(index, 'background')).toEqual([1]);
    } finally {
      await running.stop();
    }
    expect(errors).toEqual([]);
  });
});

// No cluster answers at this address (the discard port): every round fails to connect.
describe('search-elasticsearch indexer, no cluster answering', () => {
  it('reports each failed round with how long the rounds have been failing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'odp-indexer-down-'));
    const store = openSqliteTenantStore({ file: join(dir, 'tenant.db') });
    await store.applyModel(contractModel);
    const client = new Client({ node: 'http://127.0.0.1:9', maxRetries: 0, requestTimeout: 2000 });
    const failing: number[] = [];
    const indexer = new SearchIndexer({
      store,
      index: new ElasticsearchSearchIndex({ client, alias: 'odp-down', store, secret: randomBytes(32) }),
      model: () => contractModel,
      pollMs: 20,
      onError: (_error, failingMs) => failing.push(failingMs),
    });
    indexer.start();
    const deadline = Date.now() + 10_000;
    while (failing.length < 4 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await indexer.stop();
    await client.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    expect(failing.length).toBeGreaterThanOrEqual(4);
    expect(failing[0]).toBe(0);
    expect(failing.at(-1)!).toBeGreaterThan(0);
    expect(failing).toEqual([...failing].sort((a, b) => a - b));
  });
});
