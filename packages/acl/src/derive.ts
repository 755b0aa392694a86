/**
 * Derivation of stored ACL state from the model and the relation graph (model-format section 10):
 * the ACL rows an object carries and the holdings an anchor grants.
 */
import type { AccessControlDef, AclNodeDef, AclRow, Holding, Model, StoredObject } from '@odp/core';
import type { AclGraph } from './graph.js';
import { anchoredAcId, pathlessAcId } from './ids.js';
import { grantSteps, hasClass, nodeSteps, walkBackward, walkForward } from './paths.js';
import type { PathStep } from './paths.js';

export type AnchoredDef = AccessControlDef & { readonly anchor: string };

export function isAnchored(definition: AccessControlDef): definition is AnchoredDef {
  return definition.anchor !== undefined;
}

/** Holdings of one (anchor, definition) pair, as a WriteBatch replaces them. */
export interface AnchorHoldings {
  readonly anchorId: string;
  readonly definition: string;
  readonly rows: readonly Holding[];
}

/** Where a relation key occurs on a node path or a grantToUsers path. */
export interface StepOccurrence {
  readonly kind: 'node' | 'grant';
  readonly definition: AnchoredDef;
  readonly steps: readonly PathStep[];
  readonly index: number;
}

export class AclDerivation {
  readonly anchored: readonly AnchoredDef[];
  readonly pathless: readonly AccessControlDef[];
  /** Node and grant path steps by relation storage key (what a link change can affect). */
  readonly occurrences: ReadonlyMap<string, readonly StepOccurrence[]>;
  private readonly pathlessAcIds = new Map<string, string>();

  constructor(
    readonly model: Model,
    readonly tenantId: string,
  ) {
    this.anchored = model.accessControl.filter(isAnchored);
    this.pathless = model.accessControl.filter((definition) => !isAnchored(definition));
    const occurrences = new Map<string, StepOccurrence[]>();
    const note = (occurrence: StepOccurrence): void => {
      const key = occurrence.steps[occurrence.index]?.end.relation.key;
      if (key !== undefined) occurrences.set(key, [...(occurrences.get(key) ?? []), occurrence]);
    };
    for (const definition of this.anchored) {
      for (const node of definition.nodes) {
        const steps = nodeSteps(definition, node);
        steps.forEach((_, index) => note({ kind: 'node', definition, steps, index }));
      }
      const steps = grantSteps(definition);
      steps.forEach((_, index) => note({ kind: 'grant', definition, steps, index }));
    }
    this.occurrences = occurrences;
  }

  anchoredAcId(definition: string, anchorId: string): string {
    return anchoredAcId(this.tenantId, definition, anchorId);
  }

  /** Constant per definition, so computed once (a hash per object written otherwise). */
  pathlessAcId(definition: string): string {
    let acId = this.pathlessAcIds.get(definition);
    if (acId === undefined) {
      acId = pathlessAcId(this.tenantId, definition);
      this.pathlessAcIds.set(definition, acId);
    }
    return acId;
  }

  /** The anchors from which `object` is reached along the node's path. */
  async anchorsOf(
    graph: AclGraph,
    object: StoredObject,
    definition: AnchoredDef,
    node: AclNodeDef,
  ): Promise<StoredObject[]> {
    if (!hasClass(object, node.appliesTo)) return [];
    const anchors = await walkBackward(graph, [object], nodeSteps(definition, node));
    return anchors.filter((anchor) => hasClass(anchor, definition.anchor));
  }

  /** Every ACL row `object` must carry, given the graph around it. */
  async rowsFor(graph: AclGraph, object: StoredObject): Promise<AclRow[]> {
    const rows = new Map<string, AclRow>();
    const add = (row: AclRow): void => {
      rows.set(`${row.acId}\u0000${row.nodeId}`, row);
    };
    for (const definition of this.pathless) {
      for (const node of definition.nodes) {
        if (hasClass(object, node.appliesTo)) {
          add({ acId: this.pathlessAcId(definition.name), nodeId: node.id, definition: definition.name });
        }
      }
    }
    for (const definition of this.anchored) {
      for (const node of definition.nodes) {
        for (const anchor of await this.anchorsOf(graph, object, definition, node)) {
          add({
            acId: this.anchoredAcId(definition.name, anchor.id),
            nodeId: node.id,
            definition: definition.name,
          });
        }
      }
    }
    return [...rows.values()];
  }

  /** The holdings `anchor` grants, one entry per anchored definition whose anchor class it has. */
  async holdingsFor(graph: AclGraph, anchor: StoredObject): Promise<AnchorHoldings[]> {
    const result: AnchorHoldings[] = [];
    for (const definition of this.anchored) {
      if (!hasClass(anchor, definition.anchor)) continue;
      const holders = await walkForward(graph, [anchor], grantSteps(definition));
      const acId = this.anchoredAcId(definition.name, anchor.id);
      const stepIds = definition.grantToUsers.map((step) => step.id);
      result.push({
        anchorId: anchor.id,
        definition: definition.name,
        rows: holders.map((holder) => ({
          holderId: holder.id,
          acId,
          definition: definition.name,
          anchorId: anchor.id,
          stepIds,
        })),
      });
    }
    return result;
  }

  /** Whether any anchored definition is anchored on a class the object has. */
  isAnchor(object: StoredObject): boolean {
    return this.anchored.some((definition) => hasClass(object, definition.anchor));
  }
}
