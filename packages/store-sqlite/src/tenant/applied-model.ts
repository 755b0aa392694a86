/**
 * The model a tenant store derives its rows from (index rows, unique checks, search text), with
 * its index signature. Queries and writes require one applied first.
 */
import type { Model } from '@odp/core';
import { indexSignature } from './index-keys.js';
import type { TenantDatabase } from './database.js';

const EMPTY_MODEL: Model = {
  classes: new Map(),
  byPlural: new Map(),
  lists: new Map(),
  accessControl: [],
  roles: [],
  settings: {},
  defaultData: [],
  templates: new Map(),
};

export class AppliedModel {
  private model: Model = EMPTY_MODEL;
  private applied = false;
  /** The index signature of `current`, computed once per model. */
  private currentSignature = '';
  /**
   * The last answer of {@link derivedCurrent} and the `data_version` it was read at; forgotten
   * after a write of this connection and when another model is taken into use.
   */
  private derivedCheck?: { dataVersion: number; current: boolean };

  constructor(
    private readonly database: TenantDatabase,
    /** Told of every model taken into use (the counters of `aggregates.ts`). */
    private readonly onUse: (model: Model) => void,
    /**
     * The store's own layout of derived data (class-columns.ts), recorded beside the signature: a
     * data file built with another layout is rebuilt like one built for another model.
     */
    readonly layout: string,
  ) {
    database.onForget('write', () => (this.derivedCheck = undefined));
  }

  get current(): Model {
    return this.model;
  }

  get signature(): string {
    return this.currentSignature;
  }

  /** Takes `model` into use (writes and rebuilds derive from it); `applied` once `applyModel` ran. */
  use(model: Model, applied = false): void {
    this.model = model;
    this.currentSignature = indexSignature(model);
    this.derivedCheck = undefined;
    this.onUse(model);
    if (applied) this.applied = true;
  }

  /**
   * Whether the stored derived data (index rows, class value tables, counters, search text) was
   * built for the current model and layout: false while a rebuild runs (in this process or another).
   */
  derivedCurrent(): boolean {
    // The signature is kilobytes long: read and compared again only after a commit (of this
    // process or another), not on every list.
    const dataVersion = this.database.dataVersion();
    if (this.derivedCheck?.dataVersion === dataVersion) return this.derivedCheck.current;
    const current =
      this.database
        .statement(
          "SELECT (SELECT v FROM meta WHERE k = 'index_signature') = ? AND (SELECT v FROM meta WHERE k = 'layout') = ?",
        )
        .pluck()
        .get(this.currentSignature, this.layout) === 1;
    this.derivedCheck = { dataVersion, current };
    return current;
  }

  require(): void {
    if (!this.applied) throw new Error('applyModel must be called before queries and writes.');
  }
}
