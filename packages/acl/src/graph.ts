/**
 * The relation graph as access-control derivation reads it: whole objects (forward links included)
 * and the objects linking to an id. Reads are unfiltered: derivation sees every object.
 */
import { UNRESTRICTED } from '@odp/core';
import type { StoredObject, TenantStore, WriteBatch } from '@odp/core';

export interface IncomingLink {
  readonly sourceId: string;
  readonly relationKey: string;
}

export interface AclGraph {
  /** The existing objects among `ids`, in no particular order. */
  getMany(ids: readonly string[]): Promise<StoredObject[]>;
  /** Objects whose forward links contain `id`, with the relation key. */
  linksTo(id: string): Promise<readonly IncomingLink[]>;
}

/** The graph of a tenant store as it is now. */
export function storeGraph(store: Pick<TenantStore, 'getMany' | 'linksTo'>): AclGraph {
  return {
    getMany: (ids) => (ids.length === 0 ? Promise.resolve([]) : store.getMany(ids, UNRESTRICTED)),
    linksTo: (id) => store.linksTo(id),
  };
}

/**
 * The graph as it will be once `batch` is written: objects put by the batch replace their stored
 * versions, deleted objects disappear. Derivation for a write runs on this view, so the rows it
 * produces go into the same atomic batch as the change.
 */
export function pendingGraph(base: AclGraph, batch: WriteBatch): AclGraph {
  const put = new Map((batch.put ?? []).map((object) => [object.id, object]));
  const deleted = new Set(batch.delete ?? []);
  const replaced = (id: string): boolean => put.has(id) || deleted.has(id);
  return {
    async getMany(ids) {
      const fromBase = await base.getMany(ids.filter((id) => !replaced(id)));
      const fromBatch = ids.flatMap((id) => {
        const object = put.get(id);
        return object && !deleted.has(id) ? [object] : [];
      });
      return [...fromBase, ...fromBatch];
    },
    async linksTo(id) {
      const kept = (await base.linksTo(id)).filter((link) => !replaced(link.sourceId));
      const added = [...put.values()].flatMap((object) =>
        deleted.has(object.id)
          ? []
          : Object.entries(object.links).flatMap(([relationKey, targets]) =>
              targets.includes(id) ? [{ sourceId: object.id, relationKey }] : [],
            ),
      );
      return [...kept, ...added];
    },
  };
}
