/**
 * The platform embedded in another program: opened from a configuration object (the environment
 * is never read), tenants created from a model directory, and the object service of an account, with
 * the same rules (validation, access control, formulas, audit) as the HTTP api. To serve the api as
 * well, mount `@odp/api`'s `createApp(platform)` in an express application.
 *
 *   const platform = await openEmbeddedPlatform({ dataDir: '/var/lib/my-app/odp' });
 *   const { tenant } = await createTenant(platform, { name: 'Acme', modelDir: './model' });
 *   const objects = await objectService(platform, systemAccount(tenant.id));
 *   const { id } = await objects.create(systemAccount(tenant.id), 'companies', { legalName: 'Acme' });
 *   await platform.close();
 */
import path from 'node:path';
import { generateApiKey } from '@odp/auth';
import { loadConfig } from '@odp/config';
import type { Config } from '@odp/config';
import type { Account, TenantRecord } from '@odp/core';
import type { DataResources } from '@odp/data';
import type { Logger } from './log.js';
import { openPlatform } from './platform.js';
import type { Platform } from './platform.js';

export interface EmbeddedOptions {
  /** Where the platform keeps its files (registry, tenants, blobs, jobs): `ODP_DATA_DIR`. */
  readonly dataDir: string;
  /**
   * Any other configuration variable by its name (docs/configuration.md), for example
   * `{ ODP_SECRET_KEY: '...', ODP_BASE_URL: 'https://example.org/odp' }`. Without `ODP_SECRET_KEY`
   * the key is generated into `<dataDir>/secret.key` on the first open.
   */
  readonly variables?: Readonly<Record<string, string>>;
  /** The directory of the example models `POST /tenants {model}` may name (default: none). */
  readonly examplesDir?: string;
  /** Replaces the JSON log on stdout. */
  readonly log?: Logger;
}

/**
 * The platform's configuration from a plain object instead of the environment: `variables` by
 * their names, `dataDir` as ODP_DATA_DIR. Throws ConfigError naming a bad or unknown variable.
 */
export function configFrom(options: Pick<EmbeddedOptions, 'dataDir' | 'variables'>): Config {
  return loadConfig({ ...options.variables, ODP_DATA_DIR: options.dataDir });
}

/**
 * Opens the platform's services in this process (see `openPlatform`); `close()` releases them. No
 * HTTP server and no background worker are started: `startWorker(platform)` runs the jobs (scripts'
 * gateway calls, replication) when the program wants them run here.
 */
export async function openEmbeddedPlatform(options: EmbeddedOptions): Promise<Platform> {
  const config = configFrom(options);
  const examplesDir = options.examplesDir ?? path.join(config.dataDir, 'no-example-models');
  return openPlatform(config, examplesDir, options.log === undefined ? {} : { log: options.log });
}

export interface CreatedTenant {
  readonly tenant: TenantRecord;
  /** A system API key of the tenant (for the HTTP api's `X-API-Key`); only its hash is stored. */
  readonly systemKey: string;
}

/**
 * Creates a tenant whose model is read from `modelDir` (docs/model-format.md; without one, the
 * tenant has only the built-in classes), and a system API key for it. The model loads when the
 * tenant is first used; a model that does not load leaves the tenant's object service unavailable
 * (UnavailableError naming the model status).
 */
export async function createTenant(
  platform: Pick<Platform, 'registry'>,
  input: { readonly name: string; readonly modelDir?: string },
): Promise<CreatedTenant> {
  const tenant = await platform.registry.createTenant({
    name: input.name,
    modelSource: input.modelDir === undefined ? null : path.resolve(input.modelDir),
  });
  const { key, hash } = generateApiKey();
  await platform.registry.createApiKey({
    tenantId: tenant.id,
    profileId: null,
    expiresAt: null,
    keyHash: hash,
  });
  return { tenant, systemKey: key };
}

/** The account of a tenant's system key: every class, no record-level access control. */
export function systemAccount(tenantId: string): Account {
  return { kind: 'system', tenantId };
}

/**
 * The object service of `account`'s tenant under its current model, on class plurals as the data
 * routes (`DataResources`: `create`, `getOne`, `list`, `patch`, `remove`...): pass the same account
 * to each call. NotFoundError for an unknown tenant.
 */
export async function objectService(
  platform: Pick<Platform, 'runtimes'>,
  account: Account,
): Promise<DataResources> {
  return (await platform.runtimes.get(account.tenantId)).data();
}
