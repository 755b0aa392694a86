/**
 * Sealed values: what the platform hands to clients and must get back unaltered (search cursors,
 * the signed tokens of file URLs and event streams). A sealed value is
 * `base64url(JSON) "." base64url(HMAC-SHA256)`: readable, never forgeable. Each purpose signs with
 * its own key derived from `ODP_SECRET_KEY` ({@link purposeKey}), so a token of one kind never
 * verifies as another.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from './errors.js';

/** Sealed texts longer than this are refused unread. */
const MAX_SEALED_LENGTH = 8192;

/** The signing key of one purpose (`file-tokens`, `stream-tokens`, ...), derived from the secret key. */
export function purposeKey(secretKey: string, purpose: string): Buffer {
  return createHash('sha256').update(`odp-${purpose}\u0000${secretKey}`).digest();
}

function mac(payload: string, key: Buffer | string): Buffer {
  return createHmac('sha256', key).update(payload).digest();
}

export function seal(value: unknown, key: Buffer | string): string {
  const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${payload}.${mac(payload, key).toString('base64url')}`;
}

/**
 * The bytes of `text` when it is their one canonical base64url spelling, else null. Node's decoder
 * is lenient (it ignores padding, the unused low bits of the last character, `+`/`/` and whitespace),
 * so several texts decode to the same bytes; a sealed value has exactly one spelling, the one
 * {@link seal} wrote, and any other is damaged.
 */
function decodeCanonical(text: string): Buffer | null {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}

/** The value `text` seals when `key` signed it; null for anything else (forged, damaged, foreign). */
export function unseal(text: string, key: Buffer | string): unknown {
  if (text.length > MAX_SEALED_LENGTH) return null;
  const [payload, signature, ...rest] = text.split('.');
  if (payload === undefined || signature === undefined || rest.length > 0) return null;
  const given = decodeCanonical(signature);
  const expected = mac(payload, key);
  if (given === null || given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const json = decodeCanonical(payload);
  if (json === null) return null;
  try {
    return JSON.parse(json.toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

/**
 * The 400 of a cursor that is not a cursor of this query (forged, damaged, stale or another query's):
 * a search `cursor`, or the `after` of a list.
 */
export function invalidSearchCursor(
  message = 'The search cursor is not valid for this query.',
  parameter: 'cursor' | 'after' = 'cursor',
): ValidationError {
  return new ValidationError(message, [{ field: parameter, message: 'not a cursor of this query' }]);
}
