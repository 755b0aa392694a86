/**
 * Excel export and spreadsheet import (interface spec: Excel export, Import; docs/excel.md).
 *
 * - `GET /data/{tenant}/excel/{typeName}` and `.../excel/{relatedTypeName}/{relatedId}/{typeName}`:
 *   the list's selection (its filters and sort) as a generated `.xlsx`, answered like a download
 *   URL request: 200 with the signed URL as a JSON string and in `Location`.
 * - `POST /data/{tenant}/import` with an ImportTask: 201, `Location` of the import, its status.
 * - `GET /data/{tenant}/import/{id}`: the import's progress and per-row errors.
 */
import type { Request, Response, Router } from 'express';
import { NotFoundError } from '@odp/core';
import { XLSX_TYPE, writeWorkbook } from '@odp/excel';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';
import { listPath, queryOf } from './data.js';
import { signedUrl } from './files.js';
import { routeModule } from './router.js';

/** `companies-2026-11-23T16-40-00Z.xlsx`: the class and the moment of the export. */
function exportFileName(typeName: string, at: Date): string {
  return `${typeName}-${at.toISOString().slice(0, 19).replace(/:/g, '-')}Z.xlsx`;
}

export function excelRoutes(deps: AppDeps): Router {
  const router = routeModule();

  const exportList = async (req: Request, res: Response): Promise<void> => {
    const { tenantId, account } = tenantRequest(res);
    const data = (await deps.runtimes.get(tenantId)).data();
    const path = listPath(req);
    const sheets = await data.exportSheets(account, path, queryOf(req));
    const { body, done } = writeWorkbook(sheets);
    const [stored, written] = await Promise.allSettled([
      deps.files.storeGenerated(
        tenantId,
        { fileName: exportFileName(path.typeName, deps.now()), contentType: XLSX_TYPE },
        body,
      ),
      done,
    ]);
    if (written.status === 'rejected') throw written.reason;
    if (stored.status === 'rejected') throw stored.reason;
    signedUrl(res, deps.files.generatedUrl(tenantId, stored.value));
  };
  router.get('/data/:tenant/excel/:typeName', exportList);
  router.get('/data/:tenant/excel/:relatedTypeName/:relatedId/:typeName', exportList);

  router.post('/data/:tenant/import', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const started = await deps.runtimes.get(tenantId);
    // The runtime the import began with, every batch: once the tenant's data was deleted (its
    // runtime closed; gone, or reopened empty) the import stops instead of writing into it.
    const data = async () => {
      const runtime = await deps.runtimes.get(tenantId);
      if (runtime !== started) throw new NotFoundError("The tenant's data was deleted while the import ran.");
      return runtime.data();
    };
    const status = await deps.imports.start(tenantId, account, data, req.body);
    res.status(201).location(status._links.self.href).json(status);
  });

  router.get('/data/:tenant/import/:id', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    await deps.runtimes.get(tenantId);
    const id = typeof req.params['id'] === 'string' ? req.params['id'] : '';
    res.setHeader('Cache-Control', 'no-store').json(await deps.imports.status(tenantId, account, id));
  });

  return router;
}
