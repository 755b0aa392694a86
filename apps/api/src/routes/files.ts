/**
 * The Files routes (interface spec, Files; docs/files.md): upload and download URLs on the
 * authenticated `/data/{tenant}/...` paths, and `/binaries/<token>`, where the signed token in the
 * URL is the only credential (authentication lets the branch through; a credential header is 400).
 */
import { pipeline } from 'node:stream';
import type { Request, Response, Router } from 'express';
import { ValidationError } from '@odp/core';
import { RangeNotSatisfiableError, contentDisposition, servedInline } from '@odp/files';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';
import { routeModule } from './router.js';

const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'proxy-authorization'];

/** Largest rest of a refused upload body that is read and dropped rather than cut off. */
const DRAIN_LIMIT = 1024 * 1024;

/**
 * Served files never run as documents of the api's origin: no scripts, plugins or forms (an SVG
 * or an HTML file opened directly stays inert). PDF is left out because browsers do not show a
 * sandboxed PDF; it is inline by the spec's table and runs no script of this origin.
 */
const FILE_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";

function param(req: Request, name: string): string {
  const value = req.params[name];
  return typeof value === 'string' ? value : '';
}

/** `/binaries/<token>` takes no credential header: the token is the credential (spec, Files). */
function refuseCredentials(req: Request): void {
  if (CREDENTIAL_HEADERS.some((name) => req.headers[name] !== undefined)) {
    throw new ValidationError(
      'Send no Authorization or X-API-Key header to /binaries: the URL is the credential.',
    );
  }
}

/** A signed URL answered as a JSON string and in `Location` (200). */
export function signedUrl(res: Response, url: string): void {
  res.setHeader('Location', url);
  res.setHeader('Cache-Control', 'no-store');
  res.json(url);
}

export function fileRoutes(deps: AppDeps): Router {
  const router = routeModule();
  const files = deps.files;

  router.get('/data/:tenant/upload', (_req, res) => {
    signedUrl(res, files.requestUpload(tenantRequest(res).tenantId));
  });

  router.get('/data/:tenant/download/:objectId/:fileId', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const objects = (await deps.runtimes.get(tenantId)).data().objects;
    const objectId = param(req, 'objectId').toLowerCase();
    const file = await objects.reads.heldFile(account, objectId, param(req, 'fileId'));
    signedUrl(res, files.downloadUrl(tenantId, objectId, file));
  });

  router.post('/binaries/:token', async (req, res) => {
    refuseCredentials(req);
    try {
      res.json([await files.receive(param(req, 'token'), req.headers, req)]);
    } catch (error) {
      // Node reads and drops the rest of a refused body to keep the connection; past a small size
      // (an upload over the limit) the connection is closed after the answer instead.
      const declared = Number(req.headers['content-length']);
      if (!req.complete && !(declared <= DRAIN_LIMIT)) res.setHeader('Connection', 'close');
      throw error;
    }
  });

  router.get('/binaries/:token', async (req, res) => {
    refuseCredentials(req);
    let opened;
    try {
      opened = await files.open(param(req, 'token'), req.headers.range);
    } catch (error) {
      if (error instanceof RangeNotSatisfiableError) res.setHeader('Content-Range', `bytes */${error.size}`);
      throw error;
    }
    const { file, range, body } = opened;
    res.status(range ? 206 : 200);
    res.setHeader('Content-Type', file.contentType);
    res.setHeader('Content-Length', String(range ? range.end - range.start + 1 : file.size));
    if (range) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Content-Disposition', contentDisposition(file.contentType, file.fileName));
    res.setHeader('Cache-Control', 'private, no-store');
    if (!servedInline(file.contentType)) res.setHeader('X-Frame-Options', 'DENY');
    if (file.contentType !== 'application/pdf') res.setHeader('Content-Security-Policy', FILE_CSP);
    pipeline(body, res, (error) => {
      if (error) deps.log.info('file download cut off', { reason: error.message });
    });
  });

  return router;
}
