/**
 * The request and response headers the tenant's OpenAPI document declares on its routes: the
 * conditional requests (`If-Match`, `If-None-Match`, `ETag`) and `Idempotency-Key`
 * (docs/data-api.md, "Conditional requests" and "Idempotent creates").
 */
import type { Schema } from './schemas.js';

const headerParam = (name: string, description: string): Schema => ({
  name,
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description,
});
export const IF_MATCH = headerParam(
  'If-Match',
  'Write only when the object still has one of these versions (its `ETag`); 412 otherwise. Without it, the last write wins.',
);
/** `Idempotency-Key` of the creating POSTs, declared once in `components.parameters`. */
export const IDEMPOTENCY_KEY: Schema = { $ref: '#/components/parameters/IdempotencyKey' };
export const IDEMPOTENCY_KEY_PARAMETER = {
  ...headerParam(
    'Idempotency-Key',
    'A key of the client’s choice (1 to 255 visible ASCII characters) naming this request: a retry ' +
      'with the same key, method, path and body within the server’s key lifetime (24 h by default) ' +
      'is answered with the first response (`Idempotent-Replayed: true`) and writes nothing; the same ' +
      'key with another request is 422. Keys are per account.',
  ),
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
};
export const IF_NONE_MATCH = headerParam(
  'If-None-Match',
  'Answer 304 when the object still has one of these versions.',
);
export const ETAG_HEADER = {
  ETag: { schema: { type: 'string' }, description: 'The object’s version: `"<_modificationDate>"`.' },
};
