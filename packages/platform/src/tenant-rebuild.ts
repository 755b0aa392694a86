/**
 * The full rebuild of a tenant's derived data (`POST /admin/{tenant}/rebuild`, `odp rebuild`): every
 * row the platform derives from the stored objects is thrown away and derived again from the objects
 * and the current model, in two phases reported on the tenant's RebuildTracker (docs/search.md):
 *
 * 1. `derivedData`: class membership, the typed value index and the full-text index entry of every
 *    object (SearchIndex.rebuild; the embedded store re-derives all three in one transaction); with
 *    an external search index (ODP_SEARCH=elasticsearch), that index is then rebuilt from the store.
 * 2. `accessControl`: every ACL row and holding, as `rebuildAccessControl` does.
 *
 * Stored values - field values, formula results, links, history - are the source, not derived data:
 * a rebuild never changes them (formulas are recalculated per class by the recalculate endpoint).
 * The job shares the tracker of `rebuildAccessControl`, so the two never run at once (409).
 */
import type { RebuildStatus, RebuildTracker } from '@odp/acl';
import type { TenantData } from './tenant-data.js';

export const TENANT_REBUILD_KIND = 'tenant';

/**
 * Lets the 202 go out before the first (synchronous) phase occupies the process, and requests in
 * between the batches of a job.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Starts the rebuild on `tracker`; throws ConflictError while any rebuild runs. `current` is asked
 * for the tenant's composition at the start of each phase, so a model reloaded meanwhile is the one
 * the phase rebuilds for.
 */
export function startTenantRebuild(
  tracker: RebuildTracker,
  current: () => TenantData,
  onError: (error: unknown) => void,
): RebuildStatus {
  return tracker.start(
    TENANT_REBUILD_KIND,
    async (progress) => {
      progress(0, 'derivedData');
      await nextTurn();
      const data = current();
      let processed = await data.store.search.rebuild(data.model);
      if (!data.search.index.maintainedByStore) processed = await data.search.index.rebuild(data.model);
      progress(processed, 'derivedData');
      await nextTurn();
      progress(0, 'accessControl');
      await current().accessControl.rebuild((processed) => progress(processed));
    },
    onError,
  );
}
