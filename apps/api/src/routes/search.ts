/**
 * Global search (interface spec, Global search; docs/search.md): `GET /data/{tenant}/search?q=&classes=`
 * answers a DataObjectPage of the objects matching `q` in the named classes or, without `classes`,
 * in the tenant's `generalSearchClasses`, under the caller's access filter, paged by cursor.
 * Mounted before the data routes, which pass the `search` segment on. The page is answered in slices
 * of the event loop, as every list is (sliced-json.ts).
 */
import type { Router } from 'express';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';
import { sendJsonInSlices } from '../sliced-json.js';
import { routeModule } from './router.js';

export function searchRoutes(deps: AppDeps): Router {
  const router = routeModule();
  router.get('/data/:tenant/search', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const runtime = await deps.runtimes.get(tenantId);
    const params = new URL(req.originalUrl, 'http://localhost').searchParams;
    await sendJsonInSlices(
      req,
      res,
      await runtime.data().search(account, params, runtime.generalSearchClasses()),
    );
  });
  return router;
}
