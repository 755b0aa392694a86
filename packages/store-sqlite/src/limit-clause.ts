/**
 * `LIMIT n` with the count written into the statement's text instead of bound. SQLite (3.49) plans
 * a statement for the value bound to its LIMIT and marks it expired whenever that parameter is
 * bound again, so a cached statement with `LIMIT ?` is parsed and planned anew on every run (a
 * page's key query: 7 us more alone, 50-70 us instead of 18-22 in an api process). Counts take
 * few values (a page's size plus one, a batch size), each its own cached statement; a list's walk
 * is bounded by the count of a filter's range, so it has one per count met, each prepared once
 * where it was prepared on every run. An OFFSET bound as a parameter does not expire its
 * statement and stays bound.
 */
export function limitClause(count: number): string {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`Not a row count: ${count}`);
  return `LIMIT ${count}`;
}
