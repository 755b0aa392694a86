/**
 * Deleting a tenant's data, and the tenant itself (`DELETE /admin/{tenant}`, `odp tenant delete`;
 * docs/admin.md). Every backend the configuration names is emptied of the tenant:
 *
 * - the document store (objects, links, history, change events, ACL rows and holdings, redirects,
 *   outbox, the store's own full-text index): the tenant's SQLite file or MongoDB database;
 * - the external search index (Elasticsearch), when configured;
 * - the blobs of its files (held, unclaimed uploads, generated reports), on the file system or S3;
 * - its spreadsheet imports: those running here stop, then every import record goes;
 * - its background jobs in the job queue;
 * - its DatastoreReplicator buffer events and its embedded warehouse files;
 * - its data directory;
 * - with `deleteTenant`, its registry record with its API keys and user profiles (cascading).
 *
 * Without `deleteTenant` the tenant stays, with its model, keys and profiles, and starts again with
 * no data (its default data is not loaded again). While a rebuild, recalculation or sync of the
 * tenant runs on any instance, deletion is refused (ConflictError, 409): it holds the leases of all
 * three kinds while it deletes, so none can start meanwhile either. The tenant's runtime stays
 * closed in this process while its data goes, and every instance is told to close its own (this
 * one while it is still closed, so the runtime opened on the emptied tenant stays): closing a runtime
 * stops its running jobs at their next batch, answers 503 to a request still holding it, ends the
 * tenant's open event streams there (event-streams.ts), and a spreadsheet import
 * that began on the closed runtime stops at its next batch (routes/excel.ts). Upload URLs of a
 * deleted tenant store nothing (the FileService asks the registry whether the tenant exists).
 */
import { rm } from 'node:fs/promises';
import { ConflictError, NotFoundError } from '@odp/core';
import type {
  Coordination,
  JobQueue,
  Lease,
  PlatformRegistry,
  ReplicationBuffer,
  TenantRecord,
  Warehouse,
} from '@odp/core';
import { tenantDataDir } from '@odp/config';
import type { Config } from '@odp/config';
import type { SpreadsheetImports } from '@odp/excel';
import type { FileService } from '@odp/files';
import { CLASS_JOB_KINDS } from './class-jobs.js';
import type { TenantStores } from './tenant-stores.js';
import type { SearchEngine } from './search-engine.js';
import { REBUILD_LEASE_MS, jobLeaseName } from './tenant-runtime.js';
import type { TenantRuntimes } from './tenant-runtime.js';

export interface TenantDeletionDeps {
  readonly config: Config;
  readonly registry: PlatformRegistry;
  readonly runtimes: TenantRuntimes;
  readonly stores: TenantStores;
  readonly search: SearchEngine;
  readonly files: FileService;
  readonly imports: SpreadsheetImports;
  readonly jobs: JobQueue;
  readonly replication: { readonly buffer: ReplicationBuffer; readonly warehouse: Warehouse };
  readonly coordination: Coordination;
}

/** What a deletion did. */
export interface TenantDeletionResult {
  readonly id: string;
  readonly name: string;
  readonly dataDeleted: true;
  readonly tenantDeleted: boolean;
  /** Blobs of files deleted. */
  readonly files: number;
  /** Background jobs deleted. */
  readonly jobs: number;
}

export interface TenantDeletion {
  /**
   * Deletes the data of `tenantId`, and the tenant with its keys and profiles when `deleteTenant`.
   * NotFoundError for an unknown tenant; ConflictError while one of its jobs runs.
   */
  delete(tenantId: string, options: { readonly deleteTenant: boolean }): Promise<TenantDeletionResult>;
}

/** Takes the leases of every job kind of the tenant, or none: ConflictError when one is held. */
async function takeJobLeases(coordination: Coordination, tenantId: string): Promise<Lease[]> {
  const leases: Lease[] = [];
  for (const kind of ['rebuild', ...CLASS_JOB_KINDS] as const) {
    const lease = await coordination.locks.acquire(jobLeaseName(kind, tenantId), REBUILD_LEASE_MS);
    if (lease === null) {
      await Promise.all(leases.map((held) => held.release()));
      throw new ConflictError(`A job (${kind}) of this tenant is running; delete it once the job has ended.`);
    }
    leases.push(lease);
  }
  return leases;
}

export function tenantDeletion(deps: TenantDeletionDeps): TenantDeletion {
  const dropData = async (tenant: TenantRecord): Promise<{ files: number; jobs: number }> => {
    const dataDir = tenantDataDir(deps.config, tenant.id);
    await deps.stores.drop(tenant, dataDir);
    await deps.search.dropTenant(tenant.id);
    // Imports first: a running one stops and writes its last record before the records go.
    await deps.imports.deleteTenant(tenant.id);
    const files = await deps.files.deleteTenantFiles(tenant.id);
    const jobs = await deps.jobs.deleteTenant(tenant.id);
    await deps.replication.buffer.deleteTenant(tenant.id);
    await deps.replication.warehouse.deleteTenant(tenant.id);
    await rm(dataDir, { recursive: true, force: true });
    return { files, jobs };
  };
  return {
    async delete(tenantId, { deleteTenant }) {
      const tenant = await deps.registry.getTenant(tenantId);
      if (tenant === null) throw new NotFoundError('No such tenant.');
      const leases = await takeJobLeases(deps.coordination, tenant.id);
      try {
        const counts = await deps.runtimes.closedWhile(tenant.id, async () => {
          // The registry first: from here on the tenant's keys and profiles open nothing.
          if (deleteTenant) await deps.registry.deleteTenant(tenant.id);
          const dropped = await dropData(tenant);
          // Still closed here: this process hears its own announcement now, while it has no
          // runtime of the tenant, so the runtime requests open next (on the emptied tenant) stays.
          await deps.coordination.invalidations.publish({ kind: 'tenant', tenantId: tenant.id });
          return dropped;
        });
        return {
          id: tenant.id,
          name: tenant.name,
          dataDeleted: true,
          tenantDeleted: deleteTenant,
          ...counts,
        };
      } finally {
        await Promise.all(leases.map((lease) => lease.release()));
      }
    },
  };
}
