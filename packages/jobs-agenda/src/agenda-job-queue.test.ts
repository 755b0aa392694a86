import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { describeJobQueueContract, describeWithEngine } from '@odp/testkit';
import { openAgendaJobQueue } from './agenda-job-queue.js';

describeWithEngine('agenda job queue', 'ODP_TEST_MONGODB_URL', (url) => {
  /** Each suite run keeps its collections in a database of its own and drops it at the end. */
  const database = `odp_test_jobs_${randomUUID().slice(0, 8)}`;
  afterAll(async () => {
    const client = await MongoClient.connect(url);
    await client.db(database).dropDatabase();
    await client.close();
  });

  let counter = 0;
  describeJobQueueContract('agenda', async (shared) =>
    openAgendaJobQueue(url, { database, collection: shared ?? `queue${++counter}` }),
  );
});
