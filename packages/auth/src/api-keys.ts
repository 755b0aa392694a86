import { createHash, randomBytes } from 'node:crypto';

/**
 * API key values: `odp_` followed by 43 base64url characters (32 random bytes, 256 bits).
 * Only the SHA-256 hash of a value is stored; a request's key is looked up by its hash, so no
 * comparison of secret values happens in application code (and none in variable time).
 */
const KEY_PREFIX = 'odp_';
const KEY_PATTERN = /^odp_[A-Za-z0-9_-]{43}$/;

export interface GeneratedApiKey {
  /** The value to hand to the caller once; never stored or logged. */
  readonly key: string;
  readonly hash: string;
}

export function generateApiKey(): GeneratedApiKey {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, hash: hashApiKey(key) };
}

/** Hex SHA-256 of the key value. A high-entropy key needs no salt or slow hash. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * Whether a header value has the shape of a key this platform issues. Empty, oversized and
 * non-ASCII values are refused here, before any lookup.
 */
export function isWellFormedApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}
