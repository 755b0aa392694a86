import { createRemoteJWKSet, jwtVerify } from 'jose';
import { UnauthenticatedError } from '@odp/core';

/** A signed-in person as a verified access token identifies them: (issuer, subject), never by e-mail. */
export interface Person {
  readonly issuer: string;
  readonly subject: string;
  /** The token's `email` claim when present (informational only). */
  readonly email: string | null;
}

export interface TokenVerifier {
  /** The person a valid token identifies. Throws UnauthenticatedError for any invalid token. */
  verify(token: string): Promise<Person>;
}

export interface TokenVerifierOptions {
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUrl: string;
}

/** Asymmetric algorithms only: `none` and HMAC (a shared secret the JWKS would have to publish) are refused. */
export const ACCEPTED_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;

/** Tokens larger than this are refused without parsing. */
const MAX_TOKEN_LENGTH = 16 * 1024;
const CLOCK_TOLERANCE_SECONDS = 5;

/**
 * Verifies access tokens against the identity provider's published keys (fetched on demand and
 * cached by jose; an unknown `kid` triggers a refetch, rate limited by jose's cooldown).
 */
export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const keys = createRemoteJWKSet(new URL(options.jwksUrl));
  return {
    async verify(token: string): Promise<Person> {
      if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) throw new UnauthenticatedError();
      try {
        const { payload } = await jwtVerify(token, keys, {
          issuer: options.issuer,
          audience: options.audience,
          algorithms: [...ACCEPTED_ALGORITHMS],
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['sub', 'exp'],
        });
        if (typeof payload.sub !== 'string' || payload.sub === '' || typeof payload.iss !== 'string') {
          throw new UnauthenticatedError();
        }
        return {
          issuer: payload.iss,
          subject: payload.sub,
          email: typeof payload['email'] === 'string' ? payload['email'] : null,
        };
      } catch {
        throw new UnauthenticatedError();
      }
    },
  };
}
