/**
 * Where a tenant's files lie in the blob store, and the upload records kept beside them
 * (file-service.ts): `files/<tenant>/<fileId>` holds the bytes, `uploads/<tenant>/<fileId>` the
 * record of an upload while it is unclaimed, `generated/<tenant>/<fileId>` that of a generated file.
 */
import { Readable } from 'node:stream';
import type { BlobStore } from '@odp/core';

/**
 * The upload record kept under `uploads/<tenant>/<fileId>` while the upload is unclaimed. A
 * `generated` file (a report, an export) has one too, so the sweep deletes it like an unclaimed
 * upload; no write can claim it.
 */
export interface UploadRecord {
  readonly state: 'receiving' | 'ready';
  readonly fileName?: string;
  readonly contentType?: string;
  readonly size?: number;
  /** The object a write is storing it in (set before that write commits). */
  readonly holder?: string;
}

export const fileKey = (tenantId: string, fileId: string) => `files/${tenantId}/${fileId}`;
export const recordKey = (tenantId: string, fileId: string) => `uploads/${tenantId}/${fileId}`;
export const generatedKey = (tenantId: string, fileId: string) => `generated/${tenantId}/${fileId}`;
export const UPLOADS_PREFIX = 'uploads/';
export const GENERATED_PREFIX = 'generated/';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** Writes the upload record of `fileId`, replacing the one before. */
export async function writeRecord(
  blobs: BlobStore,
  tenantId: string,
  fileId: string,
  record: UploadRecord,
): Promise<void> {
  await blobs.put(recordKey(tenantId, fileId), Readable.from([Buffer.from(JSON.stringify(record))]));
}

/** The upload record of `fileId`; null when there is none (or it cannot be read). */
export async function readRecord(
  blobs: BlobStore,
  tenantId: string,
  fileId: string,
): Promise<UploadRecord | null> {
  const stream = await blobs.get(recordKey(tenantId, fileId));
  if (stream === null) return null;
  try {
    return JSON.parse((await readAll(stream)).toString('utf8')) as UploadRecord;
  } catch {
    return null;
  }
}
