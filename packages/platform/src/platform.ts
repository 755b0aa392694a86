import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { createTokenVerifier, StreamTokens } from '@odp/auth';
import {
  ConfigError,
  blobsDir,
  jobsDatabasePath,
  leasesDatabasePath,
  loadConfig,
  warehouseDir,
} from '@odp/config';
import type { Config } from '@odp/config';
import type {
  BlobStore,
  Coordination,
  JobQueue,
  LockService,
  PlatformRegistry,
  ReplicationBuffer,
  Warehouse,
  WindowCounters,
} from '@odp/core';
import {
  announcingModelVersions,
  createInProcessCoordination,
  limitIsolatedTasks,
  NotFoundError,
  setIsolatedTaskNiceness,
  sharedRegistry,
} from '@odp/core';
import { openFsBlobStore } from '@odp/blobs-fs';
import { RETRY_IMPORT_AFTER_SECONDS, SpreadsheetImports } from '@odp/excel';
import { FileService } from '@odp/files';
import { SqliteLocks, openSqliteJobQueue } from '@odp/store-sqlite';
import { BigQueryWarehouse } from '@odp/warehouse-bigquery';
import { DuckDbWarehouse } from '@odp/warehouse-duckdb';
import type { PlatformServices } from './services.js';
import { openPlatformRegistry, openReplicationBuffer, openTenantStores } from './tenant-stores.js';
import { createLogger } from './log.js';
import type { Logger } from './log.js';
import { pollCurrentModelVersions } from './model-versions.js';
import { openOnRedis } from './redis.js';
import { openSearchEngine } from './search-engine.js';
import type { SearchEngine } from './search-engine.js';
import { createClusterCoordination } from './cluster-coordination.js';
import type { ClusterChannel } from './cluster-coordination.js';
import { createTenantRuntimes } from './tenant-runtime.js';
import { verifySecretKey } from './secret-key-check.js';
import { shareTenantActivity } from './cluster-activity.js';
import { FairShare } from './fair-share.js';
import { TenantSlots } from './tenant-slots.js';
import { tenantDeletion } from './tenant-deletion.js';
import type { TenantRuntimes } from './tenant-runtime.js';
import { gatewayLimitOf, openWindowCounters, serviceUsage } from './usage.js';

/** The platform-wide services of one process, opened from configuration. */
export interface Platform extends PlatformServices {
  readonly registry: PlatformRegistry;
  /** What this process shares with the other instances of the deployment. */
  readonly coordination: Coordination;
  readonly search: SearchEngine;
  /** The rate-limit counters of external services (SQLite, or Redis with `ODP_REDIS_URL`). */
  readonly counters: WindowCounters;
  /**
   * The DatastoreReplicator's buffer (`<dataDir>/replication.sqlite`, or beside the MongoDB registry
   * with `ODP_STORE=mongodb`) and warehouse (the embedded DuckDB files of `<dataDir>/warehouse`, or
   * BigQuery with `ODP_WAREHOUSE=bigquery`), used by the worker.
   */
  readonly replication: { readonly buffer: ReplicationBuffer; readonly warehouse: Warehouse };
  /**
   * Stops the upload sweep, closes runtimes, the document stores, the job queue, the rate-limit
   * counters, the replication buffer and warehouse, the registry, the blob store, the search engine
   * connection and the coordination.
   */
  close(): Promise<void>;
}

export interface PlatformOptions {
  /** Replaces the JSON log on stdout. */
  readonly log?: Logger;
  /**
   * The channel to the primary process when this is one of several api processes of one machine
   * (`ODP_API_PROCESSES`): without Redis, they coordinate through it.
   */
  readonly primary?: ClusterChannel;
}

/**
 * The blob store the configuration names (`ODP_BLOBS`): the composition root's one choice of adapter.
 * The S3 adapter (and its client, slow to load) is imported only when selected.
 */
async function openBlobStore(config: Config): Promise<BlobStore> {
  if (config.blobs.kind !== 's3') return openFsBlobStore(blobsDir(config));
  const { openS3BlobStore } = await import('@odp/blobs-s3');
  return openS3BlobStore(config.blobs);
}

/**
 * The imports of this process: their limits, each tenant's slots (leases of `locks`), and their
 * row writes at the tenant's fair-share turn.
 */
function spreadsheetImports(
  config: Config,
  blobs: BlobStore,
  files: FileService,
  fairShare: FairShare,
  locks: LockService,
  log: Logger,
): SpreadsheetImports {
  return new SpreadsheetImports({
    blobs,
    files,
    limits: config.imports,
    // The cap holds across the api processes (and instances) that share the deployment's leases.
    slots: new TenantSlots(config.imports.perTenant, 'imports', RETRY_IMPORT_AFTER_SECONDS, {
      locks,
      name: 'imports',
    }),
    onError: (message, error) => log.error(message, { error: String(error) }),
    turn: (tenantId, work) => fairShare.turn(tenantId, work),
  });
}

/** The process's isolated tasks: how many run at once, and their priority below the api's. */
function configureIsolatedTasks(config: Config): void {
  limitIsolatedTasks(config.isolatedTasks);
  setIsolatedTaskNiceness(config.isolatedTaskNiceness);
}

/**
 * Opens the platform's services. With `ODP_REDIS_URL` the instances of a deployment coordinate
 * through Redis: writes wake event streams on every instance, registry reads are cached under the
 * shared invalidation generation (see `sharedRegistry`), a tenant deleted or a model version made
 * current through one instance is applied by the others (and, without Redis too, by the poll of
 * the current model versions every `ODP_MODEL_POLL_MS`), and a tenant's rebuild runs on one instance at a time.
 * Without it everything stays in this process. Tenant objects live in the document store of
 * `ODP_STORE` (see tenant-stores.ts). Throws ConfigError when Redis or the MongoDB server of
 * `ODP_STORE=mongodb` does not answer, and naming ODP_SECRET_KEY when it is not the key the stored
 * secrets were encrypted with (secret-key-check.ts). `options.log` replaces the log on stdout (`odp` logs to stderr).
 */
export async function openPlatform(
  config: Config,
  examplesDir: string,
  options: PlatformOptions = {},
): Promise<Platform> {
  const log = options.log ?? createLogger();
  configureIsolatedTasks(config);
  const store = await openPlatformRegistry(config);
  await verifySecretKey(store, config.secretKey).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const coordination = await openCoordination(config, options.primary);
  const stores = await openTenantStores(config, coordination.lockReleases).catch(async (error: unknown) => {
    await coordination.close();
    throw error;
  });
  const search = await openVerifiedSearchEngine(config, log);
  const blobs = await openBlobStore(config);
  const registry = sharedRegistryOf(store, coordination, config);
  const files = new FileService({
    blobs,
    secretKey: config.secretKey,
    baseUrl: config.baseUrl,
    maxUploadBytes: config.files.maxUploadBytes,
    unclaimedUploadTtlMs: config.files.unclaimedUploadTtlSeconds * 1000,
    onError: (message, error) => log.error(message, { error: String(error) }),
    tenantExists: async (tenantId) => (await registry.getTenant(tenantId)) !== null,
  });
  const fairShare = new FairShare(config.fairShare);
  const stopSharingActivity =
    options.primary === undefined ? () => undefined : shareTenantActivity(options.primary, fairShare);
  const imports = spreadsheetImports(config, blobs, files, fairShare, coordination.locks, log);
  const jobs = await openJobs(config);
  const counters = await openWindowCounters(config);
  const replication = {
    buffer: await openReplicationBuffer(config),
    warehouse:
      config.warehouse.kind === 'bigquery'
        ? new BigQueryWarehouse(config.warehouse)
        : new DuckDbWarehouse(warehouseDir(config)),
  };
  const runtimes = createTenantRuntimes({
    config,
    registry,
    log,
    coordination,
    files,
    jobs,
    stores,
    search,
    gatewayLimit: (tenantId) => gatewayLimitOf(usage, tenantId),
  });
  const usage = serviceUsage(config, counters, runtimes, log, () => new Date());
  const stopFollowing = await followDeployment(coordination, registry, runtimes, config, log);
  const sweeper = startUploadSweep(files, runtimes, config.files.sweepIntervalSeconds * 1000, log);
  return {
    config,
    registry,
    coordination,
    search,
    counters,
    usage,
    runtimes,
    jobs,
    replication,
    tokens: config.auth === null ? null : createTokenVerifier(config.auth),
    log,
    files,
    imports,
    examplesDir,
    now: () => new Date(),
    streamTokens: new StreamTokens(config.secretKey),
    fairShare,
    locks: coordination.locks,
    deletion: tenantDeletion({
      config,
      registry,
      runtimes,
      stores,
      search,
      files,
      imports,
      jobs,
      replication,
      coordination,
    }),
    readiness: [
      { name: 'registry', check: async () => void (await registry.getSetting('readiness-probe')) },
      { name: 'dataDir', check: () => access(config.dataDir, constants.R_OK | constants.W_OK) },
      ...(config.redisUrl === null
        ? []
        : [{ name: 'redis', check: async () => void (await coordination.invalidations.generation()) }]),
      ...(config.store.kind === 'mongodb' ? [{ name: 'mongodb', check: () => stores.verify() }] : []),
      ...(config.search.kind === 'elasticsearch'
        ? [{ name: 'elasticsearch', check: () => search.verify() }]
        : []),
    ],
    async close() {
      clearInterval(sweeper);
      stopSharingActivity();
      await imports.close();
      await stopFollowing();
      await runtimes.closeAll();
      await stores.close();
      await jobs.close();
      await counters.close();
      await replication.buffer.close();
      await replication.warehouse.close();
      await search.close();
      await registry.close();
      await blobs.close();
      await coordination.close();
    },
  };
}

/**
 * The registry as this process shares it: with Redis, every write announced and reads cached under
 * the shared generation (`sharedRegistry`); among the processes of one machine (`ODP_API_PROCESSES`),
 * the registry file is fresh on its own and only a model version switch is announced; alone, as is.
 */
function sharedRegistryOf(
  store: PlatformRegistry,
  coordination: Coordination,
  config: Config,
): PlatformRegistry {
  if (config.redisUrl !== null) return sharedRegistry(store, coordination.invalidations);
  if (coordination.changes.crossesProcesses)
    return announcingModelVersions(store, coordination.invalidations);
  return store;
}

/**
 * Applies to this process's runtimes what other instances change: the invalidations announced on
 * the coordination (a tenant deleted, a model version made current) and, every `ODP_MODEL_POLL_MS`,
 * the registry's current model versions (a lost announcement; processes without Redis). Resolves
 * the function that stops both.
 */
async function followDeployment(
  coordination: Coordination,
  registry: PlatformRegistry,
  runtimes: TenantRuntimes,
  config: Config,
  log: Logger,
): Promise<() => Promise<void>> {
  const stopListening = await coordination.invalidations.subscribe((message) => {
    runtimes
      .apply(message)
      .catch((error: unknown) =>
        log.error('applying an invalidation failed', { kind: message.kind, error: String(error) }),
      );
  });
  const stopPolling = pollCurrentModelVersions(
    registry,
    (current) => runtimes.followModelVersions(current),
    config.modelVersions.pollMs,
    log,
  );
  return async () => {
    stopPolling();
    await stopListening();
  };
}

/**
 * The background sweep of unclaimed uploads and expired generated files, on a timer of every api
 * process: it asks the tenant's data whether an object holds a file, which the api has at hand and
 * the worker does not. Several api processes sweeping the same store is harmless: deletes are
 * idempotent.
 * An expired upload whose record names a holder is kept when that object holds it; a tenant that no
 * longer exists holds nothing; any other failure keeps the file until the next sweep.
 */
function startUploadSweep(
  files: FileService,
  runtimes: TenantRuntimes,
  intervalMs: number,
  log: Platform['log'],
): NodeJS.Timeout {
  const holds = async (tenantId: string, objectId: string, fileId: string): Promise<boolean> => {
    try {
      return await (await runtimes.get(tenantId)).data().objects.reads.holdsFile(objectId, fileId);
    } catch (error) {
      return !(error instanceof NotFoundError);
    }
  };
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    files
      .sweep(holds)
      .then((deleted) => {
        if (deleted > 0) log.info('unclaimed uploads deleted', { deleted });
      })
      .catch((error: unknown) => log.error('upload sweep failed', { error: String(error) }))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return timer;
}

/**
 * The job queue `ODP_JOBS` names: the SQLite file `<dataDir>/jobs.sqlite` (one machine), agenda on
 * MongoDB or Redis (any number of machines; ConfigError naming ODP_MONGODB_URL or ODP_REDIS_URL
 * when it does not answer).
 */
async function openJobs(config: Config): Promise<JobQueue> {
  const { jobs } = config;
  if (jobs.kind === 'sqlite') return openSqliteJobQueue(jobsDatabasePath(config));
  return openAgendaQueue(jobs.url, jobs.database);
}

/**
 * The agenda job queue (`ODP_JOBS=agenda`), its package imported only then; a MongoDB that does not
 * answer is a ConfigError naming `ODP_MONGODB_URL` (never its credentials).
 */
async function openAgendaQueue(url: string, database: string): Promise<JobQueue> {
  const { openAgendaJobQueue } = await import('@odp/jobs-agenda');
  try {
    return await openAgendaJobQueue(url, { database });
  } catch (error) {
    const kind = error instanceof Error ? error.name : 'error';
    throw new ConfigError('ODP_MONGODB_URL', `the agenda job queue could not open its database (${kind})`);
  }
}

/**
 * The coordination the configuration names: Redis with `ODP_REDIS_URL` (ConfigError naming the
 * variable when it does not answer), otherwise through `primary` when this is one of several api
 * processes (cluster-coordination.ts), otherwise in this process with the machine's leases
 * (`machineCoordination`).
 */
export async function openCoordination(
  config: Pick<Config, 'redisUrl' | 'dataDir'>,
  primary?: ClusterChannel,
): Promise<Coordination> {
  const { redisUrl } = config;
  if (redisUrl === null && primary !== undefined) return createClusterCoordination(primary);
  if (redisUrl === null) return machineCoordination(config);
  return openOnRedis(({ openRedisCoordination }) => openRedisCoordination(redisUrl));
}

/**
 * The coordination of a process alone on its machine's data directory (a single api process, a
 * worker started on its own): changes and invalidations stay in the process, and the leases are
 * the machine's (`<dataDir>/leases.sqlite`), shared with the other processes on it.
 */
function machineCoordination(config: Pick<Config, 'dataDir'>): Coordination {
  const locks = new SqliteLocks(leasesDatabasePath(config));
  const local = createInProcessCoordination(locks);
  return {
    ...local,
    async close() {
      await local.close();
      await locks.close();
    },
  };
}

/**
 * `openPlatform` for a process entry point: an engine that does not answer ends the process like a
 * bad configuration value, with one line on stderr naming the variable (exit code 2).
 */
export async function openPlatformOrExit(
  config: Config,
  examplesDir: string,
  options: PlatformOptions = {},
): Promise<Platform> {
  try {
    return await openPlatform(config, examplesDir, options);
  } catch (error) {
    if (error instanceof ConfigError) exitOnConfigError(error);
    throw error;
  }
}

function exitOnConfigError(error: ConfigError): never {
  process.stderr.write(`odp: configuration error: ${error.message}\n`);
  process.exit(2);
}

/**
 * Reads the configuration for a process entry point. A bad value ends the process with one line
 * on stderr naming the variable (exit code 2), never a stack trace.
 */
export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) exitOnConfigError(error);
    throw error;
  }
}

/**
 * The search engine `ODP_SEARCH` names, once it answers: one that does not is a ConfigError naming
 * `ODP_ELASTICSEARCH_URL` (an api that cannot search must not start serving).
 */
async function openVerifiedSearchEngine(config: Config, log: Platform['log']): Promise<SearchEngine> {
  const search = await openSearchEngine(config, log);
  try {
    await search.verify();
  } catch (error) {
    await search.close().catch(() => undefined);
    throw new ConfigError('ODP_ELASTICSEARCH_URL', error instanceof Error ? error.message : String(error));
  }
  return search;
}
