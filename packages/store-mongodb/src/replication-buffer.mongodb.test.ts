import { describeReplicationBufferContract, describeWithEngine } from '@odp/testkit';
import { openMongoReplicationBuffer } from './replication-buffer.js';
import type { MongoReplicationBuffer } from './replication-buffer.js';

describeWithEngine('MongoDB replication buffer', 'ODP_TEST_MONGODB_URL', (url) => {
  const databases = new Map<string, string>();
  let counter = 0;
  afterAll(async () => {
    for (const database of new Set(databases.values())) {
      const buffer = await openMongoReplicationBuffer({ url, database });
      await buffer.drop();
      await buffer.close();
    }
  });

  describeReplicationBufferContract('mongodb', async (shared): Promise<MongoReplicationBuffer> => {
    const key = shared ?? `own-${++counter}`;
    let database = databases.get(key);
    if (database === undefined) {
      database = `odp_test_replication_${process.pid}_${++counter}`;
      databases.set(key, database);
    }
    return openMongoReplicationBuffer({ url, database });
  });
});
