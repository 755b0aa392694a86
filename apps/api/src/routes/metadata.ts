/**
 * The metadata branch (bodies documented in docs/model-format.md, "Metadata"):
 *
 * - `GET /metadata/{tenant}/classes`: the model's classes, each with the addresses of its list and
 *   its metadata, so a client discovers the API from the API.
 * - `GET /metadata/{tenant}/openapi.json`: the tenant's REST API as an OpenAPI 3.1 document generated
 *   from its model (`@odp/openapi`), once per model version (model-documents.ts), in gzip or brotli
 *   by `Accept-Encoding`, with an `ETag` (`If-None-Match` with it answers 304: encoded-document.ts).
 * - `GET /metadata/{tenant}/types.d.ts`: TypeScript declarations of the model's classes for
 *   `@odp/client` (`@odp/typegen`, the same text `odp types` writes), once per model version too.
 * - `GET /metadata/{tenant}/dataObject?classes=a,b`: fields and relations of that class combination
 *   with types, lists, and read-only / write-only / hidden flags.
 * - `GET /metadata/{tenant}/relatedDataObject?classes=a,b`: its related lists and their columns.
 * - `GET /metadata/{tenant}/form?classes=a,b`: what a create or edit form offers.
 * - `GET /metadata/{tenantId}/migrationDefinition`: the model's MigrationDefinition (404 when the model
 *   has none), with a `Link` to its JSON Schema at `.../migrationDefinition/schema`.
 *
 * All need a usable model: a FAILED tenant answers 503 naming the model status.
 */
import type { Request, Response, Router } from 'express';
import type { ClassDef, Model } from '@odp/core';
import { NotFoundError } from '@odp/core';
import {
  classCombination,
  describeClasses,
  describeDataObject,
  describeForm,
  describeRelatedDataObject,
} from '@odp/model-loader';
import { migrationDefinitionSchema } from '@odp/migration-schema';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';
import { sendDocument } from '../encoded-document.js';
import { openApiDocument, typesDocument } from '../model-documents.js';
import { routeModule } from './router.js';

export function metadataRoutes(deps: AppDeps): Router {
  const router = routeModule();
  const modelOf = async (res: Response): Promise<Model> =>
    (await deps.runtimes.get(tenantRequest(res).tenantId)).model.requireModel();

  const describe =
    (build: (model: Model, classes: readonly ClassDef[]) => unknown) =>
    async (req: Request, res: Response) => {
      const model = await modelOf(res);
      res.json(build(model, classCombination(model, req.query['classes'])));
    };
  router.get('/metadata/:tenant/classes', async (_req, res) => {
    const model = await modelOf(res);
    const { tenantId } = tenantRequest(res);
    const classes = describeClasses(model).map((cls) => ({
      ...cls,
      _links: {
        list: { href: `/data/${tenantId}/${cls.name}` },
        metadata: { href: `/metadata/${tenantId}/dataObject?classes=${cls.name}` },
      },
    }));
    res.json({ classes, _links: { openapi: { href: `/metadata/${tenantId}/openapi.json` } } });
  });

  router.get('/metadata/:tenant/openapi.json', async (req, res) => {
    const runtime = await deps.runtimes.get(tenantRequest(res).tenantId);
    const document = openApiDocument(runtime.model.requireModel(), runtime.tenant, deps.config.baseUrl);
    await sendDocument(req, res, document, 'application/vnd.oai.openapi+json; charset=utf-8');
  });

  router.get('/metadata/:tenant/types.d.ts', async (req, res) => {
    const runtime = await deps.runtimes.get(tenantRequest(res).tenantId);
    const document = typesDocument(runtime.model.requireModel(), runtime.tenant);
    await sendDocument(req, res, document, 'application/typescript; charset=utf-8');
  });

  router.get('/metadata/:tenant/dataObject', describe(describeDataObject));
  router.get('/metadata/:tenant/relatedDataObject', describe(describeRelatedDataObject));
  router.get('/metadata/:tenant/form', describe(describeForm));

  router.get('/metadata/:tenant/migrationDefinition', async (_req, res) => {
    const model = await modelOf(res);
    if (model.migration === undefined) throw new NotFoundError('The model has no migration definition.');
    const { tenantId } = tenantRequest(res);
    res
      .setHeader('Link', `</metadata/${tenantId}/migrationDefinition/schema>; rel="describedby"`)
      .json(model.migration);
  });

  router.get('/metadata/:tenant/migrationDefinition/schema', (_req, res) => {
    res.type('application/schema+json').send(JSON.stringify(migrationDefinitionSchema));
  });

  return router;
}
