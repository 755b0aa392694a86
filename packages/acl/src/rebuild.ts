/**
 * Full re-derivation of a tenant's ACL rows and holdings, `batchSize` objects at a time in id
 * order (memory stays bounded by one batch and the walks around it), yielding to the event loop
 * between batches so the tenant keeps serving requests. Holdings stored for
 * definitions the model no longer has are cleared as their holders are scanned, so after a rebuild
 * the audit reports no orphaned node or step ids.
 */
import type { TenantAccessRows, TenantDocuments, WriteBatch } from '@odp/core';
import type { AclDerivation, AnchorHoldings } from './derive.js';
import type { AclGraph } from './graph.js';

export interface RebuildOptions {
  readonly batchSize?: number;
  /** Called after each batch with the number of objects processed so far. */
  readonly onProgress?: (processed: number) => void;
  /** Runs each batch's derive-and-write step exclusively of other ACL writes. */
  readonly exclusive?: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * Lets queued I/O (other requests, timers) run between batches: a synchronous store would
 * otherwise keep the event loop busy for the whole rebuild.
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export async function rebuildAccessControl(
  derivation: AclDerivation,
  store: Pick<TenantDocuments, 'scan' | 'write'> & Pick<TenantAccessRows, 'holdingsOf'>,
  graph: AclGraph,
  options: RebuildOptions = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  const exclusive = options.exclusive ?? ((work) => work());
  const liveDefinitions = new Set(derivation.anchored.map((definition) => definition.name));
  let afterId: string | null = null;
  let processed = 0;
  for (;;) {
    const page = await store.scan(afterId, batchSize);
    const last = page[page.length - 1];
    if (!last) break;
    await exclusive(async () => {
      const objects = await graph.getMany(page.map((object) => object.id));
      const aclRows: NonNullable<WriteBatch['aclRows']>[number][] = [];
      const holdings: AnchorHoldings[] = [];
      for (const object of objects) {
        aclRows.push({ objectId: object.id, rows: await derivation.rowsFor(graph, object) });
        holdings.push(...(await derivation.holdingsFor(graph, object)));
        for (const stale of await store.holdingsOf(object.id)) {
          if (!liveDefinitions.has(stale.definition)) {
            holdings.push({ anchorId: stale.anchorId, definition: stale.definition, rows: [] });
          }
        }
      }
      await store.write({ aclRows, holdings });
    });
    processed += page.length;
    afterId = last.id;
    options.onProgress?.(processed);
    await yieldToEventLoop();
  }
  return processed;
}
