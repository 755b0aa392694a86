/**
 * Incremental maintenance: the ACL rows and holdings a write changes, computed on the graph as it
 * will be after the write, to be written in the same atomic batch as the change.
 *
 * Re-derived: every object the batch creates or whose classes or forward links it changes (its
 * rows and, as an anchor, its holdings follow from those alone: a patch of a value derives
 * nothing), and for every link added or removed (including the links of created, deleted and
 * re-classed objects) the objects downstream of it on every node path and the anchors upstream of
 * it on every grantToUsers path.
 *
 * Walking only the graph as it is after the change suffices: an object whose anchors changed is
 * reached from the last changed link of its old or new chain (nodes), and an anchor whose holders
 * changed from the first (grants), through links the batch left alone. An object whose classes change
 * counts all its links as changed, so a chain broken by a class change is caught the same way.
 */
import type { AclRow, StoredObject, WriteBatch } from '@odp/core';
import type { AclDerivation, AnchorHoldings } from './derive.js';
import { memoGraph, pendingGraph } from './graph.js';
import type { AclGraph } from './graph.js';
import { hasClass, walkBackward, walkForward } from './paths.js';

export interface AclWriteParts {
  readonly aclRows: { readonly objectId: string; readonly rows: readonly AclRow[] }[];
  readonly holdings: AnchorHoldings[];
}

interface Link {
  readonly sourceId: string;
  readonly targetId: string;
  readonly key: string;
}

function forwardLinks(object: StoredObject): Link[] {
  return Object.entries(object.links).flatMap(([key, targets]) =>
    targets.map((targetId) => ({ sourceId: object.id, targetId, key })),
  );
}

function sameClasses(a: StoredObject, b: StoredObject): boolean {
  return a.classes.length === b.classes.length && a.classes.every((name) => b.classes.includes(name));
}

/** Whether both link to the same objects through the same relations (in any order). */
function sameLinks(a: StoredObject, b: StoredObject): boolean {
  const keys = (object: StoredObject) =>
    new Set(forwardLinks(object).map((link) => `${link.key}\u0000${link.targetId}`));
  const left = keys(a);
  const right = keys(b);
  return left.size === right.size && [...left].every((key) => right.has(key));
}

async function incomingLinks(graph: AclGraph, id: string): Promise<Link[]> {
  return (await graph.linksTo(id)).map((link) => ({
    sourceId: link.sourceId,
    targetId: id,
    key: link.relationKey,
  }));
}

/** Links the batch adds or removes, or whose endpoints' classes it changes. */
async function changedLinks(
  before: AclGraph,
  after: AclGraph,
  batch: WriteBatch,
  previous: ReadonlyMap<string, StoredObject>,
): Promise<Link[]> {
  const changed: Link[] = [];
  for (const object of batch.put ?? []) {
    const old = previous.get(object.id);
    if (!old || !sameClasses(old, object)) {
      changed.push(
        ...forwardLinks(object),
        ...(old ? forwardLinks(old) : []),
        ...(await incomingLinks(after, object.id)),
        ...(old ? await incomingLinks(before, object.id) : []),
      );
      continue;
    }
    const oldKeys = new Set(forwardLinks(old).map((link) => `${link.key}\u0000${link.targetId}`));
    const newLinks = forwardLinks(object);
    const newKeys = new Set(newLinks.map((link) => `${link.key}\u0000${link.targetId}`));
    changed.push(
      ...newLinks.filter((link) => !oldKeys.has(`${link.key}\u0000${link.targetId}`)),
      ...forwardLinks(old).filter((link) => !newKeys.has(`${link.key}\u0000${link.targetId}`)),
    );
  }
  for (const id of batch.delete ?? []) {
    const old = previous.get(id);
    if (old) changed.push(...forwardLinks(old), ...(await incomingLinks(before, id)));
  }
  return changed;
}

/**
 * The ACL rows and holdings to write together with `batch` (read from `current`, the current state,
 * each object and each id's incoming links once); with `everyPut`, of every object it puts, also
 * those whose classes and links it leaves as they are (a class sync after a model change).
 */
export async function aclWriteParts(
  derivation: AclDerivation,
  current: AclGraph,
  batch: WriteBatch,
  everyPut = false,
): Promise<AclWriteParts> {
  const graph = memoGraph(current);
  const after = pendingGraph(graph, batch);
  const deleted = new Set(batch.delete ?? []);
  const touched = [...(batch.put ?? []).map((object) => object.id), ...deleted];
  const previous = new Map((await graph.getMany(touched)).map((object) => [object.id, object]));

  // A put object's own rows and holdings follow from its classes and links alone: re-derived when
  // it is new or either changed. Changes around it reach it through the changed links below.
  const reshaped = (batch.put ?? []).filter((object) => {
    const old = previous.get(object.id);
    return everyPut || !old || !sameClasses(old, object) || !sameLinks(old, object);
  });
  const rowTargets = new Set(reshaped.map((object) => object.id));
  const anchorTargets = new Set(
    reshaped.filter((object) => derivation.isAnchor(object)).map((object) => object.id),
  );

  for (const link of await changedLinks(graph, after, batch, previous)) {
    for (const occurrence of derivation.occurrences.get(link.key) ?? []) {
      const step = occurrence.steps[occurrence.index];
      if (!step) continue;
      const forward = step.end.direction === 'forward';
      if (occurrence.kind === 'node') {
        const downstream = forward ? link.targetId : link.sourceId;
        const start = (await after.getMany([downstream])).filter((object) => hasClass(object, step.toClass));
        const reached = await walkForward(after, start, occurrence.steps.slice(occurrence.index + 1));
        for (const object of reached) rowTargets.add(object.id);
      } else {
        const upstream = forward ? link.sourceId : link.targetId;
        const start = (await after.getMany([upstream])).filter((object) => hasClass(object, step.fromClass));
        const anchors = await walkBackward(after, start, occurrence.steps.slice(0, occurrence.index));
        for (const anchor of anchors) anchorTargets.add(anchor.id);
      }
    }
  }

  const aclRows: AclWriteParts['aclRows'] = [];
  for (const object of await after.getMany([...rowTargets].filter((id) => !deleted.has(id)))) {
    aclRows.push({ objectId: object.id, rows: await derivation.rowsFor(after, object) });
  }
  const holdings: AnchorHoldings[] = [];
  for (const anchor of await after.getMany([...anchorTargets].filter((id) => !deleted.has(id)))) {
    holdings.push(...(await derivation.holdingsFor(after, anchor)));
  }
  for (const id of deleted) {
    const old = previous.get(id);
    if (!old) continue;
    aclRows.push({ objectId: id, rows: [] });
    for (const definition of derivation.anchored) {
      if (hasClass(old, definition.anchor))
        holdings.push({ anchorId: id, definition: definition.name, rows: [] });
    }
  }
  return { aclRows, holdings };
}
