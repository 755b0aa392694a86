/**
 * The server errors the adapters tell apart, and the one way they retry an upsert that lost the
 * race to insert its document.
 */
import { MongoServerError } from 'mongodb';

const DUPLICATE_KEY = 11000;
const NAMESPACE_NOT_FOUND = 26;

/** A write refused by a unique index (`_id` included). */
export function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}

/** A read of a collection or database that does not exist (yet). */
export function isNamespaceNotFound(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND;
}

/**
 * Runs `upsert`, and once more when it failed on a duplicate key: two first upserts of one `_id`
 * can both find no document and both insert, and the loser's duplicate key means the document
 * exists now, so its second run updates it. (MongoDB retries some of these itself; a wire-compatible
 * server such as FerretDB does not.) Inside a transaction (`inTransaction`) the error stands: the
 * transaction is aborted and its caller retries the whole of it.
 */
export async function upsertRacing<T>(upsert: () => Promise<T>, inTransaction = false): Promise<T> {
  try {
    return await upsert();
  } catch (error) {
    if (inTransaction || !isDuplicateKey(error)) throw error;
    return upsert();
  }
}
