/**
 * The kind of a tenant request, by which the fair share (fair-share.ts) estimates what the next one
 * of its kind will cost: the method, the branch (`/data`, `/metadata`, ...), the shape of the path
 * (one object or a selection) and the body's size as a power of two. Read from the method, path
 * and `Content-Length` alone, before the body is read.
 */
import type { RequestKind } from '@odp/platform';

/** Last path segments of GETs under `/data` and `/system` that read one thing: capabilities, own. */
const ONE_TAILS: ReadonlySet<string> = new Set(['capabilities', 'own']);
/** Operations on a whole selection: `/{type}/distinct`, `/{type}/aggregations`. */
const SELECTION_TAILS: ReadonlySet<string> = new Set(['distinct', 'aggregations']);

/** The estimate of a kind before one was measured: a selection reads many objects. */
const SELECTION_PRIOR_MS = 20;
const OTHER_PRIOR_MS = 2;
/** And of the body: reading and parsing JSON costs about this many milliseconds per megabyte. */
const PRIOR_MS_PER_MB = 20;

/**
 * Whether a request reads a selection: its cost grows with the tenant's data rather than being one
 * object's. Every GET under `/audit`; under `/data` and `/system` every GET of a selection: lists
 * and related lists (also with `q`), global search, distinct, field values, aggregations and Excel
 * exports. Not: get one, get own, capabilities and the event stream.
 */
export function readsSelection(method: string, path: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const [branch = '', , ...rest] = path.split('/').slice(1);
  const segments = rest.at(-1) === '' ? rest.slice(0, -1) : rest;
  switch (branch.toLowerCase()) {
    case 'audit':
      return true;
    case 'data':
    case 'system': {
      const last = segments.at(-1);
      if (last === undefined || segments[0] === 'eventStream' || ONE_TAILS.has(last)) return false;
      // `/excel/{type}`: the export of a whole list (docs/excel.md).
      if (segments[0] === 'excel') return true;
      // `/{type}/{id}`: one object, unless the second segment names a selection operation.
      if (segments.length === 2) return SELECTION_TAILS.has(last);
      return true;
    }
    default:
      return false;
  }
}

/**
 * Whether a request opens the tenant's event stream (`GET /data/{tenant}/eventStream`): it lasts as
 * long as the client listens, so it takes no slot of the fair share; its work takes turns instead.
 */
export function isEventStream(method: string, path: string): boolean {
  const [branch, , route, ...rest] = path.split('/').slice(1);
  return method === 'GET' && branch === 'data' && route === 'eventStream' && rest.join('') === '';
}

/** The body size class: `0` without a body, else the power of two of kilobytes it is under. */
function sizeClass(bytes: number): string {
  if (bytes <= 0) return '';
  const kilobytes = Math.ceil(bytes / 1024);
  return ` body<${2 ** Math.ceil(Math.log2(kilobytes))}KB`;
}

/** The kind of a request with `contentLength` body bytes (0 when absent or unknown). */
export function requestKind(method: string, path: string, contentLength: number): RequestKind {
  const end = path.indexOf('/', 1);
  const branch = end === -1 ? path.slice(1) : path.slice(1, end);
  const selection = readsSelection(method, path);
  const bytes = Number.isFinite(contentLength) && contentLength > 0 ? contentLength : 0;
  return {
    label: `${method} /${branch}${selection ? ' selection' : ''}${sizeClass(bytes)}`,
    priorMs: (selection ? SELECTION_PRIOR_MS : OTHER_PRIOR_MS) + (bytes / 1_048_576) * PRIOR_MS_PER_MB,
  };
}
