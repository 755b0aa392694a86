/**
 * The data side of a tenant runtime: for the tenant's active model (see `TenantModel`), its
 * SQLite store (`<tenant dir>/documents.sqlite`), its search (see search-engine.ts), its access
 * control and the object service composed from them. A tenant without a usable model has none of these (its data routes answer
 * 503 naming the model status).
 */
import path from 'node:path';
import type { Model, TenantRecord } from '@odp/core';
import { TenantAccessControl, accessControlledStore } from '@odp/acl';
import type { ChangeSignal } from '@odp/data';
import { DataService, SecretCipher } from '@odp/data';
import { openTenantStore } from '@odp/store-sqlite';
import type { SqliteTenantStore } from '@odp/store-sqlite';
import type { Logger } from './log.js';
import type { SearchEngine, TenantSearch } from './search-engine.js';

export interface TenantData {
  readonly model: Model;
  readonly store: SqliteTenantStore;
  /** The tenant's full-text index: the store's own, or an external one fed from its change events. */
  readonly search: TenantSearch;
  readonly accessControl: TenantAccessControl;
  readonly data: DataService;
  close(): Promise<void>;
}

export const DOCUMENTS_FILE = 'documents.sqlite';

export interface TenantDataOptions {
  readonly baseUrl?: string;
  /** Key material for SECRET field values at rest (`ODP_SECRET_KEY`). */
  readonly secretKey?: string;
  readonly log: Logger;
  readonly search: SearchEngine;
}

/** Opens the tenant's store and composes access control and the object service for `model`. */
export async function openTenantData(
  tenant: TenantRecord,
  model: Model,
  dataDir: string,
  changes: ChangeSignal,
  options: TenantDataOptions,
): Promise<TenantData> {
  const store = openTenantStore({ file: path.join(dataDir, DOCUMENTS_FILE) });
  return compose(tenant, model, store, options.search.tenant(tenant.id, store, model), changes, options);
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
  changes: ChangeSignal,
  options: TenantDataOptions,
): Promise<TenantData> {
  return compose(tenant, model, current.store, current.search, changes, options);
}

async function compose(
  tenant: TenantRecord,
  model: Model,
  store: SqliteTenantStore,
  search: TenantSearch,
  changes: ChangeSignal,
  options: TenantDataOptions,
): Promise<TenantData> {
  await store.applyModel(model);
  search.useModel(model);
  const accessControl = new TenantAccessControl(model, tenant.id, store);
  const data = new DataService({
    tenantId: tenant.id,
    model,
    store: accessControlledStore(store, accessControl),
    access: accessControl.policy,
    search: search.index,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.secretKey ? { secrets: new SecretCipher(options.secretKey) } : {}),
    onChange: () => {
      changes.notify();
      search.notify();
    },
  });
  const close = async () => {
    await search.close();
    await store.close();
  };
  return { model, store, search, accessControl, data, close };
}
