/**
 * The documents generated from a tenant's model (`GET /metadata/{tenant}/openapi.json`, its
 * `types.d.ts`), generated once per model version and kept as their bytes and compressed codings,
 * each with a strong `ETag` (encoded-document.ts): a request then costs a buffer write (or a 304),
 * however often a client asks, instead of a generation and a serialization of several hundred
 * kilobytes on the event loop every time.
 *
 * The cache is keyed by the model object itself (weakly): a model reload gives the tenant a new
 * model object, so the next request generates the documents of the new version, and the old entries
 * go with the old model once nothing holds it, as they do when the tenant's runtime is closed.
 * Generation is synchronous, so concurrent first requests cannot start two generations.
 */
import type { Model, TenantRecord } from '@odp/core';
import { tenantOpenApi } from '@odp/openapi';
import { tenantTypes } from '@odp/typegen';
import { encodeDocument } from './encoded-document.js';
import type { EncodedDocument } from './encoded-document.js';

interface Entry extends EncodedDocument {
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
): EncodedDocument {
  const entries = documents.get(model) ?? new Map<DocumentKind, Entry>();
  documents.set(model, entries);
  const entry = entries.get(kind);
  if (entry !== undefined && entry.tenant === tenant) return entry;
  const fresh: Entry = { ...encodeDocument(generate()), tenant };
  entries.set(kind, fresh);
  return fresh;
}

/** The OpenAPI document of `model`, the current model of `tenant`, served under `baseUrl`. */
export function openApiDocument(model: Model, tenant: TenantRecord, baseUrl: string): EncodedDocument {
  return cached(model, tenant, 'openapi', () =>
    JSON.stringify(tenantOpenApi(model, { tenantId: tenant.id, tenantName: tenant.name, baseUrl })),
  );
}

/** The TypeScript declarations of `model`'s classes for `@odp/client` (what `odp types` writes). */
export function typesDocument(model: Model, tenant: TenantRecord): EncodedDocument {
  return cached(model, tenant, 'types', () => tenantTypes(model, { tenantId: tenant.id }));
}
