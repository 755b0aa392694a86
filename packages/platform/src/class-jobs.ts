/**
 * The per-class jobs of the admin branch (docs/admin.md), each with its own progress tracker and
 * lease, so one of each kind runs per tenant at a time (409 otherwise), on any instance:
 *
 * - `recalculate` (`POST /admin/{tenant}/{typeName}/recalculate`): re-runs the formulas of every
 *   object of the class as a save does, and those of the objects whose formulas read what changed
 *   (AdminJobs.recalculateObjects). Stored values change; each changed object gets an update event.
 * - `sync` (`POST /admin/{tenant}/{typeName}/sync`): re-derives what the platform derives from every
 *   object of the class - class membership with the current model's ancestors, value index,
 *   full-text entry (in the store, and in Elasticsearch when configured), ACL rows - without
 *   changing its data (AdminJobs.syncObjects). The per-class counterpart of the tenant rebuild.
 *
 * Both walk the class in id order, BATCH_SIZE objects per atomic write, and yield to the event loop
 * between batches, so requests are served while they run. Objects of the class created meanwhile
 * are covered when their id comes after the batches already done (and were computed on their own
 * save anyway). `total` is the class's object count when the job started.
 */
import type { RebuildStatus, RebuildTracker } from '@odp/acl';
import type { TenantData } from './tenant-data.js';
import { nextTurn } from './tenant-rebuild.js';

export const CLASS_JOB_KINDS = ['recalculate', 'sync'] as const;
export type ClassJobKind = (typeof CLASS_JOB_KINDS)[number];

/** Objects per atomic write of a class job. */
export const CLASS_JOB_BATCH_SIZE = 100;

/**
 * Starts the `kind` job of the class `typeName` on `tracker`: NotFoundError (404) for an unknown
 * class, ConflictError (409) while the tracker runs a job. `current` is asked for the tenant's
 * composition for every batch, so a model reloaded meanwhile is the one the next batch runs under.
 */
export function startClassJob(
  tracker: RebuildTracker,
  kind: ClassJobKind,
  typeName: string,
  current: () => TenantData,
  onError: (error: unknown) => void,
): RebuildStatus {
  const cls = current().data.jobClass(typeName);
  return tracker.start(
    kind,
    async (progress) => {
      await nextTurn();
      const jobs = current().data.objects.jobs;
      progress(0, undefined, await jobs.countOf(cls));
      let processed = 0;
      for await (const ids of jobs.idsOf(cls, CLASS_JOB_BATCH_SIZE)) {
        const batch = current().data.objects.jobs;
        if (kind === 'recalculate') await batch.recalculateObjects(ids);
        else await batch.syncObjects(ids);
        processed += ids.length;
        progress(processed);
        await nextTurn();
      }
    },
    onError,
    typeName,
  );
}
