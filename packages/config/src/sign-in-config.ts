import { ConfigError } from './config-error.js';
import type { AuthConfig } from './config-types.js';
import { parseUrl } from './value-parsers.js';
import type { Read } from './variables.js';

/** Sign-in is configured by all three variables together, or not at all. */
export function parseAuth(read: Read): AuthConfig | null {
  const issuer = read('ODP_AUTH_ISSUER');
  const audience = read('ODP_AUTH_AUDIENCE');
  const jwksUrl = read('ODP_AUTH_JWKS_URL');
  if (issuer === null && audience === null && jwksUrl === null) return null;
  const together = 'is required when ODP_AUTH_ISSUER, ODP_AUTH_AUDIENCE or ODP_AUTH_JWKS_URL is set';
  if (issuer === null) throw new ConfigError('ODP_AUTH_ISSUER', together);
  if (audience === null) throw new ConfigError('ODP_AUTH_AUDIENCE', together);
  if (jwksUrl === null) throw new ConfigError('ODP_AUTH_JWKS_URL', together);
  return { issuer, audience, jwksUrl: parseUrl('ODP_AUTH_JWKS_URL', jwksUrl, ['http:', 'https:']) };
}
