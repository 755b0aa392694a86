/**
 * A tenant's model and the composition built on it: one immutable `TenantData` (store, search,
 * object service, access control) per model version. The model served is the version the platform
 * registry names current (model-versions.ts); a reload reads the model repository again and, when
 * it loads, stores it as a version and names it current; a sync switches to the version the
 * registry names when another instance (or `odp`) changed it. One change at a time: the switch
 * builds the next composition on the same store and search and swaps it in whole, so a request
 * holds one version from start to end. A refused model never becomes a version.
 */
import { TenantChangingError } from '@odp/core';
import type { Model, PlatformRegistry, TenantRecord } from '@odp/core';
import type { Config } from '@odp/config';
import { TenantModel } from '@odp/model-loader';
import type { ModelLoadResult, ModelStatus } from '@odp/model-loader';
import { loadModelVersion, publishModelVersion, readModelCandidate } from './model-versions.js';
import { openTenantData, withModel } from './tenant-data.js';
import type { TenantData, TenantDataOptions } from './tenant-data.js';

export type ReloadResult = Awaited<ReturnType<TenantModel['reload']>>;

/** Where the switch finds and keeps the tenant's model versions. */
export interface ModelSwitchSources {
  readonly registry: PlatformRegistry;
  readonly config: Pick<Config, 'maxModelBytes' | 'modelVersions'>;
}

export class ModelSwitch {
  private composed: TenantData | null = null;
  private changes: Promise<unknown> = Promise.resolve();
  /** Set by `close`: the tenant's data may be going (deletion), so nothing may use it any more. */
  private closed = false;
  /** A stored version that did not load here (a sync does not try it again). */
  private refusedVersion: number | null = null;

  private constructor(
    private readonly tenant: TenantRecord,
    private readonly dataDir: string,
    private readonly sources: ModelSwitchSources,
    /** The tenant's model and its status (`GET /admin/{tenant}/modelStatus`). */
    readonly model: TenantModel,
    private readonly onChange: () => void,
    private readonly options: TenantDataOptions,
  ) {}

  /**
   * Loads the tenant's current model version and composes its data on it (none while no model
   * loads). A tenant that has no version yet (its model was never stored: data from before model
   * versions, or a new tenant) has its repository read and, when it loads, stored as its first.
   */
  static async open(
    tenant: TenantRecord,
    dataDir: string,
    sources: ModelSwitchSources,
    onChange: () => void,
    options: TenantDataOptions,
  ): Promise<ModelSwitch> {
    const current = await sources.registry.modelVersions.current(tenant.id);
    const stored =
      current === null ? null : await loadModelVersion(sources.registry, tenant.id, current.version);
    let model: TenantModel;
    if (current !== null && stored !== null) {
      model = await TenantModel.applied(stored, current.version);
    } else {
      const { result, bundle } = await readModelCandidate(tenant.modelSource, sources.config);
      const version = bundle ? await publishModelVersion(sources.registry, tenant.id, bundle) : null;
      model = await TenantModel.applied(result, version?.version ?? null);
    }
    const modelSwitch = new ModelSwitch(tenant, dataDir, sources, model, onChange, options);
    modelSwitch.logStatus(model.status);
    if (model.model)
      modelSwitch.composed = await openTenantData(tenant, model.model, dataDir, onChange, options);
    return modelSwitch;
  }

  /** The composition of the active model, or null (no model has loaded yet). */
  composition(): TenantData | null {
    return this.composed;
  }

  /**
   * The composition for the active model; UnavailableError (503) naming the status without one,
   * TenantChangingError (503) once the switch is closed (a job asks for it every batch, so it stops
   * at the next one) or while the model is being applied.
   */
  current(): TenantData {
    if (this.closed) throw new TenantChangingError('The tenant is being changed; try again.');
    this.model.requireModel();
    if (this.composed === null)
      throw new TenantChangingError('The tenant model is being applied; try again.');
    return this.composed;
  }

  /**
   * Reads the model repository again; when it loads, stores it as a version, switches to it and
   * names it current. Refused, the current version stays (status REFUSED, or FAILED without one).
   */
  reload(): Promise<ReloadResult> {
    return this.serialized(async () => {
      const { result, bundle } = await readModelCandidate(this.tenant.modelSource, this.sources.config);
      if (bundle === undefined) return this.apply(result, null);
      const { registry } = this.sources;
      const { version } = await registry.modelVersions.save(this.tenant.id, bundle.hash, bundle.text);
      // Switched here first, then named current: the others follow a store that already has the
      // model applied (its indexes, its derived fields) rather than applying it at the same time.
      const applied = await this.apply(result, version);
      await registry.modelVersions.setCurrent(this.tenant.id, version);
      return applied;
    });
  }

  /**
   * Switches to the version the registry names current when this switch serves another (an
   * announcement or the poll). Resolves whether it switched.
   */
  sync(current?: number): Promise<boolean> {
    return this.serialized(async () => {
      const named = async () => (await this.sources.registry.modelVersions.current(this.tenant.id))?.version;
      // `current` was read before this turn (a poll's snapshot): a reload that ran meanwhile may
      // have named another version, so the registry is asked again before switching to it.
      const hinted = current ?? (await named());
      const version = current !== undefined && hinted !== this.model.status.version ? await named() : hinted;
      if (version === undefined || version === this.model.status.version || version === this.refusedVersion) {
        return false;
      }
      const stored = await loadModelVersion(this.sources.registry, this.tenant.id, version);
      if (stored === null) return false;
      if (stored.model === undefined) this.refusedVersion = version;
      return (await this.apply(stored, version)).changed;
    });
  }

  /** Refuses every later `current()`; `release` then closes the composition's store. */
  close(): void {
    this.closed = true;
  }

  /** Whether `close` was called (the composition's store is closing or closed). */
  isClosed(): boolean {
    return this.closed;
  }

  async release(): Promise<void> {
    await this.composed?.close();
  }

  private serialized<T>(change: () => Promise<T>): Promise<T> {
    const run = this.changes.then(change);
    this.changes = run.catch(() => undefined);
    return run;
  }

  /**
   * Takes a load as the tenant's model (of `version`): a model that loaded is composed first and
   * then recorded and swapped in, so a composition that fails (the store busy) changes nothing and
   * the next sync tries again.
   */
  private async apply(result: ModelLoadResult, version: number | null): Promise<ReloadResult> {
    const next = result.model && !this.closed ? await this.compose(result.model) : null;
    const applied = await this.model.apply(result, version);
    this.logStatus(applied.status);
    if (next !== null) this.composed = next;
    return applied;
  }

  private compose(model: Model): Promise<TenantData> {
    return this.composed
      ? withModel(this.composed, this.tenant, model, this.onChange, this.options)
      : openTenantData(this.tenant, model, this.dataDir, this.onChange, this.options);
  }

  private logStatus(status: ModelStatus): void {
    if (status.state === 'LOADED') return;
    this.options.log.error('tenant model refused', {
      tenantId: this.tenant.id,
      state: status.state,
      errors: status.errors.length,
    });
  }
}
