/**
 * Which request paths a route module could answer, read from its router's own layers, so that a
 * request passes every other module by at once instead of being matched against each of its
 * routes. A data request used to go through every module of the `data` branch (files, exports,
 * capabilities, reports, search: about 15 route patterns) before its own; now only the modules with
 * a route of its shape see it.
 *
 * A route's path is read as its segments: literal ones (compared case-sensitively, as every route
 * matches) and `:name` parameters (any non-empty segment); a mounted middleware's path is read the
 * same way as a prefix. The check is conservative: a layer whose path uses any other syntax
 * (wildcards, optional groups, a regular expression, several paths) fits every request, and the
 * router itself still decides what a fitting request matches.
 */
import type { RequestHandler, Router } from 'express';

/** One layer's path: its segments (`null` a parameter) and whether it is a prefix (middleware). */
interface Shape {
  readonly segments: readonly (string | null)[];
  readonly prefix: boolean;
}

/**
 * The route modules `routers` as one handler of the app: a request's path is split once and the
 * request handed, in order, to each module with a layer of its shape; when a module passes it on
 * (`next()`), the next fitting module sees it, and when none answers it passes on. An error a
 * module passes on goes to the app at once. One handler instead of one app layer per module: the
 * app's router no longer walks some twenty layers for each request.
 */
export function routeModules(routers: readonly Router[]): RequestHandler {
  const modules = routers.map((router) => ({ router, shapes: shapesOf(router) }));
  return (req, res, next) => {
    const segments = segmentsOf(req.path);
    let index = 0;
    const handOn = (error?: unknown): void => {
      if (error) {
        next(error);
        return;
      }
      while (index < modules.length) {
        const { router, shapes } = modules[index++]!;
        if (shapes === 'any' || shapes.some((shape) => fits(shape, segments))) {
          router(req, res, handOn);
          return;
        }
      }
      next();
    };
    handOn();
  };
}

function shapesOf(router: Router): Shape[] | 'any' {
  const shapes: Shape[] = [];
  for (const layer of router.stack) {
    // router 2 keeps a middleware's mount path in `rawPath` (its types do not declare it).
    const path: unknown = layer.route ? layer.route.path : (layer as { rawPath?: unknown }).rawPath;
    const segments = typeof path === 'string' ? plainSegments(path) : undefined;
    if (segments === undefined) return 'any';
    shapes.push({ segments, prefix: layer.route === undefined });
  }
  return shapes;
}

/** The segments of a path made only of literal text and `:name` parameters; undefined otherwise. */
function plainSegments(path: string): (string | null)[] | undefined {
  if (!path.startsWith('/') || /[*?+(){}[\]\\]/.test(path)) return undefined;
  const segments: (string | null)[] = [];
  for (const segment of segmentsOf(path)) {
    if (!segment.startsWith(':')) segments.push(segment);
    else if (/^:[A-Za-z_$][\w$]*$/.test(segment)) segments.push(null);
    else return undefined;
  }
  return segments;
}

/** A path's segments after its leading slash, one trailing slash ignored (routes are not strict). */
function segmentsOf(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(1, -1) : path.slice(1);
  return trimmed.split('/');
}

function fits(shape: Shape, segments: readonly string[]): boolean {
  const wanted = shape.segments;
  if (shape.prefix ? segments.length < wanted.length : segments.length !== wanted.length) return false;
  for (let index = 0; index < wanted.length; index += 1) {
    const literal = wanted[index];
    const segment = segments[index]!;
    if (literal === null ? segment === '' : literal !== segment && !(shape.prefix && literal === '')) {
      return false;
    }
  }
  return true;
}
