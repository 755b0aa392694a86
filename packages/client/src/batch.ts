/**
 * Batch writes (`POST /data/{tenant}/batch`, docs/data-api.md "Batch"): several creates, creates
 * related, patches and deletes applied all together or not at all. The operations are built with
 * the same class names and bodies as the single calls, so the declarations of `odp types` check them.
 */
import type { RelatedCreate, Schema, Untyped } from './schema.js';

/** One operation of a batch; `path` is relative to `/data/{tenant}`. */
export type BatchOperation =
  | { readonly method: 'POST'; readonly path: string; readonly body: unknown }
  | { readonly method: 'PATCH'; readonly path: string; readonly body: unknown; readonly ifMatch?: string }
  | { readonly method: 'DELETE'; readonly path: string; readonly ifMatch?: string };

/** What one operation answered, as its own request would: `201`/`204` with `id` and `location`, `200` for a delete. */
export interface BatchResult {
  readonly status: number;
  readonly id?: string;
  readonly location?: string;
}

type Key<S> = keyof S & string;

const path = (...segments: readonly string[]): string => '/' + segments.map(encodeURIComponent).join('/');

/** Builders of batch operations, typed like the client's own calls. */
export class BatchOperations<S extends Schema<S> = Untyped> {
  create<K extends Key<S>>(
    typeName: K,
    body: S[K]['create'],
    options: { class?: string } = {},
  ): BatchOperation {
    const query = options.class === undefined ? '' : `?class=${encodeURIComponent(options.class)}`;
    return { method: 'POST', path: path(typeName) + query, body };
  }

  /** A create under the object `typeName/id`, through its relation `relation`. */
  createRelated<K extends Key<S>, R extends keyof S[K]['related'] & string>(
    typeName: K,
    id: string,
    relation: R,
    body: RelatedCreate<S, K, R>,
  ): BatchOperation {
    return { method: 'POST', path: path(typeName, id, relation), body };
  }

  patch<K extends Key<S>>(
    typeName: K,
    id: string,
    body: S[K]['patch'],
    options: { ifMatch?: string } = {},
  ): BatchOperation {
    return { method: 'PATCH', path: path(typeName, id), body, ...options };
  }

  delete<K extends Key<S>>(typeName: K, id: string, options: { ifMatch?: string } = {}): BatchOperation {
    return { method: 'DELETE', path: path(typeName, id), ...options };
  }
}
