/**
 * A document that is the same for every request until it changes (the OpenAPI document and the
 * TypeScript declarations of one model version: model-documents.ts), kept in every content coding
 * a client may ask for and served by `Accept-Encoding`, with validators so a client that has it
 * revalidates in one round trip:
 *
 * - **Codings.** The bytes as they are (`identity`), gzip and brotli, each compressed once on
 *   zlib's thread pool (not on the event loop). A document of several hundred kilobytes is about a
 *   twentieth of that compressed: most of what a request for it costs the server (and its network)
 *   is the bytes it sends.
 * - **Validators.** Each coding has a strong `ETag` (the SHA-256 of its bytes); `If-None-Match`
 *   naming any coding's tag of the current version (or `*`) answers 304, with that tag. The codings
 *   of one version hold the same document, so a client that changed its `Accept-Encoding` still has
 *   a valid copy. `Cache-Control: private, no-cache`: a client may keep it, but asks again (with
 *   its tag) before using it, so a model reload is seen at once; shared caches keep nothing of a
 *   tenant's.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Request, Response } from 'express';

/** One coding of a document: its bytes and their strong entity tag. */
export interface Representation {
  readonly bytes: Buffer;
  /** `"<base64url SHA-256 of the bytes>"`. */
  readonly etag: string;
}

/** The content codings a document is kept in, besides its bytes as they are. */
export type Coding = 'br' | 'gzip';

/** A document's bytes, and its compressed codings once they are ready. */
export interface EncodedDocument {
  readonly identity: Representation;
  /** Resolves once compressed; a coding that failed is absent (the bytes are served as they are). */
  readonly codings: Promise<Partial<Record<Coding, Representation>>>;
}

/** Brotli's quality: 9 of 11 compresses a JSON document nearly as well in a fraction of the time. */
const BROTLI_QUALITY = 9;

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

function representation(bytes: Buffer): Representation {
  return { bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url')}"` };
}

/** Keeps `text` as bytes and starts compressing them (off the event loop). */
export function encodeDocument(text: string): EncodedDocument {
  const bytes = Buffer.from(text, 'utf8');
  const compressed = async (compress: () => Promise<Buffer>) => {
    try {
      return representation(await compress());
    } catch {
      return undefined;
    }
  };
  const codings = Promise.all([
    compressed(() => gzipAsync(bytes, { level: constants.Z_BEST_COMPRESSION })),
    compressed(() =>
      brotliAsync(bytes, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        },
      }),
    ),
  ]).then(([gzipped, brotli]) => ({
    ...(gzipped === undefined ? {} : { gzip: gzipped }),
    ...(brotli === undefined ? {} : { br: brotli }),
  }));
  return { identity: representation(bytes), codings };
}

/** The entity tags an `If-None-Match` header names (weak ones compare as their strong tag). */
function taggedIn(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .filter((tag) => tag !== '');
}

/**
 * Answers `req` with `document` as `contentType`: 304 when `If-None-Match` names one of its
 * current tags, else the coding the client prefers among those it accepts (`Vary: Accept-Encoding`).
 */
export async function sendDocument(
  req: Request,
  res: Response,
  document: EncodedDocument,
  contentType: string,
): Promise<void> {
  const codings = await document.codings;
  // The server's preference among codings the client rates alike: the smallest first.
  const all: [string, Representation][] = [
    ...(['br', 'gzip'] as const).flatMap((name): [string, Representation][] => {
      const coded = codings[name];
      return coded === undefined ? [] : [[name, coded]];
    }),
    ['identity', document.identity],
  ];
  res.setHeader('Vary', 'Accept-Encoding').setHeader('Cache-Control', 'private, no-cache');
  const named = taggedIn(req.headers['if-none-match']);
  const matched = named.includes('*')
    ? document.identity.etag
    : all.map(([, { etag }]) => etag).find((etag) => named.includes(etag));
  if (matched !== undefined && (req.method === 'GET' || req.method === 'HEAD')) {
    res.status(304).setHeader('ETag', matched).end();
    return;
  }
  const offered = all.map(([coding]) => coding);
  const accepted = req.acceptsEncodings(offered);
  const coding = typeof accepted === 'string' ? accepted : 'identity';
  const chosen = all.find(([name]) => name === coding)?.[1] ?? document.identity;
  if (coding !== 'identity') res.setHeader('Content-Encoding', coding);
  res.type(contentType).setHeader('ETag', chosen.etag).send(chosen.bytes);
}
