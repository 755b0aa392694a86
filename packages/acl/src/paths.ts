/**
 * Walks along the relation paths of access-control definitions. A path has a fixed number of steps
 * (from the model), and every frontier is de-duplicated, so walks terminate on cyclic graphs and
 * visit each object at most once per step however wide the fan-out.
 */
import type { AccessControlDef, AclNodeDef, RelationEnd, StoredObject } from '@odp/core';
import type { AclGraph } from './graph.js';

export interface PathStep {
  readonly end: RelationEnd;
  /** Class an object must have to take the step. */
  readonly fromClass: string;
  /** Class an object reached by the step must have. */
  readonly toClass: string;
}

function chain<T extends { readonly end: RelationEnd }>(
  start: string,
  items: readonly T[],
): (T & PathStep)[] {
  let fromClass = start;
  return items.map((item) => {
    const step = { ...item, fromClass, toClass: item.end.otherClass };
    fromClass = item.end.otherClass;
    return step;
  });
}

/** The steps from the anchor to the objects a node of an anchored definition applies to. */
export function nodeSteps(definition: AccessControlDef & { anchor: string }, node: AclNodeDef): PathStep[] {
  return chain(
    definition.anchor,
    (node.steps ?? []).map((end) => ({ end })),
  );
}

/** The steps from the anchor to the holders, with their ids (empty for a zero-hop definition). */
export function grantSteps(
  definition: AccessControlDef & { anchor: string },
): (PathStep & { readonly id: string })[] {
  return chain(
    definition.anchor,
    definition.grantToUsers.map((step) => ({ id: step.id, end: step.relation })),
  );
}

export function hasClass(object: StoredObject, className: string): boolean {
  return object.classes.includes(className);
}

async function load(graph: AclGraph, ids: Iterable<string>, className: string): Promise<StoredObject[]> {
  const objects = await graph.getMany([...new Set(ids)]);
  return objects.filter((object) => hasClass(object, className));
}

async function incoming(graph: AclGraph, objects: readonly StoredObject[], key: string): Promise<string[]> {
  const ids: string[] = [];
  for (const object of objects) {
    for (const link of await graph.linksTo(object.id)) {
      if (link.relationKey === key) ids.push(link.sourceId);
    }
  }
  return ids;
}

function outgoing(objects: readonly StoredObject[], key: string): string[] {
  return objects.flatMap((object) => object.links[key] ?? []);
}

/** The objects reached from `start` along `steps` (start objects lacking the first class are dropped). */
export async function walkForward(
  graph: AclGraph,
  start: readonly StoredObject[],
  steps: readonly PathStep[],
): Promise<StoredObject[]> {
  const first = steps[0];
  let frontier = first ? start.filter((object) => hasClass(object, first.fromClass)) : [...start];
  for (const step of steps) {
    if (frontier.length === 0) break;
    const key = step.end.relation.key;
    const next =
      step.end.direction === 'forward' ? outgoing(frontier, key) : await incoming(graph, frontier, key);
    frontier = await load(graph, next, step.toClass);
  }
  return frontier;
}

/** The objects from which `start` is reached along `steps` (start objects lacking the last class are dropped). */
export async function walkBackward(
  graph: AclGraph,
  start: readonly StoredObject[],
  steps: readonly PathStep[],
): Promise<StoredObject[]> {
  const last = steps[steps.length - 1];
  let frontier = last ? start.filter((object) => hasClass(object, last.toClass)) : [...start];
  for (const step of [...steps].reverse()) {
    if (frontier.length === 0) break;
    const key = step.end.relation.key;
    const previous =
      step.end.direction === 'forward' ? await incoming(graph, frontier, key) : outgoing(frontier, key);
    frontier = await load(graph, previous, step.fromClass);
  }
  return frontier;
}
