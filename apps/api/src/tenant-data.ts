/**
 * The data side of a tenant runtime: the tenant's model (loaded from its model source), its
 * SQLite store (`<tenant dir>/documents.sqlite`), its access control and the object service
 * composed from them. A tenant without a usable model has none of these (its data routes answer
 * 503); the reason is logged.
 */
import path from 'node:path';
import type { Model, TenantRecord } from '@odp/core';
import { TenantAccessControl, accessControlledStore } from '@odp/acl';
import type { ChangeSignal } from '@odp/data';
import { DataService } from '@odp/data';
import { loadModelRepository } from '@odp/model-loader';
import { openTenantStore } from '@odp/store-sqlite';
import type { SqliteTenantStore } from '@odp/store-sqlite';
import type { Logger } from './log.js';

export interface TenantData {
  readonly model: Model;
  readonly store: SqliteTenantStore;
  readonly accessControl: TenantAccessControl;
  readonly data: DataService;
  close(): Promise<void>;
}

export const DOCUMENTS_FILE = 'documents.sqlite';

/** Loads the tenant's model and opens its store; null when the tenant has no usable model. */
export async function openTenantData(
  tenant: TenantRecord,
  dataDir: string,
  changes: ChangeSignal,
  options: { readonly baseUrl?: string; readonly log: Logger },
): Promise<TenantData | null> {
  if (tenant.modelSource === null) return null;
  const loaded = await loadModelRepository(tenant.modelSource);
  if (!loaded.model) {
    options.log.error('tenant model refused', {
      tenantId: tenant.id,
      errors: loaded.issues.filter((issue) => issue.severity === 'ERROR').length,
    });
    return null;
  }
  const model = loaded.model;
  const store = openTenantStore({ file: path.join(dataDir, DOCUMENTS_FILE) });
  await store.applyModel(model);
  const accessControl = new TenantAccessControl(model, tenant.id, store);
  const data = new DataService({
    tenantId: tenant.id,
    model,
    store: accessControlledStore(store, accessControl),
    access: accessControl.policy,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    onChange: () => changes.notify(),
  });
  return { model, store, accessControl, data, close: () => store.close() };
}
