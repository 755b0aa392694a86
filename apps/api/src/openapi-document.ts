/**
 * The OpenAPI document of a tenant (`GET /metadata/{tenant}/openapi.json`), generated once per
 * model version and kept as its serialized bytes with a strong `ETag`: a request then costs a
 * buffer write, however often a client asks, instead of a generation and a serialization of
 * several hundred kilobytes on the event loop every time.
 *
 * The cache is keyed by the model object itself (weakly): a model reload gives the tenant a new
 * model object, so the next request generates the document of the new version, and the old entry
 * goes with the old model once nothing holds it, as it does when the tenant's runtime is closed.
 * Generation is synchronous, so concurrent first requests cannot start two generations.
 */
import { createHash } from 'node:crypto';
import type { Model, TenantRecord } from '@odp/core';
import { tenantOpenApi } from '@odp/openapi';

/** A serialized OpenAPI document and its entity tag. */
export interface OpenApiBytes {
  readonly bytes: Buffer;
  /** A strong entity tag of the bytes (`"<base64url SHA-256>"`). */
  readonly etag: string;
}

interface Entry extends OpenApiBytes {
  /** The tenant record the document names (a renamed tenant gets a new record, and a new document). */
  readonly tenant: TenantRecord;
}

const documents = new WeakMap<Model, Entry>();

/** The OpenAPI document of `model`, the current model of `tenant`, served under `baseUrl`. */
export function openApiBytes(model: Model, tenant: TenantRecord, baseUrl: string): OpenApiBytes {
  const cached = documents.get(model);
  if (cached !== undefined && cached.tenant === tenant) return cached;
  const document = tenantOpenApi(model, { tenantId: tenant.id, tenantName: tenant.name, baseUrl });
  const bytes = Buffer.from(JSON.stringify(document), 'utf8');
  const etag = `"${createHash('sha256').update(bytes).digest('base64url')}"`;
  const entry: Entry = { bytes, etag, tenant };
  documents.set(model, entry);
  return entry;
}
