/**
 * Large JSON answers (a page of 1,000 objects) serialised in slices of the event loop
 * (`jsonInSlices`). The answer is the one `res.json` gives: the same bytes, `Content-Type`, `Content-Length`, weak `ETag` and
 * `304` to a matching `If-None-Match`, written in one `end` (the request ends, and frees its
 * share, as its last byte is handed to the socket).
 */
import { createHash } from 'node:crypto';
import { LoopSlices, jsonInSlices } from '@odp/core';
import type { Request, Response } from 'express';

/** express's weak ETag of a body (the `etag` package's form): its length and SHA-1. */
function weakEtag(body: Buffer): string {
  const hash = createHash('sha1').update(body).digest('base64').substring(0, 27);
  return `W/"${body.length.toString(16)}-${hash}"`;
}

/** Answers `value` as `res.json(value)` would, serialised in slices of the event loop. */
export async function sendJsonInSlices(req: Request, res: Response, value: unknown): Promise<void> {
  const slices = new LoopSlices();
  const body = Buffer.from((await jsonInSlices(value, slices)) ?? '', 'utf8');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (!res.getHeader('ETag')) res.setHeader('ETag', weakEtag(body));
  if (req.fresh) {
    res.removeHeader('Content-Type');
    res.status(304).end();
    return;
  }
  res.setHeader('Content-Length', body.length);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  res.end(body);
}
