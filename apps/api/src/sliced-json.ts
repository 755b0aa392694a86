/**
 * Large JSON answers (a page of 1,000 objects) written in slices of the event loop: the text
 * serialised a part at a time (`jsonInSlices`), then encoded to UTF-8 and hashed for its ETag a
 * chunk at a time (an 8 MB page took 6.5 ms to encode and 5 ms to hash whole). The answer is the
 * one `res.json` gives: the same bytes, `Content-Type`, `Content-Length`, weak `ETag` and `304` to
 * a matching `If-None-Match`, written in one `end` (the request ends, and frees its share, as its
 * last byte is handed to the socket). An answer of one chunk (every object and page of ordinary size)
 * is handed to node as text, which it writes with the headers in one write: `res.json` copied the
 * body into a buffer and wrote it after the headers.
 */
import { createHash } from 'node:crypto';
import { LoopSlices, STRING_PIECE_CHARS, jsonChunksInSlices } from '@odp/core';
import type { Request, Response } from 'express';

/**
 * Characters of an answer encoded and hashed in one piece (about 0.4 ms here): an answer of up to
 * this many, every page of 20 or so objects, is one chunk, handed to node as text.
 */
const ANSWER_CHUNK_CHARS = 262_144;

/** Answers `value` as `res.json(value)` would, serialised, encoded and hashed in slices. */
export async function sendJsonInSlices(req: Request, res: Response, value: unknown): Promise<void> {
  const slices = new LoopSlices();
  const chunks = await jsonChunksInSlices(value, ANSWER_CHUNK_CHARS, slices);
  if (chunks.length === 1) {
    sendJsonText(req, res, chunks[0]!);
    return;
  }
  const hash = res.getHeader('ETag') ? undefined : createHash('sha1');
  const buffers: Buffer[] = [];
  let length = 0;
  for (const chunk of chunks) {
    if (buffers.length > 0) await slices.next();
    const buffer = Buffer.from(chunk, 'utf8');
    hash?.update(buffer);
    buffers.push(buffer);
    length += buffer.length;
  }
  if (hash) res.setHeader('ETag', weakEtag(length, hash));
  if (answeredFresh(req, res, length)) return;
  res.end(Buffer.concat(buffers, length));
}

/** express's weak ETag (the `etag` package's form), unless one is set: the body's length and SHA-1. */
function weakEtag(length: number, hash: ReturnType<typeof createHash>): string {
  return `W/"${length.toString(16)}-${hash.digest('base64').substring(0, 27)}"`;
}

/**
 * Sets the JSON answer's headers; true when the request was answered without a body (`304` to a
 * matching `If-None-Match`, `HEAD`).
 */
function answeredFresh(req: Request, res: Response, length: number): boolean {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (req.fresh) {
    res.removeHeader('Content-Type');
    res.status(304).end();
    return true;
  }
  res.setHeader('Content-Length', length);
  if (req.method === 'HEAD') {
    res.end();
    return true;
  }
  return false;
}

/**
 * Answers JSON text as `res.json` would, handing node the text itself: it writes the headers and
 * the body in one write, with no copy of the body into a buffer first.
 */
function sendJsonText(req: Request, res: Response, text: string): void {
  const length = Buffer.byteLength(text, 'utf8');
  if (!res.getHeader('ETag'))
    res.setHeader('ETag', weakEtag(length, createHash('sha1').update(text, 'utf8')));
  if (!answeredFresh(req, res, length)) res.end(text, 'utf8');
}

/**
 * Answers one object (a rendered object, an aggregations answer) as `res.json(object)` would: in
 * slices ({@link sendJsonInSlices}) when one of its values, or a member or element of one, is a
 * string of more than {@link STRING_PIECE_CHARS} characters (a note's 1 MB body took 3 ms to
 * serialise whole), else whole, as every object of ordinary size is answered fastest.
 */
export async function sendObjectJson(req: Request, res: Response, object: object): Promise<void> {
  if (holdsLongString(object, 2)) await sendJsonInSlices(req, res, object);
  else sendJsonText(req, res, JSON.stringify(object));
}

/** Whether `value` is, or holds within `levels` levels of members and elements, a long string. */
function holdsLongString(value: unknown, levels: number): boolean {
  if (typeof value === 'string') return value.length > STRING_PIECE_CHARS;
  if (levels === 0 || typeof value !== 'object' || value === null) return false;
  for (const member of Array.isArray(value) ? value : Object.values(value)) {
    if (holdsLongString(member, levels - 1)) return true;
  }
  return false;
}
