import { mkdir } from 'node:fs/promises';
import {
  ConflictError,
  modelReloadRequestKey,
  NotFoundError,
  rebuildRequestKey,
  UnavailableError,
} from '@odp/core';
import type { PlatformRegistry, ProfileDirectory, TenantRecord } from '@odp/core';
import { tenantDataDir } from '@odp/config';
import type { Config } from '@odp/config';
import { ChangeSignal } from '@odp/data';
import type { DataService } from '@odp/data';
import { RebuildTracker } from '@odp/acl';
import type { RebuildStatus, TenantAccessControl } from '@odp/acl';
import { TenantModel } from '@odp/model-loader';
import type { ModelStatus } from '@odp/model-loader';
import type { Logger } from './log.js';
import type { SearchEngine } from './search-engine.js';
import { openTenantData, withModel } from './tenant-data.js';
import type { TenantData } from './tenant-data.js';
import { startTenantRebuild } from './tenant-rebuild.js';

/**
 * Everything one tenant's requests need, composed once per tenant and cached: the tenant record,
 * its data directory and, as features arrive, its model state, document store and data service.
 * To add a component: add a member here, build it in `openTenantRuntime`, release it in `close`.
 */
export interface TenantRuntime {
  readonly tenant: TenantRecord;
  /** `<ODP_DATA_DIR>/tenants/<id>/`, created on open. */
  readonly dataDir: string;
  /** The tenant's user profiles (for the audit's holders). */
  readonly profiles: ProfileDirectory;
  /** Plural class names that are the default scope of global search; empty until a model provides them. */
  generalSearchClasses(): readonly string[];
  /**
   * The tenant's object service; throws UnavailableError (503, the problem body names the model
   * status) while the tenant has no usable model (model status FAILED).
   */
  data(): DataService;
  /**
   * Record-level access control under the current model (decisions, audit, rebuild); throws
   * UnavailableError (503) while the tenant has no usable model. Compose it with the data service
   * from the same model and store: `new TenantAccessControl(model, tenantId, store)`, then
   * `access: acl.policy` and `store: accessControlledStore(store, acl)` in the DataServiceDeps.
   */
  accessControl(): TenantAccessControl;
  /** The tenant's model and its load status (`GET /admin/{tenant}/modelStatus`). */
  readonly model: TenantModel;
  /**
   * Loads the model repository again (`POST /admin/{tenant}/reloadModel`, the push webhook, `odp model
   * reload`); when the new model loads, the store, access control and object service switch to it.
   * Resolves the new status (REFUSED or FAILED when refused).
   */
  reloadModel(): Promise<ModelStatus>;
  /** Reloads when `odp model reload` asked for it since the last check (see `modelReloadRequestKey`). */
  applyRequestedReload(): Promise<void>;
  /** The tenant's rebuild job and its progress (one at a time; survives model reloads). */
  readonly rebuilds: RebuildTracker;
  /**
   * Starts the full rebuild of the tenant's derived data on `rebuilds` (see tenant-rebuild.ts);
   * ConflictError while a rebuild runs, UnavailableError without a usable model.
   */
  startRebuild(onError: (error: unknown) => void): RebuildStatus;
  /** Starts the rebuild `odp rebuild` asked for (see `rebuildRequestKey`) once none is running. */
  applyRequestedRebuild(): Promise<void>;
  /** Wakes the tenant's change event streams after each write (pass `notify` as the service's `onChange`). */
  readonly changes: ChangeSignal;
  /** Releases what the runtime holds (open files, timers). */
  close(): Promise<void>;
}

/** What a runtime is composed from: platform-wide services shared by all tenants. */
export interface RuntimeContext {
  readonly config: Config;
  readonly registry: PlatformRegistry;
  readonly log: Logger;
  readonly search: SearchEngine;
}

export async function openTenantRuntime(
  tenant: TenantRecord,
  context: RuntimeContext,
): Promise<TenantRuntime> {
  const dataDir = tenantDataDir(context.config, tenant.id);
  await mkdir(dataDir, { recursive: true });
  const changes = new ChangeSignal();
  const options = {
    baseUrl: context.config.baseUrl,
    secretKey: context.config.secretKey,
    log: context.log,
    search: context.search,
  };
  const model = await TenantModel.open(tenant.modelSource);
  const logStatus = (status: ModelStatus) => {
    if (status.state !== 'LOADED') {
      context.log.error('tenant model refused', {
        tenantId: tenant.id,
        state: status.state,
        errors: status.errors.length,
      });
    }
  };
  logStatus(model.status);
  let composed: TenantData | null = model.model
    ? await openTenantData(tenant, model.model, dataDir, changes, options)
    : null;
  /** The composition for the active model; UnavailableError (503) naming the status without one. */
  const current = (): TenantData => {
    model.requireModel();
    if (composed === null) throw new UnavailableError('The tenant model is being applied; try again.');
    return composed;
  };
  let reloads: Promise<unknown> = Promise.resolve();
  const reloadRequestKey = modelReloadRequestKey(tenant.id);
  let seenReloadRequest = await context.registry.getSetting(reloadRequestKey);
  const runtime: TenantRuntime = {
    tenant,
    dataDir,
    profiles: { profilesLinkedTo: (objectId) => context.registry.profilesLinkedTo(tenant.id, objectId) },
    model,
    async applyRequestedReload() {
      const request = await context.registry.getSetting(reloadRequestKey);
      if (request === seenReloadRequest) return;
      seenReloadRequest = request;
      await runtime.reloadModel();
    },
    reloadModel() {
      const run = reloads.then(async () => {
        const { status, changed } = await model.reload();
        logStatus(status);
        const active = model.model;
        if (changed && active) {
          composed = composed
            ? await withModel(composed, tenant, active, changes, options)
            : await openTenantData(tenant, active, dataDir, changes, options);
        }
        return status;
      });
      reloads = run.catch(() => undefined);
      return run;
    },
    startRebuild(onError) {
      current();
      return startTenantRebuild(runtime.rebuilds, current, onError);
    },
    async applyRequestedRebuild() {
      const request = await context.registry.getSetting(rebuildRequestKey(tenant.id));
      if (request === null || request === '') return;
      try {
        runtime.startRebuild((error) =>
          context.log.error('tenant rebuild failed', { tenantId: tenant.id, error: String(error) }),
        );
      } catch (error) {
        // Still pending: the next request tries again once the running rebuild or the model allows.
        if (error instanceof ConflictError || error instanceof UnavailableError) return;
        throw error;
      }
      await context.registry.setSetting(rebuildRequestKey(tenant.id), '');
    },
    generalSearchClasses: () => model.model?.settings.generalSearchClasses ?? [],
    data: () => current().data,
    accessControl: () => current().accessControl,
    rebuilds: new RebuildTracker(),
    changes,
    close: async () => composed?.close(),
  };
  return runtime;
}

export interface TenantRuntimes {
  /** The tenant's runtime, opened on first use. Throws NotFoundError for an unknown tenant. */
  get(tenantId: string): Promise<TenantRuntime>;
  /** Closes and forgets one tenant's runtime (tenant deleted or reconfigured); the next get reopens it. */
  evict(tenantId: string): Promise<void>;
  /** Closes every open runtime (shutdown). */
  closeAll(): Promise<void>;
}

export function createTenantRuntimes(context: RuntimeContext): TenantRuntimes {
  /** Promises, so that concurrent first requests share one open. */
  const open = new Map<string, Promise<TenantRuntime>>();

  const closeRuntime = async (tenantId: string, runtime: Promise<TenantRuntime>) => {
    open.delete(tenantId);
    try {
      await (await runtime).close();
    } catch (error) {
      context.log.error('tenant runtime close failed', { tenantId, error: String(error) });
    }
  };

  return {
    get(tenantId) {
      let runtime = open.get(tenantId);
      if (runtime === undefined) {
        runtime = context.registry.getTenant(tenantId).then((tenant) => {
          if (tenant === null) throw new NotFoundError('No such tenant.');
          return openTenantRuntime(tenant, context);
        });
        open.set(tenantId, runtime);
        runtime.catch(() => open.delete(tenantId));
      }
      return runtime.then(async (opened) => {
        await opened.applyRequestedReload();
        await opened.applyRequestedRebuild();
        return opened;
      });
    },
    async evict(tenantId) {
      const runtime = open.get(tenantId);
      if (runtime !== undefined) await closeRuntime(tenantId, runtime);
    },
    async closeAll() {
      await Promise.all([...open].map(([tenantId, runtime]) => closeRuntime(tenantId, runtime)));
    },
  };
}
