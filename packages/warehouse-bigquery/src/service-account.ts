/**
 * The `_credentials` of a DatastoreReplicator target: a Google service account key (JSON), read into
 * the one kind of client this adapter accepts.
 *
 * Only `"type": "service_account"` keys are used, and only their `client_email`, `private_key` and
 * `private_key_id`: the other key types of Google's auth library read files of the host or call
 * URLs named in the JSON (external accounts), which a tenant's secret must never make a worker do.
 * Requests are signed with a self-signed JWT carrying the BigQuery scope (Google's "JWT access with
 * scope"), so no token exchange with an OAuth endpoint happens. Error messages never quote the JSON.
 */
import type { JWT } from 'google-auth-library';

/** The OAuth scope of the BigQuery API. */
export const BIGQUERY_SCOPE = 'https://www.googleapis.com/auth/bigquery';

/** The parts of a service account key the adapter signs with. */
export interface ServiceAccountKey {
  readonly clientEmail: string;
  readonly privateKey: string;
  readonly privateKeyId: string | undefined;
}

/** `_credentials` that are not a service account key: retrying with the same secret does not help. */
export class CredentialsError extends Error {}

/** Reads a service account key from the secret's text; throws CredentialsError saying what is wrong. */
export function parseServiceAccountKey(credentials: string): ServiceAccountKey {
  let json: unknown;
  try {
    json = JSON.parse(credentials);
  } catch {
    // The parser's own message quotes the text, which is a secret.
    throw new CredentialsError('_credentials is not JSON (a service account key file is expected)');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new CredentialsError('_credentials is not a JSON object (a service account key file is expected)');
  const key = json as Record<string, unknown>;
  if (key['type'] !== 'service_account')
    throw new CredentialsError('_credentials is not a service account key ("type": "service_account")');
  const clientEmail = key['client_email'];
  const privateKey = key['private_key'];
  const privateKeyId = key['private_key_id'];
  if (typeof clientEmail !== 'string' || clientEmail === '')
    throw new CredentialsError('_credentials has no client_email');
  if (typeof privateKey !== 'string' || !privateKey.includes('PRIVATE KEY'))
    throw new CredentialsError('_credentials has no private_key in PEM form');
  return {
    clientEmail,
    privateKey,
    privateKeyId: typeof privateKeyId === 'string' && privateKeyId !== '' ? privateKeyId : undefined,
  };
}

/** The auth client of a key: every request carries a self-signed JWT with the BigQuery scope. */
export async function serviceAccountClient(key: ServiceAccountKey): Promise<JWT> {
  const { JWT } = await import('google-auth-library');
  const client = new JWT({
    email: key.clientEmail,
    key: key.privateKey,
    ...(key.privateKeyId === undefined ? {} : { keyId: key.privateKeyId }),
    scopes: [BIGQUERY_SCOPE],
  });
  client.useJWTAccessWithScope = true;
  return client;
}
