/**
 * The data side of a tenant runtime: for the tenant's active model (see `TenantModel`), its
 * document store (of the configured adapter, see tenant-stores.ts), its search (see
 * search-engine.ts), its access control and the object service composed from them. A tenant
 * without a usable model has none of these (its data routes answer 503 naming the model status).
 */
import type { JobQueue, Model, TenantRecord, UploadClaims } from '@odp/core';
import { TenantAccessControl } from '@odp/acl';
import type { DataLimits, DataServiceDeps } from '@odp/data';
import { DataResources, SecretCipher, rememberedSettings } from '@odp/data';
import { ListCursors } from '@odp/query-engine';
import type { TenantStoreWithSearch, TenantStores } from './tenant-stores.js';
import type { Logger } from './log.js';
import type { SearchEngine, TenantSearch } from './search-engine.js';

export interface TenantData {
  readonly model: Model;
  readonly store: TenantStoreWithSearch;
  /** The tenant's full-text index: the store's own, or an external one fed from its change events. */
  readonly search: TenantSearch;
  readonly accessControl: TenantAccessControl;
  readonly data: DataResources;
  /** The object service of the `/system/...` routes: the same store, reaching only system classes. */
  readonly system: DataResources;
  close(): Promise<void>;
}

export interface TenantDataOptions {
  readonly baseUrl?: string;
  /** Key material for SECRET field values at rest and for list cursors (`ODP_SECRET_KEY`). */
  readonly secretKey?: string;
  /** Size limits of stored values and list pages (`ODP_MAX_VALUE_BYTES`, `ODP_MAX_PAGE_BYTES`). */
  readonly limits?: DataLimits;
  /** The tenant's uploads, claimed and released by FILE and IMAGE values. */
  readonly files?: UploadClaims;
  readonly log: Logger;
  /** The job queue writes relay the jobs of their scripts to (absent: they wait in the outbox). */
  readonly jobs?: JobQueue;
  /** Refuses a MANUAL gateway script past its service's rate limit (429). */
  readonly assertGatewayWithinLimit?: (gateway: string) => Promise<void>;
  /** Where tenant stores are opened (the configured adapter). */
  readonly stores: TenantStores;
  readonly search: SearchEngine;
}

/** Opens the tenant's store and composes access control and the object service for `model`. */
export async function openTenantData(
  tenant: TenantRecord,
  model: Model,
  dataDir: string,
  onChange: () => void,
  options: TenantDataOptions,
): Promise<TenantData> {
  const store = await options.stores.open(tenant, dataDir);
  return compose(tenant, model, store, options.search.tenant(tenant.id, store, model), onChange, options);
}

/**
 * The same store under a newer model (after a reload): the model is applied to the store, and access
 * control and the object service are composed again. `current` must no longer be used afterwards;
 * close the returned TenantData instead.
 */
export async function withModel(
  current: TenantData,
  tenant: TenantRecord,
  model: Model,
  onChange: () => void,
  options: TenantDataOptions,
): Promise<TenantData> {
  return compose(tenant, model, current.store, current.search, onChange, options);
}

async function compose(
  tenant: TenantRecord,
  model: Model,
  store: TenantStoreWithSearch,
  search: TenantSearch,
  onChange: () => void,
  options: TenantDataOptions,
): Promise<TenantData> {
  await store.applyModel(model);
  search.useModel(model);
  const accessControl = new TenantAccessControl(model, tenant.id, store);
  const secrets = options.secretKey ? new SecretCipher(options.secretKey) : undefined;
  const deps: DataServiceDeps = {
    tenantId: tenant.id,
    model,
    store,
    access: accessControl.policy,
    accessRows: accessControl,
    search: search.index,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(secrets ? { secrets } : {}),
    ...(options.secretKey ? { listCursors: new ListCursors(options.secretKey, tenant.id) } : {}),
    ...rememberedSettings(store, secrets),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.files ? { files: options.files } : {}),
    onChange: () => {
      onChange();
      search.notify();
    },
    ...(options.jobs ? { jobs: options.jobs } : {}),
    ...(options.assertGatewayWithinLimit
      ? { assertGatewayWithinLimit: options.assertGatewayWithinLimit }
      : {}),
    onRelayError: (error) =>
      options.log.error('job relay failed', { tenantId: tenant.id, error: String(error) }),
  };
  const close = async () => {
    await search.close();
    await store.close();
  };
  return {
    model,
    store,
    search,
    accessControl,
    data: new DataResources(deps),
    system: new DataResources({ ...deps, reach: 'system' }),
    close,
  };
}
