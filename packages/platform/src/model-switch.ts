/**
 * A tenant's model and the composition built on it: one immutable `TenantData` (store, search,
 * object service, access control) per model version. A reload reads the model repository again,
 * one reload at a time; when the model changed, the switch builds the next composition on the same
 * store and search and swaps it in whole, so a request holds one version from start to end.
 */
import { UnavailableError } from '@odp/core';
import type { TenantRecord } from '@odp/core';
import { TenantModel } from '@odp/model-loader';
import type { ModelStatus } from '@odp/model-loader';
import type { Logger } from './log.js';
import { openTenantData, withModel } from './tenant-data.js';
import type { TenantData, TenantDataOptions } from './tenant-data.js';

export type ReloadResult = Awaited<ReturnType<TenantModel['reload']>>;

export class ModelSwitch {
  private composed: TenantData | null = null;
  private reloads: Promise<unknown> = Promise.resolve();
  /** Set by `close`: the tenant's data may be going (deletion), so nothing may use it any more. */
  private closed = false;

  private constructor(
    private readonly tenant: TenantRecord,
    private readonly dataDir: string,
    /** The tenant's model and its status (`GET /admin/{tenant}/modelStatus`). */
    readonly model: TenantModel,
    private readonly onChange: () => void,
    private readonly options: TenantDataOptions,
    private readonly log: Logger,
  ) {}

  /** Loads the tenant's model and composes its data on it (none while the model does not load). */
  static async open(
    tenant: TenantRecord,
    dataDir: string,
    maxRepositoryBytes: number,
    onChange: () => void,
    options: TenantDataOptions,
  ): Promise<ModelSwitch> {
    const model = await TenantModel.open(tenant.modelSource, { maxRepositoryBytes });
    const modelSwitch = new ModelSwitch(tenant, dataDir, model, onChange, options, options.log);
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
   * or once the switch is closed (a job asks for it every batch, so it stops at the next one).
   */
  current(): TenantData {
    if (this.closed) throw new UnavailableError('The tenant is being changed; try again.');
    this.model.requireModel();
    if (this.composed === null) throw new UnavailableError('The tenant model is being applied; try again.');
    return this.composed;
  }

  /** Reloads the model repository, one reload at a time; switches the composition when it changed. */
  reload(): Promise<ReloadResult> {
    const run = this.reloads.then(async () => {
      const result = await this.model.reload();
      this.logStatus(result.status);
      const active = this.model.model;
      if (result.changed && active) {
        this.composed = this.composed
          ? await withModel(this.composed, this.tenant, active, this.onChange, this.options)
          : await openTenantData(this.tenant, active, this.dataDir, this.onChange, this.options);
      }
      return result;
    });
    this.reloads = run.catch(() => undefined);
    return run;
  }

  /** Refuses every later `current()`; `release` then closes the composition's store. */
  close(): void {
    this.closed = true;
  }

  async release(): Promise<void> {
    await this.composed?.close();
  }

  private logStatus(status: ModelStatus): void {
    if (status.state === 'LOADED') return;
    this.log.error('tenant model refused', {
      tenantId: this.tenant.id,
      state: status.state,
      errors: status.errors.length,
    });
  }
}
