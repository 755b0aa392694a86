import { mkdir } from 'node:fs/promises';
import { NotFoundError } from '@odp/core';
import type {
  Coordination,
  Invalidation,
  JobQueue,
  PlatformRegistry,
  ProfileDirectory,
  TenantRecord,
} from '@odp/core';
import { tenantDataDir } from '@odp/config';
import type { Config } from '@odp/config';
import type { FileService } from '@odp/files';
import { ChangeSignal } from '@odp/data';
import type { DataResources } from '@odp/data';
import type { RebuildStatus, RebuildTracker, TenantAccessControl } from '@odp/acl';
import type { ModelStatus, TenantModel } from '@odp/model-loader';
import { AdminRequests } from './admin-requests.js';
import { changeAnnouncer } from './change-announcer.js';
import type { ClassJobKind } from './class-jobs.js';
import type { TenantStores } from './tenant-stores.js';
import { TenantEventStreams } from './event-streams.js';
import type { Logger } from './log.js';
import { ModelSwitch } from './model-switch.js';
import type { SearchEngine } from './search-engine.js';
import { TenantJobs } from './tenant-jobs.js';

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
  data(): DataResources;
  /** The object service of the `/system/...` routes (system classes only); 503 as `data()`. */
  system(): DataResources;
  /**
   * Record-level access control under the current model (decisions, audit, rebuild); throws
   * UnavailableError (503) while the tenant has no usable model. Compose it with the data service
   * from the same model and store: `new TenantAccessControl(model, tenantId, store)`, then
   * `access: acl.policy` and `accessRows: acl` in the DataServiceDeps.
   */
  accessControl(): TenantAccessControl;
  /** The tenant's model and its load status (`GET /admin/{tenant}/modelStatus`). */
  readonly model: TenantModel;
  /**
   * Loads the model repository again (`POST /admin/{tenant}/reloadModel`, the push webhook); when
   * the new model loads, it is stored as a version the registry names current (every instance then
   * switches to it) and the store, access control and object service switch to it here. Resolves
   * the new status (REFUSED or FAILED when refused: the current version stays).
   */
  reloadModel(): Promise<ModelStatus>;
  /**
   * Switches to the model version the registry names current (`version` when the caller has read
   * it) when this runtime serves another: an announcement, the poll. Resolves whether it switched.
   */
  syncModel(version?: number): Promise<boolean>;
  /** The tenant's rebuild job and its progress (one at a time; survives model reloads). */
  readonly rebuilds: RebuildTracker;
  /**
   * Starts the full rebuild of the tenant's derived data on `rebuilds` (see tenant-rebuild.ts) under
   * the tenant's rebuild lease; ConflictError while a rebuild runs (on any instance), UnavailableError
   * without a usable model.
   */
  startRebuild(onError: (error: unknown) => void): Promise<RebuildStatus>;
  /**
   * Runs `start` (which starts a job on `rebuilds`) holding the tenant's rebuild lease, so that one
   * instance of a deployment rebuilds a tenant at a time: ConflictError (409) while another instance
   * holds it. The lease is renewed while the job runs and released when it ends. The progress of a
   * job is kept by the instance that runs it (`GET /admin/{tenant}/rebuild` there).
   */
  startExclusive(start: () => RebuildStatus): Promise<RebuildStatus>;
  /**
   * The tenant's class recalculation and sync jobs and their progress (class-jobs.ts): one tracker
   * per kind, so one job of each kind runs at a time; they survive model reloads.
   */
  readonly classJobs: Readonly<Record<ClassJobKind, RebuildTracker>>;
  /**
   * Starts the `kind` job of class `typeName` under the tenant's lease of that kind (see
   * `jobLeaseName`): NotFoundError for an unknown class, ConflictError while a job of the kind runs
   * (on any instance), UnavailableError without a usable model.
   */
  startClassJob(
    kind: ClassJobKind,
    typeName: string,
    onError: (error: unknown) => void,
  ): Promise<RebuildStatus>;
  /** Starts the rebuild `odp rebuild` asked for (see `rebuildRequestKey`) once none is running. */
  applyRequestedRebuild(): Promise<void>;
  /**
   * Loads the default data `odp data load-defaults` asked for (see `defaultDataRequestKey`), once: the
   * request is cleared whatever the outcome, which is logged (`default data loaded` or `... failed`).
   */
  applyRequestedDefaultData(): Promise<void>;
  /**
   * Wakes the tenant's change event streams on this instance whenever a write through any instance
   * appended change events (announced on the coordination's change fan-out).
   */
  readonly changes: ChangeSignal;
  /**
   * The tenant's open event streams in this process (`ODP_TENANT_EVENT_STREAMS` at most); they end
   * when the runtime closes.
   */
  readonly eventStreams: TenantEventStreams;
  /** Ends the tenant's event streams and releases what the runtime holds (open files, timers). */
  close(): Promise<void>;
}

/** What a runtime is composed from: platform-wide services shared by all tenants. */
export interface RuntimeContext {
  readonly config: Config;
  readonly registry: PlatformRegistry;
  readonly log: Logger;
  /** The platform's files; each tenant's object service claims and releases its uploads through it. */
  readonly files?: FileService;
  readonly coordination: Coordination;
  /** Where the tenants' document stores are opened (see tenant-stores.ts). */
  readonly stores: TenantStores;
  readonly search: SearchEngine;
  /** Where writes relay the jobs their scripts queue; absent, jobs wait in the tenant outbox. */
  readonly jobs?: JobQueue;
  /** The rate-limit check of a tenant's MANUAL gateway scripts (see usage.ts); absent, not limited. */
  readonly gatewayLimit?: (tenantId: string) => (gateway: string) => Promise<void>;
}

export { REBUILD_LEASE_MS, jobLeaseName, rebuildLeaseName } from './tenant-jobs.js';

/**
 * The runtime of one tenant, composed of small units: the model switch (one immutable composition
 * per model version), the tenant's jobs with their leases, and the admin requests `odp` leaves in
 * the registry (reload, rebuild, default data), applied when the tenant is next used.
 */
export async function openTenantRuntime(
  tenant: TenantRecord,
  context: RuntimeContext,
): Promise<TenantRuntime> {
  const dataDir = tenantDataDir(context.config, tenant.id);
  await mkdir(dataDir, { recursive: true });
  const changes = new ChangeSignal();
  const eventStreams = new TenantEventStreams(context.config.tenantEventStreams);
  const { coordination, log } = context;
  const options = {
    baseUrl: context.config.baseUrl,
    secretKey: context.config.secretKey,
    limits: context.config.dataLimits,
    log,
    stores: context.stores,
    ...(context.files ? { files: context.files.claimsFor(tenant.id) } : {}),
    ...(context.jobs ? { jobs: context.jobs } : {}),
    ...(context.gatewayLimit ? { assertGatewayWithinLimit: context.gatewayLimit(tenant.id) } : {}),
    search: context.search,
  };
  /** The switch once open: a write's announcement reads the event log of its current composition. */
  const opened: { models?: ModelSwitch } = {};
  const announceChange = changeAnnouncer(tenant.id, coordination, changes, log, () => opened.models);
  const models = await ModelSwitch.open(
    tenant,
    dataDir,
    { registry: context.registry, config: context.config },
    announceChange,
    options,
  );
  opened.models = models;
  const current = () => models.current();
  const jobs = new TenantJobs(tenant.id, coordination, log, current);
  const requests = new AdminRequests(tenant.id, context.registry, log, {
    rebuild: (onError) => jobs.startRebuild(onError),
    hasModel: () => Boolean(models.model.model),
    loadDefaultData: () =>
      current().data.objects.jobs.loadDefaultData({ kind: 'system', tenantId: tenant.id }),
  });
  // Last before the runtime exists, so that a failed open leaves no subscription behind.
  const stopChanges = await coordination.changes.subscribe(tenant.id, () => changes.notify());
  return {
    tenant,
    dataDir,
    profiles: { profilesLinkedTo: (objectId) => context.registry.profilesLinkedTo(tenant.id, objectId) },
    model: models.model,
    reloadModel: async () => (await models.reload()).status,
    syncModel: (version) => models.sync(version),
    startRebuild: (onError) => jobs.startRebuild(onError),
    startExclusive: (start) => jobs.startExclusive(start),
    classJobs: jobs.classJobs,
    startClassJob: (kind, typeName, onError) => jobs.startClassJob(kind, typeName, onError),
    applyRequestedRebuild: () => requests.applyRebuild(),
    applyRequestedDefaultData: () => requests.applyDefaultData(),
    generalSearchClasses: () => models.model.model?.settings.generalSearchClasses ?? [],
    data: () => current().data,
    system: () => current().system,
    accessControl: () => current().accessControl,
    rebuilds: jobs.rebuilds,
    changes,
    eventStreams,
    close: async () => {
      models.close();
      eventStreams.endAll();
      await stopChanges();
      // Running jobs stop at their next batch; their stores close only once they have.
      await jobs.settled();
      await models.release();
    },
  };
}

export interface TenantRuntimes {
  /** The tenant's runtime, opened on first use. Throws NotFoundError for an unknown tenant. */
  get(tenantId: string): Promise<TenantRuntime>;
  /** Closes and forgets one tenant's runtime (tenant deleted or reconfigured); the next get reopens it. */
  evict(tenantId: string): Promise<void>;
  /**
   * Closes the tenant's runtime and runs `work` while it stays closed in this process: a `get` of
   * the tenant meanwhile waits until `work` has finished (then opens it again, or finds the tenant
   * gone). Tenant deletion removes the tenant's data this way.
   */
  closedWhile<T>(tenantId: string, work: () => Promise<T>): Promise<T>;
  /** Closes every open runtime (shutdown). */
  closeAll(): Promise<void>;
  /**
   * Applies a change announced by any instance to the open runtimes: a tenant deleted (or created
   * again) is evicted, a tenant whose current model version changed switches to it.
   */
  apply(message: Invalidation): Promise<void>;
  /**
   * Switches every open runtime to the model version `current` names for its tenant (tenant id ->
   * version, as the registry's poll reads them) when it serves another; a failure is logged.
   */
  followModelVersions(current: ReadonlyMap<string, number>): Promise<void>;
}

/**
 * Creates a record of the system class `className` (a log entry, a usage record) in the tenant, as
 * the system account; resolves false when the tenant's model has no such class.
 */
export async function writeSystemRecord(
  runtimes: TenantRuntimes,
  tenantId: string,
  className: string,
  body: Record<string, unknown>,
): Promise<boolean> {
  const runtime = await runtimes.get(tenantId);
  if (runtime.model.model?.classes.has(className) !== true) return false;
  await runtime.system().objects.writes.create({ kind: 'system', tenantId }, className, body);
  return true;
}

export function createTenantRuntimes(context: RuntimeContext): TenantRuntimes {
  /** Promises, so that concurrent first requests share one open. */
  const open = new Map<string, Promise<TenantRuntime>>();
  /** Tenants kept closed (see `closedWhile`): resolves when they may open again. */
  const closed = new Map<string, Promise<unknown>>();

  const closeRuntime = async (tenantId: string, runtime: Promise<TenantRuntime>) => {
    open.delete(tenantId);
    try {
      await (await runtime).close();
    } catch (error) {
      context.log.error('tenant runtime close failed', { tenantId, error: String(error) });
    }
  };

  const evict = async (tenantId: string) => {
    const runtime = open.get(tenantId);
    if (runtime !== undefined) await closeRuntime(tenantId, runtime);
  };

  const runtimes: TenantRuntimes = {
    get(tenantId) {
      const gate = closed.get(tenantId);
      if (gate !== undefined) return gate.then(() => runtimes.get(tenantId));
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
        await opened.applyRequestedRebuild();
        await opened.applyRequestedDefaultData();
        return opened;
      });
    },
    evict,
    async closedWhile(tenantId, work) {
      const previous = closed.get(tenantId) ?? Promise.resolve();
      const run = previous.then(async () => {
        await evict(tenantId);
        return work();
      });
      const gate = run.catch(() => undefined);
      closed.set(tenantId, gate);
      try {
        return await run;
      } finally {
        if (closed.get(tenantId) === gate) closed.delete(tenantId);
      }
    },
    async apply(message) {
      if (message.kind === 'tenant') await evict(message.tenantId);
      if (message.kind === 'model') {
        const runtime = open.get(message.tenantId);
        if (runtime !== undefined) await (await runtime).syncModel();
      }
    },
    async followModelVersions(current) {
      const switching = [...open].map(async ([tenantId, runtime]) => {
        const version = current.get(tenantId);
        if (version !== undefined) await (await runtime).syncModel(version);
      });
      for (const outcome of await Promise.allSettled(switching)) {
        if (outcome.status === 'rejected') {
          context.log.error('model version switch failed', { error: String(outcome.reason) });
        }
      }
    },
    async closeAll() {
      await Promise.all([...open].map(([tenantId, runtime]) => closeRuntime(tenantId, runtime)));
    },
  };
  return runtimes;
}
