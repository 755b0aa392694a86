import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeTenantStoreContract } from '@odp/core/contract';
import { openTenantStore } from './tenant-store.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-tenant-store-'));
let counter = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeTenantStoreContract('sqlite', async () =>
  openTenantStore({ file: join(dir, `tenant-${++counter}.db`) }),
);
