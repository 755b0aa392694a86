import type { Router } from 'express';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ValidationError } from '@odp/core';
import type { FieldError } from '@odp/core';
import type { AppDeps } from '../app.js';
import { signedInPerson, tenantRequest } from '../context.js';
import type { TenantRuntime } from '@odp/platform';
import { routeModule } from './router.js';

/** The tenant resource of `GET /tenants`, `POST /tenants` and `GET /tenants/{tenant}` (docs/sign-in.md, "Tenants"). */
export interface TenantResource {
  readonly id: string;
  readonly name: string;
  readonly modelSource: string | null;
  readonly generalSearchClasses: readonly string[];
  readonly createdAt: string;
}

export function tenantResource(runtime: TenantRuntime): TenantResource {
  const { id, name, modelSource, createdAt } = runtime.tenant;
  return { id, name, modelSource, generalSearchClasses: runtime.generalSearchClasses(), createdAt };
}

const MAX_NAME_LENGTH = 200;
const MODEL_NAME_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Validates a create body `{name, model?}`: `name` 1-200 characters; `model` the name of a bundled
 * example model (a directory of `examplesDir`), never a path. Returns the resolved model source.
 */
function parseCreateBody(body: unknown, examplesDir: string): { name: string; modelSource: string | null } {
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const errors: FieldError[] = [];
  const name = typeof input['name'] === 'string' ? input['name'].trim() : '';
  if (name === '' || name.length > MAX_NAME_LENGTH) {
    errors.push({ field: 'name', message: `is required, 1 to ${MAX_NAME_LENGTH} characters` });
  }
  let modelSource: string | null = null;
  const model = input['model'];
  if (model !== undefined && model !== null) {
    const candidate =
      typeof model === 'string' && MODEL_NAME_PATTERN.test(model) ? path.join(examplesDir, model) : null;
    if (candidate === null || !existsSync(candidate)) {
      errors.push({ field: 'model', message: 'must name a bundled example model' });
    } else {
      modelSource = candidate;
    }
  }
  if (errors.length > 0) throw new ValidationError('The tenant cannot be created.', errors);
  return { name, modelSource };
}

export function tenantRoutes(deps: AppDeps): Router {
  const router = routeModule();

  router.get('/tenants', async (_req, res) => {
    const person = signedInPerson(res);
    const tenants = await deps.registry.tenantsOfPerson(person.issuer, person.subject, new Date());
    const runtimes = await Promise.all(tenants.map((tenant) => deps.runtimes.get(tenant.id)));
    res.json(runtimes.map(tenantResource));
  });

  router.post('/tenants', async (req, res) => {
    const person = signedInPerson(res);
    const input = parseCreateBody(req.body, deps.examplesDir);
    const tenant = await deps.registry.createTenant(input);
    await deps.registry.createProfile({
      tenantId: tenant.id,
      issuer: person.issuer,
      subject: person.subject,
      email: person.email ?? '',
      role: 'admin',
    });
    deps.log.info('tenant created', { tenantId: tenant.id });
    res
      .status(201)
      .location(`/tenants/${tenant.id}`)
      .json(tenantResource(await deps.runtimes.get(tenant.id)));
  });

  router.get('/tenants/:tenant', async (_req, res) => {
    res.json(tenantResource(await deps.runtimes.get(tenantRequest(res).tenantId)));
  });

  return router;
}
