/**
 * The signed tokens of `/binaries/<token>` URLs: an upload token names the tenant and the file id
 * the upload will get; a download token names the tenant, the object, the file and its recorded
 * metadata (so serving reads no tenant data). Both expire; the HMAC (SHA-256, a key derived from
 * `ODP_SECRET_KEY`) makes them unforgeable, so tenant and file cannot be swapped.
 * Sealed with `seal` of `@odp/core` under the `file-tokens` purpose key.
 */
import { purposeKey, seal, unseal } from '@odp/core';
import type { StoredFile } from '@odp/core';

/** How long an upload or download URL is valid (interface spec, Limits). */
export const TOKEN_TTL_MS = 2 * 60 * 1000;

export interface UploadToken {
  readonly kind: 'upload';
  readonly tenantId: string;
  readonly fileId: string;
  readonly expiresAt: number;
}

export interface DownloadToken {
  readonly kind: 'download';
  readonly tenantId: string;
  readonly objectId: string;
  readonly file: StoredFile;
  readonly expiresAt: number;
}

export type FileToken = UploadToken | DownloadToken;

type Payload =
  | { k: 'u'; t: string; f: string; e: number }
  | { k: 'd'; t: string; o: string; f: string; n: string; c: string; s: number; e: number };

export class FileTokens {
  private readonly key: Buffer;

  constructor(secretKey: string) {
    this.key = purposeKey(secretKey, 'file-tokens');
  }

  sign(token: FileToken): string {
    const payload: Payload =
      token.kind === 'upload'
        ? { k: 'u', t: token.tenantId, f: token.fileId, e: token.expiresAt }
        : {
            k: 'd',
            t: token.tenantId,
            o: token.objectId,
            f: token.file.fileId,
            n: token.file.fileName,
            c: token.file.contentType,
            s: token.file.size,
            e: token.expiresAt,
          };
    return seal(payload, this.key);
  }

  /** The token's content when its signature is valid and it has not expired at `now`; else null. */
  verify(token: string, now: number): FileToken | null {
    const payload = unseal(token, this.key) as Payload | null;
    if (payload === null) return null;
    if (typeof payload.e !== 'number' || payload.e <= now) return null;
    return payload.k === 'u'
      ? { kind: 'upload', tenantId: payload.t, fileId: payload.f, expiresAt: payload.e }
      : {
          kind: 'download',
          tenantId: payload.t,
          objectId: payload.o,
          file: { fileId: payload.f, fileName: payload.n, contentType: payload.c, size: payload.s },
          expiresAt: payload.e,
        };
  }
}
