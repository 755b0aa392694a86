/**
 * The blob store port: the bytes of uploaded files (and the small records the files service keeps
 * beside them). Adapters: `@odp/blobs-fs` (embedded default, under the data directory) and
 * `@odp/blobs-s3` (S3 through the minio client); both run the contract suite of
 * `@odp/testkit`.
 *
 * Keys are built by the platform from server-made ids only (`files/<tenant>/<fileId>`), never from
 * client input: segments of `[A-Za-z0-9._-]` separated by `/`, no empty, `.` or `..` segment.
 * Adapters refuse any other key ({@link assertBlobKey}), so a key can never leave the store's root.
 */
import type { Readable } from 'node:stream';

/** What `stat` and `list` report of one blob. */
export interface BlobInfo {
  readonly key: string;
  /** Bytes. */
  readonly size: number;
  /** When the blob was last written. */
  readonly modifiedAt: Date;
}

/** An inclusive byte range, as in an HTTP `Range: bytes=start-end` header. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

export interface BlobStore {
  /**
   * Streams `body` to `key`, replacing any blob there. The blob appears whole or not at all: when
   * `body` fails (an aborted upload, a size limit) the promise rejects with that error and nothing
   * is left under `key`. Resolves the number of bytes written. Never holds the whole body in memory.
   */
  put(key: string, body: Readable): Promise<{ size: number }>;
  /** The bytes of `key` (only `range` when given, which must lie inside the blob), or null when absent. */
  get(key: string, range?: ByteRange): Promise<Readable | null>;
  stat(key: string): Promise<BlobInfo | null>;
  /** Removes `key`; removing an absent key is not an error. */
  delete(key: string): Promise<void>;
  /** Every blob whose key starts with `prefix`, in no particular order (sweeps). */
  list(prefix: string): AsyncIterable<BlobInfo>;
  close(): Promise<void>;
}

const KEY_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/** Throws when `key` is not a platform-made blob key (see the module comment). */
export function assertBlobKey(key: string): void {
  if (!KEY_PATTERN.test(key) || key.length > 512 || key.split('/').some((part) => part.includes('..'))) {
    throw new Error(`Not a valid blob key: ${JSON.stringify(key.slice(0, 80))}`);
  }
}
