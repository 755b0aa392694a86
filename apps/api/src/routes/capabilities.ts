/**
 * The capabilities routes (interface spec, Capabilities rules 1-5). Each answer is the decision the
 * corresponding write enforces (the object service resolves paths and classes as Create, Patch and
 * Delete do, and asks the same AccessPolicy). 404 for an object the caller cannot see comes first,
 * then 400 for a related path that names no relation; a `viewer` gets false and no classes.
 * Mounted before the data routes, whose `/{typeName}/{id}` shape would otherwise take these paths.
 */
import type { Request, Response, Router } from 'express';
import type { Account } from '@odp/core';
import type { ListPath } from '@odp/data';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';
import { routeModule } from './router.js';

function param(req: Request, name: string): string {
  const value = req.params[name];
  return typeof value === 'string' ? value : '';
}

/** `?class=<plural>` as sent (a repeated or structured parameter counts as absent). */
function classParam(req: Request): string | undefined {
  const value = new URL(req.originalUrl, 'http://localhost').searchParams.get('class');
  return value === null || value === '' ? undefined : value;
}

const isViewer = (account: Account): boolean => account.kind === 'user' && account.role === 'viewer';

export function capabilitiesRoutes(deps: AppDeps): Router {
  const router = routeModule();

  const createCapabilities = async (req: Request, res: Response, path: ListPath): Promise<void> => {
    const { tenantId, account } = tenantRequest(res);
    const data = (await deps.runtimes.get(tenantId)).data();
    const answer = await data.createCapabilities(account, path, classParam(req));
    res.json(isViewer(account) ? { mayCreate: false, allowedClasses: [] } : answer);
  };

  router.get('/data/:tenant/:typeName/capabilities', async (req, res) => {
    await createCapabilities(req, res, { typeName: param(req, 'typeName') });
  });

  router.get('/data/:tenant/:typeName/:id/capabilities', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const data = (await deps.runtimes.get(tenantId)).data();
    const answer = await data.objectCapabilities(account, param(req, 'typeName'), param(req, 'id'));
    res.json(isViewer(account) ? { mayModify: false, mayDelete: false } : answer);
  });

  router.get('/data/:tenant/:referenceTypeName/:referenceId/:typeName/capabilities', async (req, res) => {
    await createCapabilities(req, res, {
      typeName: param(req, 'typeName'),
      related: { typeName: param(req, 'referenceTypeName'), id: param(req, 'referenceId') },
    });
  });

  return router;
}
