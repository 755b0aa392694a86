/**
 * Search cursors are opaque to clients and signed with a key of the tenant's index, so a forged,
 * damaged or altered cursor is refused (400) instead of steering a query. Every search adapter
 * seals its cursors here and opens them here; what a cursor holds is the adapter's own business.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from './errors.js';

/** The 400 of a cursor that is not a cursor of this query (forged, damaged, stale or another query's). */
export function invalidSearchCursor(
  message = 'The search cursor is not valid for this query.',
): ValidationError {
  return new ValidationError(message, [{ field: 'cursor', message: 'not a cursor of this query' }]);
}

function signature(payload: string, secret: Buffer | string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url').slice(0, 22);
}

/** `value` as `<base64url JSON>.<signature>`. */
export function sealCursor(value: unknown, secret: Buffer | string): string {
  const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${payload}.${signature(payload, secret)}`;
}

/** The value a cursor sealed with `secret` holds; throws {@link invalidSearchCursor} for any other text. */
export function openCursor(text: string, secret: Buffer | string): unknown {
  const [payload, given, ...rest] = text.split('.');
  if (payload === undefined || given === undefined || rest.length > 0) throw invalidSearchCursor();
  const expected = Buffer.from(signature(payload, secret));
  const actual = Buffer.from(given);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) throw invalidSearchCursor();
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
  } catch {
    throw invalidSearchCursor();
  }
}
