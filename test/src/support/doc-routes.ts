/**
 * The routes the docs name, read from the markdown as docs/routes.md ("How the docs name a route")
 * states the convention: an HTTP method in capitals, then a path starting with `/`, either in one code
 * span (`` `GET /data/{tenant}/{typeName}` ``), on a line of a fenced code block, or in a table row
 * whose first cell is the method and whose next cell holds the path(s) in code spans. `{name}` and
 * `<name>` are placeholders of one path segment; a query (`?...`) or an optional part (`[...]`) ends
 * the path.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './server.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

const METHOD = HTTP_METHODS.join('|');
/** `GET /path...` at the start of a code span's text or of a code block line. */
const ROUTE_TEXT = new RegExp(`^\\s*(${METHOD})\\s+(/\\S*)`);
/** A table row `| GET | ... |`: the method cell and the cell after it. */
const ROUTE_ROW = new RegExp(`^\\|\\s*(${METHOD})\\s*\\|([^|]*)\\|`);
const CODE_SPAN = /`([^`]+)`/g;
const PLACEHOLDER = /^(?:\{([^{}]+)\}|<([^<>]+)>)$/;

/** One route named in a doc: where, the method, the path as written (query and options cut off). */
export interface DocRoute {
  readonly file: string;
  readonly line: number;
  readonly method: string;
  readonly path: string;
  /** The heading of the section the route is named in (`## Not served` of docs/routes.md). */
  readonly section: string;
}

/** The platform's own docs (docs/interface.md, the specification, is read apart). */
export function platformDocFiles(): string[] {
  const docs = readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md') && name !== 'interface.md')
    .map((name) => `docs/${name}`);
  const readmes = ['apps', 'packages'].flatMap((dir) =>
    readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${dir}/${entry.name}/README.md`)
      .filter((file) => {
        try {
          readFileSync(path.join(REPO_ROOT, file));
          return true;
        } catch {
          return false;
        }
      }),
  );
  return ['README.md', ...docs, ...readmes];
}

/** The path of a route text: up to a query or an optional part. */
function pathOf(text: string): string {
  return text.split(/[?[]/, 1)[0] ?? '';
}

/** Every route `file` (relative to the repository root) names, in order. */
export function routesOfDoc(file: string): DocRoute[] {
  const lines = readFileSync(path.join(REPO_ROOT, file), 'utf8').split('\n');
  const routes: DocRoute[] = [];
  let fenced = false;
  let section = '';
  lines.forEach((text, index) => {
    const add = (method: string, raw: string) =>
      routes.push({ file, line: index + 1, method, path: pathOf(raw), section });
    if (!fenced && text.startsWith('#')) section = text.replace(/^#+\s*/, '');
    if (text.trimStart().startsWith('```')) {
      fenced = !fenced;
      return;
    }
    if (fenced) {
      const match = ROUTE_TEXT.exec(text);
      if (match) add(match[1] ?? '', match[2] ?? '');
      return;
    }
    const row = ROUTE_ROW.exec(text);
    if (row) {
      for (const span of (row[2] ?? '').matchAll(CODE_SPAN)) {
        if (span[1]?.startsWith('/')) add(row[1] ?? '', span[1]);
      }
    }
    for (const span of text.matchAll(CODE_SPAN)) {
      const match = ROUTE_TEXT.exec(span[1] ?? '');
      if (match) add(match[1] ?? '', match[2] ?? '');
    }
  });
  return routes;
}

/** The placeholder name of a path segment (`{id}`, `<token>`), or null for a literal segment. */
export function placeholderOf(segment: string): string | null {
  const match = PLACEHOLDER.exec(segment);
  return match ? (match[1] ?? match[2] ?? null) : null;
}

/**
 * The shape two spellings of a route share: the method and the path with every parameter as `{}`.
 * `/data/{tenant}/{typeName}` (docs) and `/data/:tenant/:typeName` (express) have the same shape.
 */
export function routeShape(method: string, routePath: string): string {
  const segments = routePath
    .split('/')
    .map((segment) => (segment.startsWith(':') || placeholderOf(segment) !== null ? '{}' : segment));
  return `${method} ${segments.join('/')}`;
}
