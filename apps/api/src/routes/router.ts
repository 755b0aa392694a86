import { Router } from 'express';

/**
 * The router of a route module. Paths match case-sensitively, like the app, route-shapes.ts and the
 * authentication's `routeShape` (one routing truth: `/DATA/...` is no route, never a data route that
 * authentication took for a platform route). Every route module creates its router here.
 */
export function routeModule(): Router {
  return Router({ caseSensitive: true });
}
