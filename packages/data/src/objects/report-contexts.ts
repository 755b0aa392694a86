/** What a report of an object is rendered from (model format section 8). */
import { NotFoundError } from '@odp/core';
import type { Account, ReportDef, StoredObject } from '@odp/core';
import { relationsOf } from '../classes.js';
import type { DataServiceDeps } from '../deps.js';
import type { ObjectReads } from './reads.js';

export interface ReportContext {
  readonly object: StoredObject;
  readonly report: ReportDef;
  readonly context: Record<string, unknown>;
}

export class ReportContexts {
  constructor(
    private readonly deps: DataServiceDeps,
    private readonly reads: ObjectReads,
  ) {}

  /**
   * `context` is object `id` (as `className` addresses it, when given) rendered as Get one renders
   * it for `account`, with each relation's name holding the linked objects the account may read,
   * rendered the same way (one level: their own relations stay links); null or an empty array when
   * there are none. `report` is the report `reportName` of one of the object's classes;
   * NotFoundError without one.
   */
  async of(account: Account, id: string, reportName: string, className?: string): Promise<ReportContext> {
    const model = this.deps.model;
    const object = await this.reads.get(account, id, className);
    const report = object.classes
      .flatMap((name) => model.classes.get(name)?.reports ?? [])
      .find((candidate) => candidate.name === reportName);
    if (!report) throw new NotFoundError('The class has no report of this name.');
    const filter = await this.reads.filter(account);
    const store = this.deps.store;
    const [rendered] = await this.reads.render(account, [object]);
    const context: Record<string, unknown> = { ...rendered };
    for (const [name, end] of relationsOf(model, object.classes)) {
      const ids =
        end.direction === 'forward'
          ? (object.links[end.relation.key] ?? [])
          : (await store.incomingRefs([object.id], filter))
              .filter((ref) => ref.relationKey === end.relation.key)
              .map((ref) => ref.id);
      const found = new Map((await store.getMany(ids, filter)).map((linked) => [linked.id, linked]));
      const ordered = ids.flatMap((linkedId) => {
        const linked = found.get(linkedId);
        return linked ? [linked] : [];
      });
      const linked = await this.reads.render(account, ordered);
      context[name] = end.multiple ? linked : (linked[0] ?? null);
    }
    return { object, report, context };
  }
}
