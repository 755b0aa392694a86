/**
 * `EXPLAIN QUERY PLAN` details of a tenant store's queries, for tests proving index use. Reaches
 * the store's planner through the inspection seam (src/tenant/inspection.ts), not its API.
 */
import type { AccessFilter, ListPlan } from '@odp/core';
import { storePartsOf } from '../src/tenant/inspection.js';
import type { Sql } from '../src/tenant/query/sql.js';
import type { SqliteTenantStore } from '../src/tenant/store.js';

function explain(store: SqliteTenantStore, query: Sql): string[] {
  const { database } = storePartsOf(store);
  return (
    database.db.prepare(`EXPLAIN QUERY PLAN ${query.text}`).all(...query.params) as { detail: string }[]
  ).map((row) => row.detail);
}

/** The plan of a list plan's page query. */
export function explainList(store: SqliteTenantStore, plan: ListPlan, access: AccessFilter): string[] {
  const query = storePartsOf(store).planner.listQueries(plan, access)?.page;
  return query === undefined ? [] : explain(store, query);
}

/** The plan of a list plan's bounded walk in order (null when it has none). */
export function explainListWalk(
  store: SqliteTenantStore,
  plan: ListPlan,
  access: AccessFilter,
): string[] | null {
  const walk = storePartsOf(store).planner.listQueries(plan, access)?.walk;
  return walk === undefined ? null : explain(store, walk);
}

/** The plan of `get`. */
export function explainGet(store: SqliteTenantStore, id: string, access: AccessFilter): string[] {
  return explain(store, storePartsOf(store).rows.fetchQuery('o.id = ?', [id], access));
}

/**
 * Records, from now on, the text of every statement the store prepares or reuses (each query run
 * asks for its statement once): which queries ran, seen from outside the planner.
 */
export function recordStatements(store: SqliteTenantStore): () => readonly string[] {
  const { database } = storePartsOf(store);
  const statement = database.statement.bind(database);
  const texts: string[] = [];
  database.statement = (sql: string) => {
    texts.push(sql);
    return statement(sql);
  };
  return () => texts;
}

/** Counts, from now on, the statements the store prepares or reuses whose text is `text`. */
export function countStatementRuns(store: SqliteTenantStore, text: string): () => number {
  const recorded = recordStatements(store);
  return () => recorded().filter((sql) => sql === text).length;
}
