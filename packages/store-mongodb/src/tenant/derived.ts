/**
 * Which derived values a reader may not see (see `derivedSources` of `@odp/core`): the value of a
 * derived field on an object is hidden when some object reached along one of the field's source
 * paths is not visible under the access filter. Such a value counts as empty for filters, sorts,
 * distinct, field values and aggregations, and `hiddenDerivedFields` reports it.
 *
 * Decided by walking the paths from the objects in question, one query per relation step on the
 * link entries (`lk`) and ACL ids (`ac`) of the documents: no `$lookup` (see query.ts). The cost
 * grows with the objects asked about, so callers ask only when the access filter restricts
 * something and the field is derived.
 */
import type { AccessFilter, SourcePath } from '@odp/core';
import type { Collection } from 'mongodb';
import { linkEntry, targetsOf } from './documents.js';
import type { ObjectDoc } from './documents.js';

type Reached = Pick<ObjectDoc, '_id' | 'classes' | 'ac'>;

/** Whether `access` restricts anything (otherwise no derived value is ever hidden). */
export function restricts(access: AccessFilter): access is Extract<AccessFilter, { kind: 'acl' }> {
  return access.kind !== 'all' && access.protectedClasses.length > 0;
}

/** The in-memory twin of `accessCondition` (query.ts) for one document. */
function isVisible(doc: Reached, access: AccessFilter): boolean {
  if (!restricts(access)) return true;
  const protectedClasses = new Set(access.protectedClasses);
  if (!doc.classes.some((name) => protectedClasses.has(name))) return true;
  const held = new Set(access.acIds);
  return doc.ac.some((acId) => held.has(acId));
}

/**
 * The ids among `origins` whose value computed along any of `paths` is hidden under `access`:
 * walking a path from the object, some reached object is not visible. Objects reached only through
 * visible objects are walked further; a path that reaches nothing hides nothing.
 */
export async function hiddenAmong(
  objects: Collection<ObjectDoc>,
  origins: readonly string[],
  paths: readonly SourcePath[],
  access: AccessFilter,
): Promise<Set<string>> {
  const hidden = new Set<string>();
  if (!restricts(access)) return hidden;
  for (const path of paths) {
    let frontier = new Map<string, Set<string>>(
      origins.filter((id) => !hidden.has(id)).map((id) => [id, new Set([id])]),
    );
    for (const end of path) {
      if (frontier.size === 0) break;
      const current = [...new Set([...frontier.values()].flatMap((ids) => [...ids]))];
      const reachedFrom = await step(objects, current, end.relation.key, end.direction);
      const next = new Map<string, Set<string>>();
      for (const [origin, ids] of frontier) {
        const reached = new Set<string>();
        for (const id of ids) {
          for (const doc of reachedFrom.get(id) ?? []) {
            if (isVisible(doc, access)) reached.add(doc._id);
            else hidden.add(origin);
          }
        }
        if (!hidden.has(origin) && reached.size > 0) next.set(origin, reached);
      }
      frontier = next;
    }
  }
  return hidden;
}

/** For each of `ids`, the objects one relation step away (targets forward, linking objects inverse). */
async function step(
  objects: Collection<ObjectDoc>,
  ids: readonly string[],
  relationKey: string,
  direction: 'forward' | 'inverse',
): Promise<Map<string, Reached[]>> {
  const reachedFrom = new Map<string, Reached[]>();
  const projection = { _id: 1, classes: 1, ac: 1, lk: 1 };
  if (direction === 'forward') {
    const sources = await objects
      .find({ _id: { $in: [...ids] } }, { projection: { _id: 1, lk: 1 } })
      .toArray();
    const targetsBySource = new Map(
      sources.map((doc) => [doc._id, [...new Set(targetsOf(doc.lk, relationKey))]]),
    );
    const all = [...new Set([...targetsBySource.values()].flat())];
    if (all.length === 0) return reachedFrom;
    const targets = new Map(
      (await objects.find({ _id: { $in: all } }, { projection }).toArray()).map((doc) => [doc._id, doc]),
    );
    for (const [source, ids] of targetsBySource) {
      reachedFrom.set(
        source,
        ids.flatMap((id) => targets.get(id) ?? []),
      );
    }
    return reachedFrom;
  }
  const wanted = new Set(ids);
  const sources = await objects
    .find({ lk: { $in: ids.map((id) => linkEntry(relationKey, id)) } }, { projection })
    .toArray();
  for (const source of sources) {
    for (const target of new Set(targetsOf(source.lk, relationKey))) {
      if (wanted.has(target)) reachedFrom.set(target, [...(reachedFrom.get(target) ?? []), source]);
    }
  }
  return reachedFrom;
}
