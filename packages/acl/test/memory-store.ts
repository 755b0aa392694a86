/**
 * An in-memory implementation of the store operations access control uses, for the acl package's
 * unit tests (the SQLite adapter runs the same operations in the black-box suites).
 */
import type {
  AclRow,
  DistinctBucket,
  DistinctPlan,
  Holding,
  Model,
  StoredObject,
  WriteBatch,
} from '@odp/core';
import type { AclStore } from '../src/tenant-access-control.js';

export class MemoryAclStore implements AclStore {
  readonly objects = new Map<string, StoredObject>();
  private readonly rows = new Map<string, readonly AclRow[]>();
  private readonly holdings = new Map<string, readonly Holding[]>();
  writes = 0;

  async getMany(ids: readonly string[]): Promise<StoredObject[]> {
    return ids.flatMap((id) => {
      const object = this.objects.get(id);
      return object ? [object] : [];
    });
  }

  async linksTo(id: string): Promise<{ sourceId: string; relationKey: string }[]> {
    return [...this.objects.values()].flatMap((object) =>
      Object.entries(object.links).flatMap(([relationKey, targets]) =>
        targets.includes(id) ? [{ sourceId: object.id, relationKey }] : [],
      ),
    );
  }

  async write(batch: WriteBatch): Promise<void> {
    this.writes += 1;
    for (const object of batch.put ?? []) this.objects.set(object.id, object);
    for (const id of batch.delete ?? []) {
      this.objects.delete(id);
      this.rows.delete(id);
    }
    for (const entry of batch.aclRows ?? []) this.rows.set(entry.objectId, entry.rows);
    for (const entry of batch.holdings ?? [])
      this.holdings.set(`${entry.anchorId}\u0000${entry.definition}`, entry.rows);
  }

  async aclRowsOf(id: string): Promise<AclRow[]> {
    return [...(this.rows.get(id) ?? [])];
  }

  private allHoldings(): Holding[] {
    return [...this.holdings.values()].flat();
  }

  async holdingsOf(holderId: string): Promise<Holding[]> {
    return this.allHoldings().filter((holding) => holding.holderId === holderId);
  }

  async holdingsOfAcId(acId: string): Promise<Holding[]> {
    return this.allHoldings().filter((holding) => holding.acId === acId);
  }

  async storedAclIds(): Promise<{ nodeIds: string[]; stepIds: string[] }> {
    return {
      nodeIds: [...new Set([...this.rows.values()].flat().map((row) => row.nodeId))],
      stepIds: [...new Set(this.allHoldings().flatMap((holding) => holding.stepIds))],
    };
  }

  async scan(afterId: string | null, limit: number): Promise<StoredObject[]> {
    return [...this.objects.values()]
      .filter((object) => afterId === null || object.id > afterId)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, limit);
  }

  /** Relation buckets only (what the access-control report counts links with). */
  async distinct(plan: DistinctPlan): Promise<DistinctBucket[]> {
    if (plan.target.kind !== 'relation') throw new Error('field buckets are not needed here');
    const key = plan.target.relation.key;
    const counts = new Map<string | null, number>();
    for (const object of this.objects.values()) {
      if (!object.classes.includes(plan.className)) continue;
      const targets = object.links[key] ?? [];
      for (const target of targets.length > 0 ? targets : [null])
        counts.set(target, (counts.get(target) ?? 0) + 1);
    }
    return [...counts].map(([value, count]) => ({ value, count }));
  }

  /** The ACL rows and holdings as stored, in a comparable form. */
  snapshot(): { rows: Record<string, string[]>; holdings: string[] } {
    const rows: Record<string, string[]> = {};
    for (const [id, list] of this.rows) {
      if (list.length > 0) rows[id] = list.map((row) => `${row.definition}/${row.nodeId}/${row.acId}`).sort();
    }
    const holdings = this.allHoldings()
      .map(
        (holding) =>
          `${holding.definition}/${holding.anchorId}/${holding.holderId}/${holding.stepIds.join('.')}`,
      )
      .sort();
    return { rows: Object.fromEntries(Object.entries(rows).sort()), holdings };
  }
}

/** A stored object of `basicClass` (classes: the class and its ancestors, plus `gained`). */
export function storedObject(
  model: Model,
  id: string,
  basicClass: string,
  links: Record<string, readonly string[]> = {},
  gained: readonly string[] = [],
): StoredObject {
  const classes = [basicClass, ...gained].flatMap((name) => model.classes.get(name)?.ancestors ?? [name]);
  return {
    id,
    basicClass,
    classes: [...new Set(classes)],
    name: id,
    values: {},
    links,
    createdAt: '2026-01-01T00:00:00.000Z',
    modifiedAt: '2026-01-01T00:00:00.000Z',
  };
}
