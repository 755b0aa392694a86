/**
 * A tenant's model as versions in the platform registry (docs/admin.md, "Model versions"): a model
 * read from a repository becomes a version only once it loaded (`modelCandidate`), and the registry
 * names the version every instance serves. The api's reload, the push webhook, `odp model push` and
 * `odp model reload` store and name a version here; each api process follows the registry's choice
 * through the announcement (`{kind: 'model'}`, sent by `sharedRegistry` with Redis) and the poll
 * below, which also serves several processes on one embedded data directory.
 */
import { isAppError } from '@odp/core';
import type { ModelVersionRecord, PlatformRegistry } from '@odp/core';
import type { Config } from '@odp/config';
import { loadModelBundle, modelCandidate, modelStatusOf, readRepository } from '@odp/model-loader';
import type {
  ModelBundle,
  ModelCandidate,
  ModelLoadResult,
  ModelStatus,
  RepositoryContent,
} from '@odp/model-loader';
import type { Logger } from './log.js';

/** What a tenant without a model repository has: the built-in classes and lists only. */
const EMPTY_REPOSITORY: RepositoryContent = {
  modelFiles: [],
  dataFiles: [],
  templateFiles: [],
  truncated: false,
};

/**
 * Reads the model repository at `source` (a directory; null: the built-ins only) as a candidate
 * version: refused (an ERROR issue) when the directory cannot be read, the files are invalid or the
 * version would be larger than `ODP_MAX_MODEL_VERSION_BYTES`.
 */
export async function readModelCandidate(
  source: string | null,
  config: Pick<Config, 'maxModelBytes' | 'modelVersions'>,
): Promise<ModelCandidate> {
  let content = EMPTY_REPOSITORY;
  try {
    if (source !== null) content = await readRepository(source, config.maxModelBytes);
  } catch (error) {
    if (!isAppError(error)) throw error;
    return { result: refusedLoad(error.message) };
  }
  return modelCandidate(content, config.modelVersions.maxBytes);
}

/**
 * Stores the bundle of a model that loaded as the tenant's version (the same files are the same
 * version) and names it current, which every instance then serves.
 */
export async function publishModelVersion(
  registry: PlatformRegistry,
  tenantId: string,
  bundle: ModelBundle,
): Promise<ModelVersionRecord> {
  const record = await registry.modelVersions.save(tenantId, bundle.hash, bundle.text);
  await registry.modelVersions.setCurrent(tenantId, record.version);
  return record;
}

/**
 * Stores a candidate that loaded as the tenant's current version (`odp model push`, `odp model
 * reload`); a refused one stores nothing. Resolves the status of the attempt: LOADED with the new
 * version, or REFUSED naming the current version that stays (FAILED when there is none).
 */
export async function storeModelCandidate(
  registry: PlatformRegistry,
  tenantId: string,
  candidate: ModelCandidate,
  now: Date,
): Promise<ModelStatus> {
  const served = candidate.bundle
    ? await publishModelVersion(registry, tenantId, candidate.bundle)
    : await registry.modelVersions.current(tenantId);
  return modelStatusOf(candidate.result, served, now.toISOString());
}

/** The model of a stored version, validated again; null when the tenant has no such version. */
export async function loadModelVersion(
  registry: PlatformRegistry,
  tenantId: string,
  version: number,
): Promise<ModelLoadResult | null> {
  const stored = await registry.modelVersions.read(tenantId, version);
  if (stored === null) return null;
  try {
    return loadModelBundle(stored.bundle);
  } catch (error) {
    if (!isAppError(error)) throw error;
    return refusedLoad(error.message);
  }
}

/** A load refused for one reason that concerns the whole repository. */
function refusedLoad(message: string): ModelLoadResult {
  return { issues: [{ severity: 'ERROR', file: '', path: '', message }], upgradableFiles: [] };
}

/**
 * Every `pollMs`, reads the current model version of every tenant (one registry read) and hands
 * them to `follow`, which switches the open tenants that serve another version. One poll at a time;
 * a failure is logged and the next poll tries again. Returns the stop function.
 */
export function pollCurrentModelVersions(
  registry: Pick<PlatformRegistry, 'modelVersions'>,
  follow: (current: ReadonlyMap<string, number>) => Promise<void>,
  pollMs: number,
  log: Logger,
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    registry.modelVersions
      .currentOfAll()
      .then(follow)
      .catch((error: unknown) => log.error('model version poll failed', { error: String(error) }))
      .finally(() => {
        running = false;
      });
  }, pollMs);
  timer.unref();
  return () => clearInterval(timer);
}
