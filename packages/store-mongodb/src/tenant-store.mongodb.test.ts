import { MongoClient } from 'mongodb';
import {
  describeSearchIndexContract,
  describeTenantStoreContract,
  describeWithEngine,
} from '@odp/core/contract';
import { openMongoTenantStore } from './tenant-store.js';
import type { MongoTenantStore } from './tenant-store.js';

describeWithEngine('MongoDB tenant store', 'ODP_TEST_MONGODB_URL', (url) => {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000 });
  const opened: MongoTenantStore[] = [];
  let counter = 0;
  const open = async (): Promise<MongoTenantStore> => {
    const store = await openMongoTenantStore({ client, database: `odp_test_${process.pid}_${++counter}` });
    opened.push(store);
    return store;
  };
  afterAll(async () => {
    for (const store of opened) await store.drop();
    await client.close();
  });

  describeTenantStoreContract('mongodb', open);
  describeSearchIndexContract('mongodb', async () => {
    const store = await open();
    return { store, search: store.search };
  });
});
