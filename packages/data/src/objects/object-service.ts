/**
 * The object service of one tenant: the object data operations on class names, query plans and
 * ids, given an account, returning objects (rendered DataObjects, or the id and class of what was
 * written). It knows no plural, query string, page link or href: the resource layer
 * (`resources/`) owns those, and non-HTTP callers (imports, the worker, administration) call this
 * service directly. Its operations are grouped by concern.
 */
import type { EventLog, IdempotencyRecords } from '@odp/core';
import type { DataServiceDeps } from '../deps.js';
import { EventPages } from '../event-pages.js';
import { Renderer } from '../render.js';
import { Tabular } from '../tabular.js';
import { ObjectWriter } from '../writes/object-writer.js';
import { AdminJobs } from './admin-jobs.js';
import { ObjectReads } from './reads.js';
import { ReportContexts } from './report-contexts.js';
import { ScriptRuns } from './script-runs.js';
import { ObjectWrites } from './writes.js';

export class ObjectService {
  readonly renderer: Renderer;
  readonly reads: ObjectReads;
  readonly writes: ObjectWrites;
  readonly scripts: ScriptRuns;
  /** Default data, class batches, recalculation, sync, the outbox relay. */
  readonly jobs: AdminJobs;
  readonly reports: ReportContexts;
  /** Change events as an account's event stream sends them. */
  readonly events: EventPages;
  /** Spreadsheet exports and the lookups of imports. */
  readonly tabular: Tabular;

  constructor(private readonly deps: DataServiceDeps) {
    this.renderer = new Renderer(deps.model, deps.tenantId);
    this.reads = new ObjectReads(deps, this.renderer);
    const writer = new ObjectWriter(deps);
    this.writes = new ObjectWrites(deps, this.reads, writer);
    this.scripts = new ScriptRuns(deps, this.reads, writer);
    this.jobs = new AdminJobs(deps, writer);
    this.reports = new ReportContexts(deps, this.reads);
    this.events = new EventPages(deps, this.renderer);
    this.tabular = new Tabular(deps, this.renderer);
  }

  /** The records of the tenant's keyed writes (`Idempotency-Key`): what a retry is answered. */
  get idempotency(): IdempotencyRecords {
    return this.deps.store.idempotency;
  }

  /** The tenant's event log (where a new event stream starts, what a client's `Last-Event-ID` names). */
  get eventLog(): EventLog {
    return this.deps.store.events;
  }
}
