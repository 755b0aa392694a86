/**
 * The example CRM (examples/models/crm) on a fresh SQLite store in a temp directory, with the
 * unrestricted access policy, for the object service's tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Account, JobQueue, Model } from '@odp/core';
import { loadModelRepository } from '@odp/model-loader';
import { openSqliteTenantStore } from '@odp/store-sqlite';
import type { SqliteTenantStore } from '@odp/store-sqlite';
import { SecretCipher } from '../src/secret-cipher.js';
import { rememberedSettings } from '../src/system-settings.js';
import type { DataLimits, DataServiceDeps } from '../src/deps.js';
import { DataResources } from '../src/resources/data-resources.js';
import { unrestrictedPolicy } from '../src/unrestricted-policy.js';

export const TENANT = '7d1b0b0e-0000-4000-8000-000000000001';
export const SYSTEM: Account = { kind: 'system', tenantId: TENANT };

export interface CrmFixture {
  readonly model: Model;
  readonly store: SqliteTenantStore;
  readonly data: DataResources;
  /** The same store through the service of the `/system` routes (system classes only). */
  readonly system: DataResources;
  /** The settings and secret values the services' formulas read, remembered between writes. */
  readonly settings: ReturnType<typeof rememberedSettings>;
  /** The store's database file (another connection may open it). */
  readonly file: string;
  close(): Promise<void>;
}

const CRM_DIR = path.resolve(__dirname, '../../../examples/models/crm');

export async function crmFixture(
  now?: () => Date,
  jobs?: JobQueue,
  limits?: DataLimits,
): Promise<CrmFixture> {
  const { model, issues } = await loadModelRepository(CRM_DIR);
  if (!model) throw new Error(`the example CRM model was refused: ${JSON.stringify(issues)}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'odp-data-'));
  const file = path.join(dir, 'documents.sqlite');
  const store = openSqliteTenantStore({ file });
  await store.applyModel(model);
  const secrets = new SecretCipher('test-secret-key-of-at-least-32-characters');
  const settings = rememberedSettings(store, secrets);
  const deps: DataServiceDeps = {
    tenantId: TENANT,
    model,
    store,
    access: unrestrictedPolicy(model),
    secrets,
    ...settings,
    ...(jobs ? { jobs } : {}),
    ...(now ? { now } : {}),
    ...(limits ? { limits } : {}),
  };
  return {
    model,
    store,
    data: new DataResources(deps),
    system: new DataResources({ ...deps, reach: 'system' }),
    settings,
    file,
    close: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
