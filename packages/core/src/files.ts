/**
 * Files held in FILE and IMAGE fields: the stored form of a file value and the port through which
 * the object service claims uploads and releases files (implemented by `@odp/files`).
 */

/** A FILE or IMAGE value as stored: the file id plus the metadata the server recorded at upload. */
export interface StoredFile {
  readonly fileId: string;
  readonly fileName: string;
  readonly contentType: string;
  /** Bytes. */
  readonly size: number;
}

/** One upload about to be held by one object. */
export interface FileClaim {
  readonly objectId: string;
  readonly fileId: string;
}

/**
 * The uploads of one tenant as the write path sees them (interface spec, "Uploaded file"). A write
 * that stores uploads calls `claim` before it commits and `settle` after, whatever the outcome.
 */
export interface UploadClaims {
  /**
   * The recorded upload `fileId` of this tenant that no object holds and no write is claiming, with
   * the metadata the server determined; null otherwise (unknown, expired, claimed, another tenant's).
   */
  upload(fileId: string): Promise<StoredFile | null>;
  /**
   * Marks the uploads as being claimed by their objects (until `settle`, `upload` answers null for
   * them, so two writes cannot claim one upload) and records the holder, so that a sweep after a
   * crash between commit and settle can tell a held upload from an abandoned one.
   */
  claim(claims: readonly FileClaim[]): Promise<void>;
  /**
   * After the write: when `committed`, the claimed uploads become stored files (their upload
   * records are dropped) and the bytes of `released` files (removed from their field, or of deleted
   * objects) are deleted; when not, the claims are withdrawn and the uploads stay claimable.
   * Never throws: a failure is logged, and what it left behind is swept later.
   */
  settle(committed: boolean, claims: readonly FileClaim[], released: readonly string[]): Promise<void>;
}
