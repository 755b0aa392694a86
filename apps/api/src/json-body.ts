import { isUtf8 } from 'node:buffer';
import express from 'express';
import type { RequestHandler } from 'express';
import type { JsonLimitsConfig } from '@odp/config';
import { AppError, LOOP_SLICE_MS, MAX_JSON_DEPTH, ValidationError } from '@odp/core';

/** Largest accepted JSON body. Bigger bodies get 413 before they are parsed. */
export const MAX_JSON_BODY = '10mb';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const OPENERS: ReadonlySet<number> = new Set([0x5b, OPEN_OBJECT]);
const CLOSERS: ReadonlySet<number> = new Set([0x5d, 0x7d]);
/** Space, tab, line feed and carriage return: the whitespace JSON allows between tokens. */
const WHITESPACE: ReadonlySet<number> = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** What one JSON body may hold: levels of nesting, members of one object, values in all. */
export interface JsonShapeLimits {
  readonly depth: number;
  readonly members: number;
  readonly values: number;
}

/**
 * The index of the quote closing a string whose text starts at `from` (the length when it is not
 * closed). Found with the native `indexOf` rather than byte by byte: a string of a megabyte is
 * skipped in a fraction of a millisecond. A quote preceded by an odd run of backslashes is escaped.
 */
function closingQuote(bytes: Uint8Array, from: number): number {
  for (let quote = bytes.indexOf(QUOTE, from); quote !== -1; quote = bytes.indexOf(QUOTE, quote + 1)) {
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && bytes[quote - backslashes - 1] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return bytes.length;
}

/**
 * Checks the shape of a UTF-8 JSON text in one pass over its bytes, without parsing it: brackets
 * outside string literals open and close levels, commas separate the elements of the innermost
 * open array or object (in UTF-8 the bytes of `"`, `\`, brackets, `,` and `:` never occur inside a
 * multi-byte character). Stops at the first limit passed, so a body of a million keys costs no
 * more than the bytes up to the one over the limit:
 * - past `limits.depth` levels: a ValidationError naming the member of the top-level object that
 *   holds the deep value (the key before the last `:` seen at level 1);
 * - an object with more than `limits.members` members, or more than `limits.values` values in all
 *   (every element of every array and object): PAYLOAD_TOO_LARGE (413).
 * Not a validator: a malformed text passes here and fails in `JSON.parse`.
 */
export function assertJsonShape(bytes: Uint8Array, limits: JsonShapeLimits): void {
  let inString = false;
  let stringStart = -1;
  let lastTopString: [number, number] | null = null;
  let member: [number, number] | null = null;
  /** Members seen so far of each open object, innermost last; {@link ARRAY} for an open array. */
  const open: number[] = [];
  let values = 0;
  let opened = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (inString) {
      i = closingQuote(bytes, i);
      inString = false;
      if (open.length === 1) lastTopString = [stringStart, i + 1];
      continue;
    }
    if (WHITESPACE.has(byte)) continue;
    if (opened) {
      // The first token after an opener: the first element, unless the container is empty.
      opened = false;
      if (!CLOSERS.has(byte)) values = countElement(open, values, limits);
    }
    if (byte === QUOTE) {
      inString = true;
      stringStart = i;
    } else if (OPENERS.has(byte)) {
      open.push(byte === OPEN_OBJECT ? 0 : ARRAY);
      opened = true;
      if (open.length > limits.depth) throw tooDeep(bytes, member, limits.depth);
    } else if (CLOSERS.has(byte)) {
      open.pop();
    } else if (byte === COMMA && open.length > 0) {
      values = countElement(open, values, limits);
    } else if (byte === COLON && open.length === 1) {
      member = lastTopString;
    }
  }
}

/** Marks an open array among the member counts of open objects (arrays have no member limit). */
const ARRAY = -1;

/** Counts one more element of the innermost open array or object; the new total of values. */
function countElement(open: number[], values: number, limits: JsonShapeLimits): number {
  const last = open.length - 1;
  const members = open[last] as number;
  if (members !== ARRAY) {
    if (members >= limits.members) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `The request body has an object with more than ${limits.members} members.`,
      );
    }
    open[last] = members + 1;
  }
  if (values >= limits.values) {
    throw new AppError('PAYLOAD_TOO_LARGE', `The request body holds more than ${limits.values} values.`);
  }
  return values + 1;
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
 * characters), nest at most {@link MAX_JSON_DEPTH} levels and stay within the member and value
 * limits, all checked before parsing (a deep or wide body costs `JSON.parse`, and every layer that
 * walks the result, far more time than its bytes alone).
 */
function verifyJson(limits: JsonShapeLimits) {
  return (_req: unknown, _res: unknown, bytes: Buffer, encoding: string): void => {
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
    assertJsonShape(utf8, limits);
  };
}

/** When the checking and parsing of each request's body began. */
const parseStarted = new WeakMap<object, number>();

/**
 * express's JSON body parser with the platform's size, charset, nesting, member and value limits.
 * Checking and parsing a large body is a step of the event loop of its own: when it took a slice
 * (`sliceMs`, {@link LOOP_SLICE_MS} unless told) or more, the request goes on in the next turn,
 * after the I/O that arrived meanwhile (another tenant's request waits for the parse of a
 * megabyte, not for it and all the handling that follows it too).
 */
export function jsonBody(limits: JsonLimitsConfig, sliceMs: number = LOOP_SLICE_MS): RequestHandler {
  const verify = verifyJson({ depth: MAX_JSON_DEPTH, members: limits.maxMembers, values: limits.maxValues });
  const parse = express.json({
    limit: MAX_JSON_BODY,
    type: ['application/json', 'application/*+json'],
    verify: (req, res, bytes, encoding) => {
      parseStarted.set(req, performance.now());
      verify(req, res, bytes, encoding);
    },
  });
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      const started = parseStarted.get(req);
      if (error === undefined && started !== undefined && performance.now() - started >= sliceMs) {
        setImmediate(next);
      } else {
        next(error);
      }
    });
  };
}
