/**
 * Redirects of merged-away objects to their survivors: written by a batch's merges, followed by
 * `redirectOf` to the end of a chain.
 */
import type { WriteBatch } from '@odp/core';
import type { TenantDatabase } from './database.js';

type Redirect = NonNullable<WriteBatch['redirects']>[number];

/** Records `from -> to`; an id already redirected to `from` now leads to `to` (inside the batch's transaction). */
export function putRedirect(database: TenantDatabase, redirect: Redirect): void {
  database.statement('UPDATE redirects SET dst = ? WHERE dst = ?').run(redirect.to, redirect.from);
  database
    .statement('INSERT OR REPLACE INTO redirects (src, dst) VALUES (?, ?)')
    .run(redirect.from, redirect.to);
}

/** The object `id` leads to through its redirects (cycles cut), or null when none or it is gone. */
export function followRedirects(database: TenantDatabase, id: string): string | null {
  const next = database.statement('SELECT dst FROM redirects WHERE src = ?').pluck();
  const seen = new Set<string>([id]);
  let current = next.get(id) as string | undefined;
  if (current === undefined) return null;
  for (let further = next.get(current) as string | undefined; further !== undefined && !seen.has(further);) {
    seen.add(current);
    current = further;
    further = next.get(current) as string | undefined;
  }
  return database.objectKey(current) === null ? null : current;
}
