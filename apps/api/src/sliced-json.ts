/**
 * Large JSON answers (a page of 1,000 objects) sent in slices of the event loop (`LoopSlices`,
 * docs/architecture.md "Where heavy work runs"): the elements of the value's arrays are serialised
 * one at a time, and the bytes written a chunk at a time after the socket drained, yielding in
 * between, so a page neither holds the event loop for tens of milliseconds nor copies megabytes
 * into the socket in one write while another tenant's request waits. The answer is the one
 * `res.json` gives: the same bytes, `Content-Type`, `Content-Length`, weak `ETag` and `304` to a
 * matching `If-None-Match`.
 */
import { createHash } from 'node:crypto';
import { LoopSlices } from '@odp/core';
import type { Request, Response } from 'express';
import { drained } from './drained.js';

/** Bytes written to the socket at a time. */
const WRITE_CHUNK_BYTES = 64 * 1024;
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
      elements.push(JSON.stringify(element) ?? 'null');
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

/** Answers `value` as `res.json(value)` would, serialised and written in slices of the event loop. */
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
  // The last chunk ends the answer in the same call: the client, which has every byte once it is
  // written, must find the request ended (its share freed) when it sends its next one.
  let offset = 0;
  for (; offset + WRITE_CHUNK_BYTES < body.length && !res.destroyed; offset += WRITE_CHUNK_BYTES) {
    if (!res.write(body.subarray(offset, offset + WRITE_CHUNK_BYTES))) await drained(res);
    await slices.next();
  }
  res.end(body.subarray(offset));
}
