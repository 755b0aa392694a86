import { isUtf8 } from 'node:buffer';
import express from 'express';
import type { RequestHandler } from 'express';
import { MAX_JSON_DEPTH, ValidationError } from '@odp/core';

/** Largest accepted JSON body. Bigger bodies get 413 before they are parsed. */
export const MAX_JSON_BODY = '10mb';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPENERS: ReadonlySet<number> = new Set([0x5b, 0x7b]);
const CLOSERS: ReadonlySet<number> = new Set([0x5d, 0x7d]);

/**
 * Checks the nesting of a UTF-8 JSON text in one pass over its bytes, without parsing it: brackets
 * outside string literals open and close levels (in UTF-8 the bytes of `"`, `\`, brackets and `:`
 * never occur inside a multi-byte character). Past `limit` levels: a ValidationError naming the
 * member of the top-level object that holds the deep value (the key before the last `:` seen at
 * level 1). Not a validator: a malformed text passes here and fails in `JSON.parse`.
 */
export function assertJsonDepth(bytes: Uint8Array, limit: number): void {
  let depth = 0;
  let inString = false;
  let stringStart = -1;
  let lastTopString: [number, number] | null = null;
  let member: [number, number] | null = null;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) {
        inString = false;
        if (depth === 1) lastTopString = [stringStart, i + 1];
      }
    } else if (byte === QUOTE) {
      inString = true;
      stringStart = i;
    } else if (OPENERS.has(byte)) {
      depth++;
      if (depth > limit) throw tooDeep(bytes, member, limit);
    } else if (CLOSERS.has(byte)) {
      depth--;
    } else if (byte === COLON && depth === 1) {
      member = lastTopString;
    }
  }
}

function tooDeep(bytes: Uint8Array, member: [number, number] | null, limit: number): ValidationError {
  const message = `nests arrays and objects deeper than ${limit} levels`;
  let field: string | null = null;
  if (member !== null) {
    try {
      field = String(JSON.parse(Buffer.from(bytes.subarray(member[0], member[1])).toString('utf8')));
    } catch {
      field = null;
    }
  }
  return field === null
    ? new ValidationError(`The request body ${message}.`)
    : new ValidationError(`The value of ${field} ${message}.`, [{ field, message }]);
}

/**
 * Before the JSON parser sees a body (express's `verify` hook, given the inflated bytes): the text
 * must be valid in its charset (invalid UTF-8 would otherwise be stored as U+FFFD replacement
 * characters) and nest at most {@link MAX_JSON_DEPTH} levels, checked before parsing (a deep body
 * costs `JSON.parse` far more time than a flat one of the same size).
 */
function verifyJson(_req: unknown, _res: unknown, bytes: Buffer, encoding: string): void {
  const charset = encoding.toLowerCase();
  let utf8: Uint8Array = bytes;
  if (charset === 'utf-8' || charset === 'utf8') {
    if (!isUtf8(bytes)) throw new ValidationError('The request body is not valid UTF-8.');
  } else {
    let text: string;
    try {
      text = new TextDecoder(charset, { fatal: true }).decode(bytes);
    } catch {
      throw new ValidationError(`The request body is not valid ${charset}.`);
    }
    utf8 = Buffer.from(text, 'utf8');
  }
  assertJsonDepth(utf8, MAX_JSON_DEPTH);
}

/** express's JSON body parser with the platform's size, charset and nesting limits. */
export function jsonBody(): RequestHandler {
  return express.json({
    limit: MAX_JSON_BODY,
    type: ['application/json', 'application/*+json'],
    verify: verifyJson,
  });
}
