/**
 * Ids, BASIC classes and names of linked and linking objects (reference lists, delete checks),
 * read from the link entries (`lk`, `lt`) of the object documents.
 */
import type { AccessFilter, IncomingBound, IncomingRef, ObjectRef } from '@odp/core';
import type { TenantCollections } from './collections.js';
import { linkEntry, parseLinkEntry } from './documents.js';
import type { ObjectDoc } from './documents.js';
import { accessCondition, and } from './query.js';

export class TenantNames {
  constructor(private readonly c: TenantCollections) {}

  async linksTo(id: string): Promise<{ sourceId: string; relationKey: string }[]> {
    const sources = await this.c.objects
      .find({ lt: id }, { projection: { _id: 1, lk: 1 } })
      .sort({ seq: 1 })
      .toArray();
    return sources.flatMap((source) =>
      source.lk
        .map(parseLinkEntry)
        .filter((link) => link.targetId === id)
        .map((link) => ({ sourceId: source._id, relationKey: link.relationKey })),
    );
  }

  async refsOf(ids: readonly string[], access: AccessFilter): Promise<ObjectRef[]> {
    if (ids.length === 0) return [];
    const docs = await this.c.objects
      .find(and([{ _id: { $in: [...ids] } }, accessCondition(access)]), {
        projection: { _id: 1, basic: 1, name: 1 },
      })
      .toArray();
    return docs.map((doc) => ({ id: doc._id, basicClass: doc.basic, name: doc.name }));
  }

  /**
   * Ordered by target, then by linking object in creation order and link position (as `linksTo`).
   * With a bound, one query per (target, relation) on the `lk` index, at most `limit` linkers each.
   */
  async incomingRefs(
    ids: readonly string[],
    access: AccessFilter,
    bound?: IncomingBound,
  ): Promise<IncomingRef[]> {
    if (ids.length === 0) return [];
    const targets = new Set(ids);
    const projection = { _id: 1, basic: 1, name: 1, lk: 1 };
    const refsTo = (target: string, sources: readonly ObjectDoc[], relationKey?: string) =>
      sources.flatMap((source) =>
        source.lk
          .map(parseLinkEntry)
          .filter(
            (link) =>
              link.targetId === target && (relationKey === undefined || link.relationKey === relationKey),
          )
          .map((link) => ({
            targetId: target,
            relationKey: link.relationKey,
            id: source._id,
            basicClass: source.basic,
            name: source.name,
          })),
      );
    if (bound !== undefined) {
      const perTarget = await Promise.all(
        [...targets].map(async (target) => {
          const byRelation = await Promise.all(
            bound.relationKeys.map(async (relationKey) => {
              const sources = await this.c.objects
                .find(and([{ lk: linkEntry(relationKey, target) }, accessCondition(access)]), {
                  projection,
                })
                .sort({ seq: 1 })
                .limit(bound.limit)
                .toArray();
              return refsTo(target, sources, relationKey).slice(0, bound.limit);
            }),
          );
          return byRelation.flat();
        }),
      );
      return perTarget.flat();
    }
    const sources = await this.c.objects
      .find(and([{ lt: { $in: [...targets] } }, accessCondition(access)]), { projection })
      .sort({ seq: 1 })
      .toArray();
    return [...targets].flatMap((target) => refsTo(target, sources));
  }
}
