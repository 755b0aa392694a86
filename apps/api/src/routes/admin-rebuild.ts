/**
 * `POST /admin/{tenant}/rebuild` (interface spec, Admin API and States: Rebuild): starts the full
 * rebuild of the tenant's derived data (packages/platform/src/tenant-rebuild.ts) and answers 202 with the job
 * status and `Location` of its progress (`GET /admin/{tenant}/rebuild`, served with the access-control
 * rebuild in audit.ts); 409 while that or any other rebuild of the tenant runs.
 */
import type { Router } from 'express';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';
import { routeModule } from './router.js';

export function adminRebuildRoutes(deps: AppDeps): Router {
  const router = routeModule();
  router.post('/admin/:tenant/rebuild', async (_req, res) => {
    const { tenantId } = tenantRequest(res);
    const runtime = await deps.runtimes.get(tenantId);
    const status = await runtime.startRebuild((error) =>
      deps.log.error('tenant rebuild failed', { tenantId, error: String(error) }),
    );
    res.status(202).location(`/admin/${tenantId}/rebuild`).json(status);
  });
  return router;
}
