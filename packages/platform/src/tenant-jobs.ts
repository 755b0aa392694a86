/**
 * A tenant's long jobs in this process: the rebuild (derived data, access control) and the class
 * recalculation and sync jobs, one tracker per kind so that one job of each kind runs at a time, each
 * under a lease of the deployment's coordination so that one instance runs it at a time.
 */
import { ConflictError, keepRenewed } from '@odp/core';
import type { Coordination } from '@odp/core';
import { RebuildTracker } from '@odp/acl';
import type { RebuildStatus } from '@odp/acl';
import { CLASS_JOB_KINDS, startClassJob } from './class-jobs.js';
import type { ClassJobKind } from './class-jobs.js';
import type { Logger } from './log.js';
import type { TenantData } from './tenant-data.js';
import { startTenantRebuild } from './tenant-rebuild.js';

/** How long a rebuild lease lasts without renewal (an instance that dies frees it after this). */
export const REBUILD_LEASE_MS = 30_000;

/** The name of a tenant's rebuild lease (see `TenantRuntime.startExclusive`). */
export function rebuildLeaseName(tenantId: string): string {
  return jobLeaseName('rebuild', tenantId);
}

/** The lease of the tenant's jobs of one kind: `rebuild` (both rebuilds), `recalculate` or `sync`. */
export function jobLeaseName(kind: 'rebuild' | ClassJobKind, tenantId: string): string {
  return `${kind}:${tenantId}`;
}

export class TenantJobs {
  /** The tenant's rebuild job and its progress (one at a time; survives model reloads). */
  readonly rebuilds = new RebuildTracker();
  readonly classJobs = Object.fromEntries(
    CLASS_JOB_KINDS.map((kind) => [kind, new RebuildTracker()]),
  ) as Record<ClassJobKind, RebuildTracker>;

  constructor(
    private readonly tenantId: string,
    private readonly coordination: Coordination,
    private readonly log: Logger,
    /** The composition a job works on, asked again at every batch (see ModelSwitch.current). */
    private readonly current: () => TenantData,
  ) {}

  /** Starts the full rebuild of the tenant's derived data under the tenant's rebuild lease. */
  startRebuild(onError: (error: unknown) => void): Promise<RebuildStatus> {
    this.current();
    return this.startExclusive(() => startTenantRebuild(this.rebuilds, this.current, onError));
  }

  /** Runs `start` (a job on `rebuilds`) holding the tenant's rebuild lease. */
  startExclusive(start: () => RebuildStatus): Promise<RebuildStatus> {
    return this.exclusive(this.rebuilds, rebuildLeaseName(this.tenantId), start);
  }

  /** Starts the `kind` job of class `typeName` under the tenant's lease of that kind. */
  startClassJob(
    kind: ClassJobKind,
    typeName: string,
    onError: (error: unknown) => void,
  ): Promise<RebuildStatus> {
    // The class first: an unknown class is a 404 even while a job of the kind runs.
    this.current().data.jobClass(typeName);
    return this.exclusive(this.classJobs[kind], jobLeaseName(kind, this.tenantId), () =>
      startClassJob(this.classJobs[kind], kind, typeName, this.current, onError),
    );
  }

  /** Resolves once every running job has stopped (they stop at their next batch once closed). */
  async settled(): Promise<void> {
    await Promise.all([this.rebuilds, ...Object.values(this.classJobs)].map((tracker) => tracker.settled()));
  }

  /**
   * Runs `start` (which starts a job on `tracker`) holding the lease `leaseName`, renewed while the
   * job runs and released when it ends: ConflictError while another instance holds it.
   */
  private async exclusive(
    tracker: RebuildTracker,
    leaseName: string,
    start: () => RebuildStatus,
  ): Promise<RebuildStatus> {
    if (tracker.status().state === 'running')
      throw new ConflictError(`A job (${tracker.status().kind}) is already running.`);
    const lease = await this.coordination.locks.acquire(leaseName, REBUILD_LEASE_MS);
    if (lease === null) throw new ConflictError('A job of this kind is running on another instance.');
    let status: RebuildStatus;
    try {
      status = start();
    } catch (error) {
      await lease.release();
      throw error;
    }
    const { tenantId, log } = this;
    const stopRenewing = keepRenewed(lease, REBUILD_LEASE_MS / 3, (error) =>
      log.error('job lease lost', { tenantId, leaseName, error: String(error ?? 'taken over') }),
    );
    void tracker
      .settled()
      .then(async () => {
        stopRenewing();
        await lease.release();
      })
      .catch((error: unknown) =>
        log.error('job lease release failed', { tenantId, leaseName, error: String(error) }),
      );
    return status;
  }
}
