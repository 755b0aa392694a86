/**
 * The body of a batch request (`POST /data/{tenant}/batch`): `{operations: [{method, path, body?,
 * ifMatch?}]}`, each operation a write as its own request would make it, its path relative to
 * `/data/{tenant}` (or that path in full, or an href). Parsed here into the path segments the
 * resource layer resolves; malformed operations answer 400 naming the operation.
 */
import { ValidationError } from '@odp/core';
import type { Account } from '@odp/core';
import { isPlainObject } from '../encode.js';
import { parseEntityTags } from '../objects/versions.js';
import type { IfMatch } from '../objects/versions.js';
import type { WriteOperation, WrittenObject } from '../objects/writes.js';
import type { DataResources } from './data-resources.js';

/** What one operation of a batch answers: its status and, for a written object, its id and URI. */
export interface BatchResult {
  readonly status: number;
  readonly id?: string;
  readonly location?: string;
}

/**
 * The answer of a batch: per operation, what its own request answers (status and, for a written
 * object, its id and `Location`, made by `href`).
 */
export function batchResults(
  operations: readonly WriteOperation[],
  written: readonly (WrittenObject | null)[],
  href: (object: WrittenObject) => string,
): { results: BatchResult[] } {
  return {
    results: written.map((object, index) =>
      object === null
        ? { status: 200 }
        : { status: operations[index]?.kind === 'create' ? 201 : 204, id: object.id, location: href(object) },
    ),
  };
}

/** The writes a batch may hold, by method: Create (related), Patch and Delete. */
export type BatchMethod = 'POST' | 'PATCH' | 'DELETE';

/** One operation of a batch, its path split into segments after `/data/{tenant}/`. */
export interface BatchRequestOperation {
  readonly method: BatchMethod;
  readonly segments: readonly string[];
  /** The path's query string (`?class=` of a create). */
  readonly query: URLSearchParams;
  readonly body: unknown;
  /** The entity tags the write requires the object to have (`If-Match`). */
  readonly ifMatch?: IfMatch;
}

const SEGMENTS_BY_METHOD: Readonly<Record<BatchMethod, readonly number[]>> = {
  POST: [1, 3],
  PATCH: [2],
  DELETE: [2],
};

function invalid(index: number, field: string, message: string): ValidationError {
  return new ValidationError(`Operation ${index}: ${field} ${message}.`, [{ field, message }], {
    operation: index,
  });
}

/**
 * The operations of a batch body `body` for tenant base path `base` (`/data/{tenant}`): 400 for a
 * body without an `operations` array, and for an operation with an unknown method, a path outside
 * the tenant's data or of the wrong shape for its method, or a body where none belongs.
 */
export function parseBatch(body: unknown, base: string): BatchRequestOperation[] {
  const operations = isPlainObject(body) ? body['operations'] : undefined;
  if (!Array.isArray(operations) || operations.length === 0) {
    throw new ValidationError('A batch needs a non-empty operations array.', [
      { field: 'operations', message: 'must be a non-empty array' },
    ]);
  }
  return operations.map((operation, index) => parseOperation(operation, index, base));
}

function parseOperation(operation: unknown, index: number, base: string): BatchRequestOperation {
  if (!isPlainObject(operation)) throw invalid(index, 'operation', 'must be an object');
  const method = typeof operation['method'] === 'string' ? operation['method'].toUpperCase() : '';
  if (!(method in SEGMENTS_BY_METHOD)) throw invalid(index, 'method', 'must be POST, PATCH or DELETE');
  const allowed = SEGMENTS_BY_METHOD[method as BatchMethod];
  const path = operation['path'];
  if (typeof path !== 'string') throw invalid(index, 'path', 'must be a text');
  const absolute = path.startsWith('/data/') || /^https?:/i.test(path);
  const url = new URL(absolute ? path : `${base}${path}`, 'http://x');
  const segments = segmentsOf(url.pathname, `${base}/`);
  if (!segments || !allowed.includes(segments.length) || segments.some((segment) => segment === '')) {
    throw invalid(index, 'path', `is no path of a ${method} in a batch`);
  }
  const body = operation['body'];
  if (method === 'DELETE' ? body !== undefined : !isPlainObject(body)) {
    throw invalid(index, 'body', method === 'DELETE' ? 'does not belong to a DELETE' : 'must be an object');
  }
  const ifMatch = operation['ifMatch'];
  if (ifMatch !== undefined && (method === 'POST' || typeof ifMatch !== 'string')) {
    throw invalid(index, 'ifMatch', method === 'POST' ? 'does not belong to a POST' : 'must be a text');
  }
  return {
    method: method as BatchMethod,
    segments,
    query: url.searchParams,
    body,
    ...(typeof ifMatch === 'string' ? { ifMatch: parseEntityTags(ifMatch) } : {}),
  };
}

/** The decoded segments of `pathname` after `prefix`; null when it lies elsewhere or is badly encoded. */
function segmentsOf(pathname: string, prefix: string): string[] | null {
  if (!pathname.startsWith(prefix)) return null;
  try {
    return pathname.slice(prefix.length).split('/').map(decodeURIComponent);
  } catch {
    return null;
  }
}

/**
 * The object layer's write for one operation of a batch, resolved by `resources` as the
 * operation's own request would be (404 for an unknown class or related object, 400 for a class
 * that cannot be created there).
 */
export async function writeOperation(
  resources: DataResources,
  account: Account,
  operation: BatchRequestOperation,
): Promise<WriteOperation> {
  const { method, segments, query, body, ifMatch } = operation;
  const [typeName = '', id = '', relatedTypeName] = segments;
  const classParam = query.get('class') ?? undefined;
  if (method === 'PATCH') return { kind: 'patch', target: resources.target(typeName, id, ifMatch), body };
  if (method === 'DELETE') return { kind: 'delete', target: resources.target(typeName, id, ifMatch) };
  if (relatedTypeName === undefined) {
    return { kind: 'create', className: resources.createdClass(typeName, classParam).name, body };
  }
  const path = { typeName: relatedTypeName, related: { typeName, id } };
  return { kind: 'create', body, ...(await resources.relatedCreate(account, path, classParam)) };
}
