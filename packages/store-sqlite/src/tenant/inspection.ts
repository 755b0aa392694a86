/**
 * A narrow seam for tests that prove index use by reading a tenant store's query plans (EXPLAIN
 * QUERY PLAN): the parts a store builds its queries from, registered per store. Not exported from
 * the package and not part of the store's API; the explain helpers live in the package's test
 * folder (`test/query-plans.ts`).
 */
import type { TenantDatabase } from './database.js';
import type { ListPlanner } from './list-planner.js';
import type { ObjectRows } from './object-rows.js';

export interface TenantStoreParts {
  readonly database: TenantDatabase;
  readonly planner: ListPlanner;
  readonly rows: ObjectRows;
}

const registered = new WeakMap<object, TenantStoreParts>();

/** Called by the store's constructor. */
export function registerStoreParts(store: object, parts: TenantStoreParts): void {
  registered.set(store, parts);
}

/** The parts of a store opened by this package. */
export function storePartsOf(store: object): TenantStoreParts {
  const parts = registered.get(store);
  if (parts === undefined) throw new Error('Not a tenant store of @odp/store-sqlite.');
  return parts;
}
