import type { Model, ModelIssue } from '@odp/core';
import { isAppError, UnavailableError } from '@odp/core';
import type { ModelLoadResult } from './load.js';
import { buildModel, loadModelRepository } from './load.js';

/** What a tenant without a model source has: the built-in classes and lists only. */
const EMPTY_MODEL = buildModel({ modelFiles: [], dataFiles: [], templateFiles: [], truncated: false });

/** Model load status (interface spec, States and transitions). */
export type ModelState = 'LOADED' | 'REFUSED' | 'FAILED';

/** The model status body of `GET /admin/{tenant}/modelStatus`. */
export interface ModelStatus {
  readonly state: ModelState;
  /** ISO-8601 time of the latest load. */
  readonly checkedAt: string;
  /** Why the latest model was refused; empty when LOADED. */
  readonly errors: readonly ModelIssue[];
  /** WARNING and INFO findings of the latest load. */
  readonly warnings: readonly ModelIssue[];
  /** Number of files in an older definition format. */
  readonly upgradableFiles: number;
}

export interface TenantModelOptions {
  /** The clock for `checkedAt`; the system clock when absent. */
  readonly now?: () => Date;
  /** Most bytes read from the repository (`ODP_MAX_MODEL_BYTES`); the loader's default when absent. */
  readonly maxRepositoryBytes?: number;
  /** Loads a repository; `loadModelRepository` when absent. */
  readonly load?: (source: string) => Promise<ModelLoadResult>;
}

/**
 * The model of one tenant and its load status. A load that is refused keeps the previous model active
 * (REFUSED) or, when there is none, leaves the tenant without a model (FAILED). Loads are serialized:
 * a reload waits for one in progress and then loads again, so it always reflects the files as they are
 * when it was asked for.
 */
export class TenantModel {
  private active: Model | undefined;
  private latest: ModelStatus;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly source: string | null,
    private readonly options: TenantModelOptions,
  ) {
    this.latest = { state: 'FAILED', checkedAt: this.now(), errors: [], warnings: [], upgradableFiles: 0 };
  }

  /** Loads the model from `source`, a repository directory; null gives the empty model (built-ins only). */
  static async open(source: string | null, options: TenantModelOptions = {}): Promise<TenantModel> {
    const tenantModel = new TenantModel(source, options);
    await tenantModel.reload();
    return tenantModel;
  }

  /** The active model; undefined while FAILED. */
  get model(): Model | undefined {
    return this.active;
  }

  get status(): ModelStatus {
    return this.latest;
  }

  /** The active model, or UnavailableError (503) naming the model status when the tenant has none. */
  requireModel(): Model {
    if (this.active) return this.active;
    throw new UnavailableError(
      `The tenant has no usable model: its latest model load is ${this.latest.state} (${this.latest.errors.length} error(s)); an admin can see them at /admin/{tenant}/modelStatus.`,
      { modelStatus: this.latest },
    );
  }

  /** Loads the repository again; resolves with the new status and whether the active model changed. */
  reload(): Promise<{ readonly status: ModelStatus; readonly changed: boolean }> {
    const run = this.queue.then(() => this.loadOnce());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private now(): string {
    return (this.options.now ? this.options.now() : new Date()).toISOString();
  }

  private async loadOnce(): Promise<{ status: ModelStatus; changed: boolean }> {
    const result = await this.read();
    const errors = result.issues.filter((i) => i.severity === 'ERROR');
    const warnings = result.issues.filter((i) => i.severity !== 'ERROR');
    const changed = result.model !== undefined;
    if (result.model) this.active = result.model;
    this.latest = {
      state: result.model ? 'LOADED' : this.active ? 'REFUSED' : 'FAILED',
      checkedAt: this.now(),
      errors,
      warnings,
      upgradableFiles: result.upgradableFiles.length,
    };
    return { status: this.latest, changed };
  }

  private async read(): Promise<ModelLoadResult> {
    const unreadable = (message: string): ModelLoadResult => ({
      issues: [{ severity: 'ERROR', file: '', path: '', message }],
      upgradableFiles: [],
    });
    if (this.source === null) return EMPTY_MODEL;
    try {
      const { load, maxRepositoryBytes } = this.options;
      return await (load ? load(this.source) : loadModelRepository(this.source, maxRepositoryBytes));
    } catch (error) {
      if (isAppError(error)) return unreadable(error.message);
      throw error;
    }
  }
}
