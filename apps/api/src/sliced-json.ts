/**
 * Large JSON answers (a page of 1,000 objects) serialised in slices of the event loop (`LoopSlices`,
 * docs/architecture.md "Where heavy work runs"): the elements of the value's arrays are serialised
 * one at a time, yielding in between, so a page does not hold the event loop for the whole of its
 * `JSON.stringify` while another tenant's request waits; an element measured for a page's byte
 * budget is written from the text measured then (`writtenJson`), not serialised again. The answer
 * is the one `res.json` gives: the same bytes, `Content-Type`, `Content-Length`, weak `ETag` and
 * `304` to a matching `If-None-Match`, written in one `end` (the request ends, and frees its
 * share, as its last byte is handed to the socket).
 */
import { createHash } from 'node:crypto';
import { LoopSlices, writtenJson } from '@odp/core';
import type { Request, Response } from 'express';

/** Levels of plain objects opened to reach arrays (a page: `_embedded`, then its plural). */
const OPENED_LEVELS = 2;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * The JSON text of `value`, as `JSON.stringify` writes it, an array element at a time: arrays at
 * any of the first {@link OPENED_LEVELS} levels of plain objects are serialised element by element
 * in slices; everything else by `JSON.stringify` whole.
 */
export async function stringifyInSlices(
  value: unknown,
  slices: LoopSlices = new LoopSlices(),
  levels: number = OPENED_LEVELS,
): Promise<string | undefined> {
  if (Array.isArray(value)) {
    const elements: string[] = [];
    for (const element of value) {
      elements.push(writtenJson(element) ?? JSON.stringify(element) ?? 'null');
      await slices.next();
    }
    return `[${elements.join(',')}]`;
  }
  if (levels > 0 && isPlainObject(value) && typeof value['toJSON'] !== 'function') {
    const members: string[] = [];
    for (const [key, member] of Object.entries(value)) {
      const text = await stringifyInSlices(member, slices, levels - 1);
      if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** express's weak ETag of a body (the `etag` package's form): its length and SHA-1. */
function weakEtag(body: Buffer): string {
  const hash = createHash('sha1').update(body).digest('base64').substring(0, 27);
  return `W/"${body.length.toString(16)}-${hash}"`;
}

/** Answers `value` as `res.json(value)` would, serialised in slices of the event loop. */
export async function sendJsonInSlices(req: Request, res: Response, value: unknown): Promise<void> {
  const slices = new LoopSlices();
  const body = Buffer.from((await stringifyInSlices(value, slices)) ?? '', 'utf8');
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
