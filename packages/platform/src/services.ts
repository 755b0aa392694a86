/**
 * The services of a platform process that the HTTP edge (`@odp/api`'s `createApp`) and the worker
 * are built from.
 */
import type { StreamTokens, TokenVerifier } from '@odp/auth';
import type { Config } from '@odp/config';
import type { JobQueue, LockService, PlatformRegistry } from '@odp/core';
import type { SpreadsheetImports } from '@odp/excel';
import type { FileService } from '@odp/files';
import type { ServiceUsage } from '@odp/gateways';
import type { FairShare } from './fair-share.js';
import type { Logger } from './log.js';
import type { TenantDeletion } from './tenant-deletion.js';
import type { TenantRuntimes } from './tenant-runtime.js';

/** One engine the api needs to serve requests. `check` rejects when the engine does not answer. */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<void>;
}

/**
 * Platform-wide services the HTTP edge and the worker are built from. Per-tenant components live
 * in the TenantRuntime (`runtimes.get(tenantId)`), not here.
 */
export interface PlatformServices {
  readonly config: Config;
  readonly registry: PlatformRegistry;
  readonly runtimes: TenantRuntimes;
  /** The background job queue (script gateway calls); its jobs are listed under `/admin/{t}/jobs`. */
  readonly jobs: JobQueue;
  /** null when no identity provider is configured (every access token is refused). */
  readonly tokens: TokenVerifier | null;
  readonly log: Logger;
  /** Uploads, downloads and the bytes of FILE and IMAGE fields, on the configured blob store. */
  readonly files: FileService;
  /** Spreadsheet imports running in the background, their progress in the blob store (docs/excel.md). */
  readonly imports: SpreadsheetImports;
  /** Directory of the bundled example models that `POST /tenants {model}` may name. */
  readonly examplesDir: string;
  /** The clock for credential expiry; tests and production use the wall clock. */
  readonly now: () => Date;
  /** The engines `GET /ready` checks: every one the configuration names. */
  readonly readiness: readonly ReadinessCheck[];
  /** Issues and opens the tokens that open an event stream without headers (`EventSource`). */
  readonly streamTokens: StreamTokens;
  /**
   * Rate limits and usage records of external services (`ODP_RATE_LIMITS`). A route that makes
   * or triggers an external call (an import) asks `usage.assertWithinLimit(tenantId, service)`
   * first (ServiceLimitError: 429 with Retry-After) and makes each call through `usage.call`.
   */
  readonly usage: ServiceUsage;
  /** Deletes a tenant's data from every configured backend, and the tenant (`DELETE /admin/{tenant}`). */
  readonly deletion: TenantDeletion;
  /**
   * The tenants' fair share of this process (fair-share.ts): every tenant request is admitted by
   * it at the edge; work that is not a request of its own (a page of an event stream's replay)
   * takes its turn with `fairShare.turn(tenantId, work)`.
   */
  readonly fairShare: FairShare;
  /**
   * Leases shared by the api processes of the deployment (its coordination: the primary's among
   * the processes of one machine, Redis between machines, this process alone otherwise): caps
   * that hold across the processes, such as a tenant's report renderings, take one lease a slot.
   */
  readonly locks: LockService;
}
