import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { NotFoundError } from '@odp/core';
import { loadConfig, platformDatabasePath } from '@odp/config';
import { openPlatformStore } from '@odp/store-sqlite';
import type { PlatformStore } from '@odp/store-sqlite';
import { createLogger } from './log.js';
import { openSearchEngine } from './search-engine.js';
import { createTenantRuntimes } from './tenant-runtime.js';
import type { TenantRuntimes } from './tenant-runtime.js';

describe('TenantRuntimes', () => {
  let dir: string;
  let registry: PlatformStore;
  let runtimes: TenantRuntimes;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'odp-runtime-'));
    const config = loadConfig({ ODP_DATA_DIR: dir });
    registry = openPlatformStore(platformDatabasePath(config));
    const log = createLogger(new PassThrough());
    runtimes = createTenantRuntimes({ config, registry, log, search: openSearchEngine(config, log) });
  });
  afterEach(async () => {
    await runtimes.closeAll();
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens a runtime once per tenant, with its data directory', async () => {
    const tenant = await registry.createTenant({ name: 'T', modelSource: null });
    const [a, b] = await Promise.all([runtimes.get(tenant.id), runtimes.get(tenant.id)]);
    expect(a).toBe(b);
    expect(a.tenant).toEqual(tenant);
    expect(a.dataDir).toBe(path.join(dir, 'tenants', tenant.id));
    expect(statSync(a.dataDir).isDirectory()).toBe(true);
    expect(await runtimes.get(tenant.id)).toBe(a);
  });

  it('reopens after evict', async () => {
    const tenant = await registry.createTenant({ name: 'T', modelSource: null });
    const first = await runtimes.get(tenant.id);
    await runtimes.evict(tenant.id);
    expect(await runtimes.get(tenant.id)).not.toBe(first);
  });

  it('refuses an unknown tenant with NotFoundError and does not cache the failure', async () => {
    await expect(runtimes.get('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(NotFoundError);
    await expect(runtimes.get('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(NotFoundError);
  });
});
