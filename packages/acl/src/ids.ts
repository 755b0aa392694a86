/**
 * Deterministic access-control ids (UUIDv5, RFC 9562): the same tenant, definition and anchor give
 * the same acId on every node and after every rebuild, so stored rows and holdings stay comparable.
 */
import { createHash } from 'node:crypto';

/** Namespace of every acId of the platform. */
const ACL_NAMESPACE = '6f1c3a52-5d0e-4c6b-9a43-2b7f0e9d8c11';

function uuidV5(name: string): string {
  const hash = createHash('sha1')
    .update(Buffer.from(ACL_NAMESPACE.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The acId of the grant anchored on `anchorId` by an anchored definition. */
export function anchoredAcId(tenantId: string, definition: string, anchorId: string): string {
  return uuidV5(`anchored\u0000${tenantId}\u0000${definition}\u0000${anchorId}`);
}

/** The single acId of a path-less definition. */
export function pathlessAcId(tenantId: string, definition: string): string {
  return uuidV5(`pathless\u0000${tenantId}\u0000${definition}`);
}
