/**
 * What every concern of the TenantStore contract works with: a fresh, empty store per case with the
 * contract model applied, and the shared ways to fill and list it.
 */
import type { AccessFilter, ListPlan, StoredObject, TenantStore } from '@odp/core';
import { contractModel, storedObject, uuid } from '../fixture.js';
import { perCase } from '../per-case.js';
import { ALL, DATA } from './data.js';

export interface TenantStoreCase {
  /** The store of the running case (see {@link perCase}). */
  readonly store: TenantStore;
  /** Writes the data set in one batch, in creation (`n`) order. */
  seed(): Promise<void>;
  /** The data set, company 1 under acId A and company 2 under acId B. */
  seedWithAcl(): Promise<void>;
  /** A list of up to 100 rows of the selection, unfiltered unless told. */
  list(selection: Partial<ListPlan> & { className: string }, access?: AccessFilter): Promise<StoredObject[]>;
}

/** Opens a store per case with `open` (registers the hooks; call inside a `describe`). */

export function tenantStorePerCase(open: () => Promise<TenantStore>): TenantStoreCase {
  const store = perCase(open, (opened) => opened.close());
  beforeEach(() => store.applyModel(contractModel));

  async function seed(): Promise<void> {
    await store.write({ put: [...DATA].sort((a, b) => a.n - b.n).map((spec) => storedObject(spec)) });
  }
  async function seedWithAcl(): Promise<void> {
    await seed();
    await store.write({
      aclRows: [
        { objectId: uuid(1), rows: [{ acId: 'A', nodeId: 'node-a', definition: 'def' }] },
        { objectId: uuid(2), rows: [{ acId: 'B', nodeId: 'node-b', definition: 'def' }] },
      ],
    });
  }
  const list = (selection: Partial<ListPlan> & { className: string }, access: AccessFilter = ALL) =>
    store.list({ filters: [], page: 0, size: 100, ...selection }, access);
  return { store, seed, seedWithAcl, list };
}
