import { MongoClient } from 'mongodb';
import { describeWithEngine } from '@odp/testkit';
import { ensureIndexes } from './tenant/collections.js';
import { upsertRacing } from './server-errors.js';

describeWithEngine('MongoDB writes that race between processes', 'ODP_TEST_MONGODB_URL', (url) => {
  const client = new MongoClient(url);
  const db = client.db(`odp_test_races_${process.pid}`);
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('lets every one of many concurrent first upserts of one document succeed', async () => {
    const settings = db.collection<{ _id: string; value: number }>('settings');
    const upserts = Array.from({ length: 12 }, (_, value) =>
      upsertRacing(() => settings.updateOne({ _id: 'first' }, { $set: { value } }, { upsert: true })),
    );
    // Without the retry, the upserts that lose the race to insert reject with a duplicate key.
    await Promise.all(upserts);
    expect(await settings.countDocuments({ _id: 'first' })).toBe(1);
  });

  it('creates the same indexes from several openers at once, on a collection with documents', async () => {
    const collection = db.collection('indexed');
    await collection.insertMany(Array.from({ length: 20 }, (_, i) => ({ a: i, b: i, c: i, d: i })));
    const specs = ['a', 'b', 'c', 'd'].map((field) => ({ key: { [field]: 1 as const }, name: field }));
    // Half of them exist already, as when another process opened the collection first.
    await ensureIndexes(collection, specs.slice(0, 2));
    await Promise.all(Array.from({ length: 4 }, () => ensureIndexes(collection, specs)));
    const names = (await collection.listIndexes().toArray()).map((index) => String(index['name']));
    expect(names.sort()).toEqual(['_id_', 'a', 'b', 'c', 'd']);
    // The connection is still usable: the server did not drop it.
    expect(await collection.countDocuments()).toBe(20);
  });
});
