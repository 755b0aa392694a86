/**
 * The documents generated from a tenant's model (`GET /metadata/{tenant}/openapi.json`, its
 * `types.d.ts`), generated once per model version and kept as their bytes with a strong `ETag`: a
 * request then costs a buffer write, however often a client asks, instead of a generation and a
 * serialization of several hundred kilobytes on the event loop every time.
 *
 * The cache is keyed by the model object itself (weakly): a model reload gives the tenant a new
 * model object, so the next request generates the documents of the new version, and the old entries
 * go with the old model once nothing holds it, as they do when the tenant's runtime is closed.
 * Generation is synchronous, so concurrent first requests cannot start two generations.
 */
import { createHash } from 'node:crypto';
import type { Model, TenantRecord } from '@odp/core';
import { tenantOpenApi } from '@odp/openapi';
import { tenantTypes } from '@odp/typegen';

/** A generated document's bytes and its entity tag. */
export interface DocumentBytes {
  readonly bytes: Buffer;
  /** A strong entity tag of the bytes (`"<base64url SHA-256>"`). */
  readonly etag: string;
}

interface Entry extends DocumentBytes {
  /** The tenant record the document names (a renamed tenant gets a new record, and a new document). */
  readonly tenant: TenantRecord;
}

type DocumentKind = 'openapi' | 'types';

const documents = new WeakMap<Model, Map<DocumentKind, Entry>>();

function cached(
  model: Model,
  tenant: TenantRecord,
  kind: DocumentKind,
  generate: () => string,
): DocumentBytes {
  const entries = documents.get(model) ?? new Map<DocumentKind, Entry>();
  documents.set(model, entries);
  const entry = entries.get(kind);
  if (entry !== undefined && entry.tenant === tenant) return entry;
  const bytes = Buffer.from(generate(), 'utf8');
  const etag = `"${createHash('sha256').update(bytes).digest('base64url')}"`;
  const fresh: Entry = { bytes, etag, tenant };
  entries.set(kind, fresh);
  return fresh;
}

/** The OpenAPI document of `model`, the current model of `tenant`, served under `baseUrl`. */
export function openApiBytes(model: Model, tenant: TenantRecord, baseUrl: string): DocumentBytes {
  return cached(model, tenant, 'openapi', () =>
    JSON.stringify(tenantOpenApi(model, { tenantId: tenant.id, tenantName: tenant.name, baseUrl })),
  );
}

/** The TypeScript declarations of `model`'s classes for `@odp/client` (what `odp types` writes). */
export function typesBytes(model: Model, tenant: TenantRecord): DocumentBytes {
  return cached(model, tenant, 'types', () => tenantTypes(model, { tenantId: tenant.id }));
}
