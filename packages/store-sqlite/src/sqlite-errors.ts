/**
 * What an error of SQLite says, told by its code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`, ...),
 * not by the driver's error class: better-sqlite3's native addon keeps the class of the first
 * module instance that loaded it, and a test runner loads one per test file.
 */

/** Whether `error` carries a SQLite code that starts with `code` (its extended codes included). */
function hasSqliteCode(error: unknown, code: string): boolean {
  return (
    typeof error === 'object' && error !== null && String((error as { code?: unknown }).code).startsWith(code)
  );
}

/** A unique index refused the write. */
export function isUniqueViolation(error: unknown): boolean {
  return hasSqliteCode(error, 'SQLITE_CONSTRAINT_UNIQUE');
}

/** A lock another connection holds refused the statement (SQLITE_BUSY and its variants). */
export function isBusy(error: unknown): boolean {
  return hasSqliteCode(error, 'SQLITE_BUSY');
}

/** The file is damaged or not a database at all (SQLITE_CORRUPT and its variants, SQLITE_NOTADB). */
export function isUnreadable(error: unknown): boolean {
  return hasSqliteCode(error, 'SQLITE_CORRUPT') || hasSqliteCode(error, 'SQLITE_NOTADB');
}
