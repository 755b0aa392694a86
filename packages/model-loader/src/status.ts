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
  /**
   * The registry's model version the tenant serves (the active model's); null when it serves none
   * (no model, or a model read from a directory without a stored version).
   */
  readonly version: number | null;
}

/**
 * The status of a load, given the model `served` after it (the loaded one, or the earlier one that
 * stays; null when none): LOADED when it loaded; refused, REFUSED while a model is served, else
 * FAILED. The status names the served model's registry version.
 */
export function modelStatusOf(
  result: ModelLoadResult,
  served: { readonly version: number | null } | null,
  checkedAt: string,
): ModelStatus {
  return {
    state: result.model ? 'LOADED' : served ? 'REFUSED' : 'FAILED',
    checkedAt,
    errors: result.issues.filter((i) => i.severity === 'ERROR'),
    warnings: result.issues.filter((i) => i.severity !== 'ERROR'),
    upgradableFiles: result.upgradableFiles.length,
    version: served?.version ?? null,
  };
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
  /** The registry version of `active`. */
  private activeVersion: number | null = null;
  private latest: ModelStatus;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly source: string | null,
    private readonly options: TenantModelOptions,
  ) {
    this.latest = {
      state: 'FAILED',
      checkedAt: this.now(),
      errors: [],
      warnings: [],
      upgradableFiles: 0,
      version: null,
    };
  }

  /** Loads the model from `source`, a repository directory; null gives the empty model (built-ins only). */
  static async open(source: string | null, options: TenantModelOptions = {}): Promise<TenantModel> {
    const tenantModel = new TenantModel(source, options);
    await tenantModel.reload();
    return tenantModel;
  }

  /**
   * A tenant model that is given its loads (`apply`) instead of reading a repository: the
   * platform's, whose versions live in the registry. `result` is its first load.
   */
  static async applied(
    result: ModelLoadResult,
    version: number | null,
    options: TenantModelOptions = {},
  ): Promise<TenantModel> {
    const tenantModel = new TenantModel(null, options);
    await tenantModel.apply(result, version);
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
    return this.serialized(async () => this.record(await this.read(), null));
  }

  /**
   * Takes a load made elsewhere (in turn with other loads): `result` of registry version `version`
   * becomes active when it loaded; refused, the active model and its version stay.
   */
  apply(
    result: ModelLoadResult,
    version: number | null,
  ): Promise<{ readonly status: ModelStatus; readonly changed: boolean }> {
    return this.serialized(async () => this.record(result, version));
  }

  private serialized<T>(load: () => Promise<T>): Promise<T> {
    const run = this.queue.then(load);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private now(): string {
    return (this.options.now ? this.options.now() : new Date()).toISOString();
  }

  private record(result: ModelLoadResult, version: number | null): { status: ModelStatus; changed: boolean } {
    const changed = result.model !== undefined;
    if (result.model) {
      this.active = result.model;
      this.activeVersion = version;
    }
    const served = this.active ? { version: this.activeVersion } : null;
    this.latest = modelStatusOf(result, served, this.now());
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
