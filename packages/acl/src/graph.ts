/**
 * The relation graph as access-control derivation reads it: whole objects (forward links included)
 * and the objects linking to an id. Reads are unfiltered: derivation sees every object.
 */
import { UNRESTRICTED } from '@odp/core';
import type { StoredObject, TenantDocuments, WriteBatch } from '@odp/core';

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
export function storeGraph(store: Pick<TenantDocuments, 'getMany' | 'linksTo'>): AclGraph {
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

/**
 * `base` reading each object and each id's incoming links at most once. For the reads of one
 * derivation only: it runs while no other ACL-affecting write can commit (see
 * `TenantAccessControl.exclusive`), and walks of several node paths revisit the same objects.
 */
export function memoGraph(base: AclGraph): AclGraph {
  const objects = new Map<string, StoredObject | null>();
  const incoming = new Map<string, Promise<readonly IncomingLink[]>>();
  return {
    async getMany(ids) {
      const unique = [...new Set(ids)];
      const missing = unique.filter((id) => !objects.has(id));
      if (missing.length > 0) {
        const found = new Map((await base.getMany(missing)).map((object) => [object.id, object]));
        for (const id of missing) objects.set(id, found.get(id) ?? null);
      }
      return unique.flatMap((id) => {
        const object = objects.get(id);
        return object ? [object] : [];
      });
    },
    linksTo(id) {
      let links = incoming.get(id);
      if (links === undefined) {
        links = base.linksTo(id);
        incoming.set(id, links);
      }
      return links;
    },
  };
}
