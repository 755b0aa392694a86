/**
 * `GET /data/{tenant}/{typeName}/{id}/reports/{reportName}?language=<lang>` (interface spec,
 * Report document; model format section 8; docs/reports.md): renders the report `reportName` of
 * the object's class with the object and the related objects the caller may read, stores the file
 * and answers a signed `/binaries/` download URL of it, as a JSON string and in `Location` (200,
 * like the download URL of a file). The object is addressed as Get one addresses it (same 404s);
 * an unknown report is 404; a `language` that is not a language tag is 400.
 *
 * The rendering runs in a process of its own within `ODP_REPORT_MEMORY_MB` and `ODP_REPORT_TIMEOUT_MS`
 * (`renderIsolated`): over a limit, or with a template that fails, 422 `report-failed`. A tenant
 * renders at most `ODP_TENANT_REPORTS` reports at once in this process; one more is 429, answered
 * before the object is read.
 */
import { Readable } from 'node:stream';
import { ValidationError } from '@odp/core';
import { renderIsolated, reportJob } from '@odp/reports';
import type { Request, Router } from 'express';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';
import { TenantSlots } from '@odp/platform';
import { routeModule } from './router.js';

/** Seconds a tenant refused a rendering is asked to wait: a report takes a second or so. */
const REPORT_RETRY_AFTER_SECONDS = 2;

/** A BCP 47-like language tag: `en`, `nl-BE`, `zh-Hant-TW`. */
const LANGUAGE_TAG = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;

function param(req: Request, name: string): string {
  const value = req.params[name];
  return typeof value === 'string' ? value : '';
}

function languageParam(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !LANGUAGE_TAG.test(raw)) {
    throw new ValidationError('language must be a language tag such as en or nl-BE.', [
      { field: 'language', message: 'must be a language tag' },
    ]);
  }
  return raw;
}

export function reportRoutes(deps: AppDeps): Router {
  const router = routeModule();
  const { memoryMb, timeoutMs, tenantConcurrent } = deps.config.reports;
  // The cap holds across the api processes (and instances) that share the deployment's leases.
  const renderings = new TenantSlots(tenantConcurrent, 'report renderings', REPORT_RETRY_AFTER_SECONDS, {
    locks: deps.locks,
    name: 'report-renderings',
  });
  router.get('/data/:tenant/:typeName/:id/reports/:reportName', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const language = languageParam(req.query['language']);
    const runtime = await deps.runtimes.get(tenantId);
    // The slot is taken before the object and its related objects are read: a tenant at its cap
    // is refused before that work (a flood of refused renderings costs the api little).
    const document = await renderings.run(tenantId, async () => {
      const { report, context } = await runtime
        .data()
        .reportContext(account, param(req, 'typeName'), param(req, 'id'), param(req, 'reportName'));
      const job = reportJob(runtime.model.requireModel(), report, context, language, report.name);
      return renderIsolated(job, { memoryMb, timeoutMs });
    });
    const file = await deps.files.storeGenerated(
      tenantId,
      { fileName: document.fileName, contentType: document.contentType },
      Readable.from([
        Buffer.from(document.bytes.buffer, document.bytes.byteOffset, document.bytes.byteLength),
      ]),
    );
    const url = deps.files.generatedUrl(tenantId, file);
    res.setHeader('Location', url);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Language', document.language);
    res.json(url);
  });
  return router;
}
