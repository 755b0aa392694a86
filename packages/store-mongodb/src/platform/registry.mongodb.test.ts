import { describePlatformRegistryContract, describeWithEngine } from '@odp/testkit';
import { openMongoPlatformRegistry } from './registry.js';
import type { MongoPlatformRegistry } from './registry.js';

describeWithEngine('MongoDB platform registry', 'ODP_TEST_MONGODB_URL', (url) => {
  const databases = new Set<string>();
  let counter = 0;
  let current = '';
  afterAll(async () => {
    for (const database of databases) {
      const registry = await openMongoPlatformRegistry({ url, database });
      await registry.drop();
      await registry.close();
    }
  });

  describePlatformRegistryContract('mongodb', async (shared): Promise<MongoPlatformRegistry> => {
    if (shared === undefined || current === '') current = `odp_test_platform_${process.pid}_${++counter}`;
    databases.add(current);
    return openMongoPlatformRegistry({ url, database: current });
  });
});
