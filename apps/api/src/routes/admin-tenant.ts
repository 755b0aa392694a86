/**
 * `DELETE /admin/{tenant}?name=<name>&deleteTenant=<boolean>` (interface spec, Admin API; decided
 * in docs/admin.md): deletes every piece of the tenant's data from every configured backend (see
 * tenant-deletion.ts), and the tenant itself with its keys and profiles when `deleteTenant=true`.
 *
 * - `name` is a typed confirmation: it must equal the tenant's name exactly, else 400 and nothing
 *   is deleted (absent, empty or different alike).
 * - `deleteTenant`: `true` or `false` (default `false`); any other value is 400.
 * - 409 while a rebuild, recalculation or sync of the tenant runs; 200 with what was deleted.
 */
import { NotFoundError, ValidationError } from '@odp/core';
import type { Router } from 'express';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';
import { booleanParam } from './boolean-param.js';
import { routeModule } from './router.js';

export function adminTenantRoutes(deps: AppDeps): Router {
  const router = routeModule();
  router.delete('/admin/:tenant', async (req, res) => {
    const { tenantId } = tenantRequest(res);
    const deleteTenant = booleanParam(req.query['deleteTenant'], 'deleteTenant');
    const tenant = await deps.registry.getTenant(tenantId);
    if (tenant === null) throw new NotFoundError('No such tenant.');
    const name = req.query['name'];
    if (typeof name !== 'string' || name !== tenant.name) {
      throw new ValidationError('name must be the name of the tenant, as a confirmation.', [
        { field: 'name', message: 'must equal the tenant name' },
      ]);
    }
    res.json(await deps.deletion.delete(tenantId, { deleteTenant }));
  });
  return router;
}
