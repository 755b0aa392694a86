/**
 * A small identity provider for black-box suites: a JWKS document (one RS256 and one ES256 key)
 * served on 127.0.0.1, and tokens signed with jose. Pass `idp.env` to startServer.
 *
 *   const idp = await startIdp();
 *   const token = await idp.token({ sub: 'ann' });
 *   await idp.stop();   // always, in afterAll
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import type { JWK, JWTPayload, KeyLike } from 'jose';

export const AUDIENCE = 'odp-test-audience';

export type SigningAlgorithm = 'RS256' | 'ES256';

export interface TokenOptions {
  readonly sub: string;
  readonly email?: string;
  readonly alg?: SigningAlgorithm;
  /** Defaults to the IdP's issuer. */
  readonly iss?: string;
  /** Defaults to AUDIENCE. */
  readonly aud?: string | readonly string[];
  /** Seconds from now until expiry (negative: already expired). Default 600. */
  readonly expiresIn?: number;
  /** Overrides the key id in the header (e.g. one the JWKS does not publish). */
  readonly kid?: string;
}

export interface Idp {
  readonly issuer: string;
  readonly jwksUrl: string;
  /** ODP_AUTH_ISSUER, ODP_AUTH_AUDIENCE and ODP_AUTH_JWKS_URL for this IdP. */
  readonly env: Readonly<Record<string, string>>;
  /** A valid token unless options say otherwise. */
  token(options: TokenOptions): Promise<string>;
  /** An unsigned token (`alg: none`) with otherwise valid claims. */
  unsignedToken(sub: string): string;
  /** A token signed with HS256, keyed with a secret an attacker might guess (the public key's `n`). */
  hmacToken(sub: string): Promise<string>;
  /** Correctly shaped, signed by a key the JWKS does not publish, under a published kid. */
  foreignKeyToken(sub: string): Promise<string>;
  stop(): Promise<void>;
}

interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyLike;
  readonly jwk: JWK;
}

async function signingKey(alg: SigningAlgorithm): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg);
  const kid = `${alg.toLowerCase()}-key`;
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export async function startIdp(): Promise<Idp> {
  const keys: Record<SigningAlgorithm, SigningKey> = {
    RS256: await signingKey('RS256'),
    ES256: await signingKey('ES256'),
  };
  const stranger = await signingKey('RS256');
  const jwks = JSON.stringify({ keys: [keys.RS256.jwk, keys.ES256.jwk] });
  const server = createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const jwksUrl = `${issuer}/.well-known/jwks.json`;

  const claims = (sub: string, email?: string): JWTPayload =>
    email === undefined ? { sub } : { sub, email };
  const sign = (
    payload: JWTPayload,
    key: SigningKey,
    alg: SigningAlgorithm,
    options: Omit<TokenOptions, 'sub'>,
  ) =>
    new SignJWT(payload)
      .setProtectedHeader({ alg, kid: options.kid ?? key.kid, typ: 'JWT' })
      .setIssuer(options.iss ?? issuer)
      .setAudience(
        options.aud === undefined
          ? AUDIENCE
          : [...(typeof options.aud === 'string' ? [options.aud] : options.aud)],
      )
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + (options.expiresIn ?? 600))
      .sign(key.privateKey);

  return {
    issuer,
    jwksUrl,
    env: { ODP_AUTH_ISSUER: issuer, ODP_AUTH_AUDIENCE: AUDIENCE, ODP_AUTH_JWKS_URL: jwksUrl },
    token(options) {
      const alg = options.alg ?? 'RS256';
      return sign(claims(options.sub, options.email), keys[alg], alg, options);
    },
    unsignedToken(sub) {
      return new UnsecuredJWT({ sub })
        .setIssuer(issuer)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('10m')
        .encode();
    },
    hmacToken(sub) {
      return new SignJWT({ sub })
        .setProtectedHeader({ alg: 'HS256', kid: keys.RS256.kid })
        .setIssuer(issuer)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(new TextEncoder().encode(keys.RS256.jwk.n));
    },
    foreignKeyToken(sub) {
      return sign({ sub }, { ...stranger, kid: keys.RS256.kid }, 'RS256', {});
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
