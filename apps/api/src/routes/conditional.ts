/**
 * Conditional requests on objects (RFC 9110, section 13): Get one answers its `ETag` (the
 * object's version, see `versionTag` in `@odp/data`) and 304 to an `If-None-Match` naming it;
 * Patch, Delete and Merge take `If-Match`, which the write checks atomically with itself (412 when
 * the object has another version). Without the headers a write is unconditional: the last wins.
 */
import type { Request } from 'express';
import { parseEntityTags } from '@odp/data';
import type { IfMatch } from '@odp/data';

/** The request's `If-Match` condition; undefined without the header. */
export function ifMatchOf(req: Request): IfMatch | undefined {
  const header = req.get('If-Match');
  return header === undefined ? undefined : parseEntityTags(header);
}

/**
 * Whether `If-None-Match` names `etag` (or is `*`), by weak comparison as RFC 9110 says for this
 * header: then a GET answers 304 Not Modified.
 */
export function notModified(req: Request, etag: string): boolean {
  const header = req.get('If-None-Match');
  if (header === undefined) return false;
  const tags = parseEntityTags(header);
  const opaque = (tag: string) => tag.replace(/^W\//, '');
  return tags === '*' || tags.some((tag) => opaque(tag) === opaque(etag));
}
