import { MongoClient } from 'mongodb';
import { ConflictError, WriteConflictError } from '@odp/core';
import type { AccessFilter, WriteBatch } from '@odp/core';
import {
  REL,
  contractModel,
  describeEventLogContract,
  describeSearchIndexContract,
  describeTenantStoreContract,
  describeWithEngine,
  itUnlessLacking,
  storedObject,
  uuid,
} from '@odp/testkit';
import { openMongoTenantStore } from './store.js';
import type { MongoTenantStore } from './store.js';

/**
 * What the server under test lacks for cases that need it. `tooling/engines/ferretdb.sh` names its
 * engine in ODP_TEST_MONGODB_ENGINE: FerretDB v1 runs an update as a query, a change in memory and a
 * write of the whole document, so a concurrent update of the same document can be lost (MongoDB
 * applies each single-document update atomically, which the version check of a put relies on).
 */
const ATOMIC_UPDATES = process.env.ODP_TEST_MONGODB_ENGINE?.startsWith('ferretdb')
  ? 'FerretDB v1 updates a document by read-modify-write, not atomically (MongoDB 7+ does)'
  : null;

describeWithEngine('MongoDB tenant store', 'ODP_TEST_MONGODB_URL', (url) => {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000 });
  const opened: MongoTenantStore[] = [];
  let counter = 0;
  const open = async (database = `odp_test_${process.pid}_${++counter}`): Promise<MongoTenantStore> => {
    const store = await openMongoTenantStore({ client, database });
    opened.push(store);
    return store;
  };
  // Some two hundred databases, each dropped by a round trip that FerretDB serves slowly on a busy machine.
  afterAll(async () => {
    for (const store of opened) await store.drop();
    await client.close();
  }, 180_000);

  describeTenantStoreContract('mongodb', () => open());
  describeEventLogContract('mongodb', () => open());
  describeSearchIndexContract('mongodb', async () => {
    const store = await open();
    return { store, search: store.search };
  });

  describe('MongoDB specifics: writes without transactions', () => {
    const ALL: AccessFilter = { kind: 'all' };
    const acl = (acId: string) => [{ acId, nodeId: `node-${acId}`, definition: 'def' }];
    let store: MongoTenantStore;
    beforeEach(async () => {
      store = await open();
      await store.applyModel(contractModel);
    });

    it('keeps creation order and ACL rows when an object is put again', async () => {
      await store.write({ put: [1, 2].map((n) => storedObject({ n, basicClass: 'ct.company' })) });
      await store.write({ aclRows: [{ objectId: uuid(1), rows: acl('A') }] });
      await store.write({ put: [storedObject({ n: 1, basicClass: 'ct.company', name: 'Renamed' })] });
      expect(await store.aclRowsOf(uuid(1))).toEqual(acl('A'));
      const listed = await store.list({ className: 'ct.company', filters: [], page: 0, size: 10 }, ALL);
      expect(listed.map((object) => object.name)).toEqual(['Renamed', 'object 2']);
    });

    itUnlessLacking(
      ATOMIC_UPDATES,
      'loses neither a put nor an ACL change made concurrently to one object',
      async () => {
        await store.write({ put: [storedObject({ n: 1, basicClass: 'ct.company' })] });
        for (let round = 0; round < 10; round += 1) {
          const name = `Name ${round}`;
          await Promise.all([
            store.write({ put: [storedObject({ n: 1, basicClass: 'ct.company', name })] }),
            store.write({ aclRows: [{ objectId: uuid(1), rows: acl(`R${round}`) }] }),
          ]);
          expect((await store.get(uuid(1), ALL))?.name).toBe(name);
          expect(await store.aclRowsOf(uuid(1))).toEqual(acl(`R${round}`));
        }
      },
    );

    it('reaches the same state when a batch without events is applied again (a retry)', async () => {
      const batch: WriteBatch = {
        put: [
          storedObject({ n: 2, basicClass: 'ct.company', values: { email: 'a@x.test' } }),
          storedObject({ n: 3, basicClass: 'ct.person', links: { [REL.employer]: [2] } }),
        ],
        redirects: [{ from: uuid(9), to: uuid(2) }],
        aclRows: [{ objectId: uuid(2), rows: acl('A') }],
        holdings: [
          {
            anchorId: uuid(2),
            definition: 'def',
            rows: [{ holderId: uuid(3), acId: 'A', definition: 'def', anchorId: uuid(2), stepIds: ['s'] }],
          },
        ],
      };
      const state = async () => ({
        objects: await store.scan(null, 100),
        acl: await store.aclRowsOf(uuid(2)),
        holdings: await store.holdingsOf(uuid(3)),
        redirect: await store.redirectOf(uuid(9)),
      });
      await store.write(batch);
      const once = await state();
      await store.write(batch);
      expect(await state()).toEqual(once);
      expect(once.objects).toHaveLength(2);
    });

    it('opens a tenant database written before (another instance, a restart)', async () => {
      await store.write({
        put: [storedObject({ n: 1, basicClass: 'ct.company', values: { email: 'a@x.test' } })],
      });
      const again = await open(store.databaseName);
      await again.applyModel(contractModel);
      expect((await again.get(uuid(1), ALL))?.values).toEqual({ email: 'a@x.test' });
      await again.write({ put: [storedObject({ n: 2, basicClass: 'ct.company' })] });
      expect(await store.scan(null, 10)).toHaveLength(2);
    });

    it('lets one of two concurrent writers of a unique value through', async () => {
      for (let round = 0; round < 8; round += 1) {
        const email = `race${round}@x.test`;
        const results = await Promise.allSettled(
          [10, 20].map((base) =>
            store.write({
              put: [storedObject({ n: base + round, basicClass: 'ct.company', values: { email } })],
            }),
          ),
        );
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
        const refused = results.find((result) => result.status === 'rejected');
        expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
      }
    });

    describe('expectations without transactions (version claims)', () => {
      const rename = async (name: string, modifiedAt: string, read: string | null) => {
        const object = { ...storedObject({ n: 1, basicClass: 'ct.company', name }), modifiedAt };
        return store.write({ expect: [{ id: uuid(1), modifiedAt: read }], put: [object] });
      };
      const claims = () =>
        client.db(store.databaseName).collection<{ _id: string; at: Date }>('versionClaims');
      beforeEach(async () => {
        await store.write({
          put: [
            { ...storedObject({ n: 1, basicClass: 'ct.company' }), modifiedAt: '2030-01-01T00:00:00.000Z' },
          ],
        });
      });

      it('lets exactly one writer of a version through, round after round', async () => {
        let read = '2030-01-01T00:00:00.000Z';
        for (let round = 0; round < 8; round += 1) {
          const next = (writer: number) => `2030-01-02T00:00:${String(round).padStart(2, '0')}.00${writer}Z`;
          const results = await Promise.allSettled(
            [1, 2, 3].map((writer) => rename(`W${writer}`, next(writer), read)),
          );
          expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
          for (const result of results) {
            if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(WriteConflictError);
          }
          read = (await store.get(uuid(1), ALL))?.modifiedAt ?? '';
          expect(read).toBe(next(results.findIndex((result) => result.status === 'fulfilled') + 1));
        }
        expect(await claims().countDocuments({})).toBe(0);
      });

      it('refuses a version claimed by a writer in flight and takes over one left behind', async () => {
        const id = `${uuid(1)}\u00002030-01-01T00:00:00.000Z`;
        await claims().insertOne({ _id: id, at: new Date() });
        await expect(
          rename('Blocked', '2030-01-03T00:00:00.000Z', '2030-01-01T00:00:00.000Z'),
        ).rejects.toBeInstanceOf(WriteConflictError);
        await claims().updateOne({ _id: id }, { $set: { at: new Date(Date.now() - 60_000) } });
        await rename('Taken over', '2030-01-03T00:00:00.000Z', '2030-01-01T00:00:00.000Z');
        expect((await store.get(uuid(1), ALL))?.name).toBe('Taken over');
        expect(await claims().countDocuments({})).toBe(0);
      });

      it('releases the claims of a refused batch, which applies nothing', async () => {
        const refused = store.write({
          expect: [{ id: uuid(1), modifiedAt: '2030-01-01T00:00:00.000Z' }],
          put: [
            {
              ...storedObject({ n: 1, basicClass: 'ct.company', name: 'Lost' }),
              modifiedAt: '2030-01-03T00:00:00.000Z',
            },
            storedObject({ n: 5, basicClass: 'ct.person', links: { [REL.employer]: [999] } }),
          ],
          jobs: [
            {
              id: 'job',
              tenantId: 't',
              kind: 'gateway',
              objectId: null,
              payload: {},
              createdAt: '2030-01-01T00:00:00.000Z',
            },
          ],
        });
        await expect(refused).rejects.toThrow('does not exist');
        expect((await store.get(uuid(1), ALL))?.modifiedAt).toBe('2030-01-01T00:00:00.000Z');
        expect(await store.outbox(10)).toEqual([]);
        expect(await claims().countDocuments({})).toBe(0);
        await rename('Kept', '2030-01-03T00:00:00.000Z', '2030-01-01T00:00:00.000Z');
        expect((await store.get(uuid(1), ALL))?.name).toBe('Kept');
      });
    });

    it('refuses a unique clash before writing anything of the batch', async () => {
      await store.write({
        put: [storedObject({ n: 1, basicClass: 'ct.company', values: { email: 'a@x.test' } })],
      });
      const batch: WriteBatch = {
        put: [
          storedObject({ n: 2, basicClass: 'ct.company' }),
          storedObject({ n: 3, basicClass: 'ct.company', values: { email: 'A@x.test' } }),
        ],
        events: [
          { type: 'create', objectId: uuid(2), classes: ['ct.company'], at: '2024-01-01T00:00:00.000Z' },
        ],
      };
      await expect(store.write(batch)).rejects.toBeInstanceOf(ConflictError);
      expect((await store.scan(null, 10)).map((object) => object.id)).toEqual([uuid(1)]);
      expect((await store.events.read(null, 10)).events).toEqual([]);
    });
  });
});
