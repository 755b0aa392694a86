/**
 * The files of FILE and IMAGE fields (interface spec, Files; docs/files.md), over any BlobStore:
 *
 * - `requestUpload` signs an upload URL; `receive` streams the multipart part `file` of
 *   `POST /binaries/<token>` to the blob store and records the upload with the metadata the server
 *   determined. A token works once; an upload over the size limit is refused and leaves nothing.
 * - `claimsFor(tenant)` is the object service's view of the tenant's uploads (`UploadClaims`).
 * - `downloadUrl` signs a download URL; `open` serves the bytes of one, whole or a range.
 * - `sweep` deletes the uploads nobody claimed within the configured time.
 *
 * Blob keys, from server-made ids only: `files/<tenant>/<fileId>` holds the bytes,
 * `uploads/<tenant>/<fileId>` the upload record while the upload is unclaimed. Every key names the
 * tenant, and every token is checked against the tenant it was signed for.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream';
import busboy from 'busboy';
import { AppError, NotFoundError, ValidationError } from '@odp/core';
import type { BlobStore, ByteRange, FileClaim, StoredFile, UploadClaims } from '@odp/core';
import { parseRange } from './byte-range.js';
import { SNIFF_BYTES, detectContentType, sanitizeFileName } from './content-type.js';
import { FileTokens, TOKEN_TTL_MS } from './tokens.js';
import {
  GENERATED_PREFIX,
  UPLOADS_PREFIX,
  fileKey,
  generatedKey,
  readRecord,
  recordKey,
  writeRecord,
} from './upload-records.js';

/** The answer of `POST /binaries/<token>` (one element of its array). */
export interface UploadDescriptor {
  readonly href: string;
  readonly fileName: string;
  readonly contentType: string;
  readonly size: number;
}

export interface FileServiceOptions {
  readonly blobs: BlobStore;
  /** Key material of the URL signatures (`ODP_SECRET_KEY`). */
  readonly secretKey: string;
  /** Public base address; signed URLs are `{baseUrl}/binaries/<token>`. */
  readonly baseUrl: string;
  /** Largest accepted upload in bytes; larger ones answer 413 and leave nothing. */
  readonly maxUploadBytes: number;
  /** Age after which an unclaimed upload is deleted by `sweep`. */
  readonly unclaimedUploadTtlMs: number;
  /** Age after which a generated file (an export) is deleted by `sweep`; 1 hour when absent. */
  readonly generatedFileTtlMs?: number;
  readonly now?: () => number;
  /** Failures of best-effort cleanup (after a committed write); never shown to clients. */
  readonly onError?: (message: string, error: unknown) => void;
  /**
   * Whether the tenant still exists (the platform registry). An upload URL of a deleted tenant
   * stores nothing: refused before its bytes are read, and its bytes dropped when the tenant was
   * deleted while they arrived. Absent, every tenant counts as existing.
   */
  readonly tenantExists?: (tenantId: string) => Promise<boolean>;
}

/** A file ready to be served: headers are the caller's (see `servedHeaders`). */
export interface OpenedFile {
  readonly file: StoredFile;
  /** The range served, or null for the whole file. */
  readonly range: ByteRange | null;
  readonly body: Readable;
}

/** Bytes a multipart body may carry beyond its file (boundaries, part headers, small fields). */
const MULTIPART_ALLOWANCE = 64 * 1024;

/** One message for every unknown, expired, used or foreign token. */
const NO_SUCH_LINK = 'This link does not exist or has expired.';

export class RangeNotSatisfiableError extends AppError {
  constructor(readonly size: number) {
    super('RANGE_NOT_SATISFIABLE', 'The requested range is not inside the file.');
  }
}

const GENERATED_TTL_MS = 60 * 60 * 1000;

/** The 400 of a claim of an upload another write is storing (`is being stored`) or stored. */
function uploadTaken(how: string): ValidationError {
  return new ValidationError(`An upload ${how} by another request.`, [
    { field: 'file', message: `${how} by another request` },
  ]);
}

export class FileService {
  private readonly tokens: FileTokens;
  private readonly now: () => number;
  /** Upload tokens used in this process, with their expiry (a token is single-use). */
  private readonly usedTokens = new Map<string, number>();
  /** `<tenant>/<fileId>` of uploads a write is claiming right now. */
  private readonly claiming = new Set<string>();

  constructor(private readonly options: FileServiceOptions) {
    this.tokens = new FileTokens(options.secretKey);
    this.now = options.now ?? Date.now;
  }

  private get blobs(): BlobStore {
    return this.options.blobs;
  }

  private url(token: string): string {
    return `${this.options.baseUrl}/binaries/${token}`;
  }

  /** A signed upload URL for the tenant, valid for 2 minutes and one upload. */
  requestUpload(tenantId: string): string {
    return this.url(
      this.tokens.sign({
        kind: 'upload',
        tenantId,
        fileId: randomUUID(),
        expiresAt: this.now() + TOKEN_TTL_MS,
      }),
    );
  }

  /** A signed download URL of a file the caller was allowed to read, valid for 2 minutes. */
  downloadUrl(tenantId: string, objectId: string, file: StoredFile): string {
    return this.url(
      this.tokens.sign({ kind: 'download', tenantId, objectId, file, expiresAt: this.now() + TOKEN_TTL_MS }),
    );
  }

  /**
   * Stores a file the platform generated for the tenant (an export) from `body`, streamed, and
   * marks it generated: it belongs to no object and `sweep` deletes it after `generatedFileTtlMs`.
   * Its bytes are only reachable through {@link generatedUrl}.
   */
  async storeGenerated(
    tenantId: string,
    meta: { fileName: string; contentType: string },
    body: Readable,
  ): Promise<StoredFile> {
    const fileId = randomUUID();
    await this.blobs.put(generatedKey(tenantId, fileId), Readable.from([Buffer.from('{}')]));
    try {
      const info = await this.blobs.put(fileKey(tenantId, fileId), body);
      return {
        fileId,
        fileName: sanitizeFileName(meta.fileName),
        contentType: meta.contentType,
        size: info.size,
      };
    } catch (error) {
      await this.blobs.delete(fileKey(tenantId, fileId)).catch(() => undefined);
      await this.blobs.delete(generatedKey(tenantId, fileId)).catch(() => undefined);
      throw error;
    }
  }

  /** A signed download URL of a generated file (2 minutes), served like any file download. */
  generatedUrl(tenantId: string, file: StoredFile): string {
    return this.url(
      this.tokens.sign({
        kind: 'download',
        tenantId,
        objectId: file.fileId,
        file,
        expiresAt: this.now() + TOKEN_TTL_MS,
      }),
    );
  }

  /**
   * The bytes of an unclaimed upload of the tenant named by its descriptor, unchanged (as a create
   * would claim it: `href`, `fileName`, `contentType` and `size` equal the record); the upload stays
   * unclaimed. ValidationError naming `field` for anything else.
   */
  async readUpload(
    tenantId: string,
    descriptor: unknown,
    field: string,
  ): Promise<{ file: StoredFile; body: Readable }> {
    const refused = () =>
      new ValidationError(`${field} must be the descriptor of an upload, unchanged.`, [
        {
          field,
          message:
            'must be an upload descriptor {href, fileName, contentType, size} as the upload returned it',
        },
      ]);
    if (typeof descriptor !== 'object' || descriptor === null) throw refused();
    const { href, fileName, contentType, size } = descriptor as Record<string, unknown>;
    const fileId =
      typeof href === 'string' ? /^\/binaries\/([0-9a-f-]{36})$/i.exec(href)?.[1]?.toLowerCase() : undefined;
    const file = fileId ? await this.claimsFor(tenantId).upload(fileId) : null;
    if (!file || file.fileName !== fileName || file.contentType !== contentType || file.size !== size)
      throw refused();
    const body = await this.blobs.get(fileKey(tenantId, file.fileId));
    if (body === null) throw refused();
    return { file, body };
  }

  /**
   * Deletes every file of the tenant (held, unclaimed and generated) with its records; resolves
   * how many blobs were deleted. Tenant deletion: tokens signed earlier then find nothing (404).
   */
  async deleteTenantFiles(tenantId: string): Promise<number> {
    let deleted = 0;
    for (const prefix of [`uploads/${tenantId}/`, `files/${tenantId}/`, `generated/${tenantId}/`]) {
      const keys: string[] = [];
      for await (const info of this.blobs.list(prefix)) keys.push(info.key);
      for (const key of keys) await this.blobs.delete(key);
      deleted += keys.length;
    }
    return deleted;
  }

  /**
   * `POST /binaries/<token>`: streams the part `file` of the multipart body to the blob store and
   * records the upload. NotFoundError for an unknown, expired or used token; ValidationError for a
   * body that is not multipart/form-data with a part `file`; PAYLOAD_TOO_LARGE past the limit.
   * On every failure nothing is left behind, and the token stays used.
   */
  async receive(token: string, headers: IncomingHttpHeaders, body: Readable): Promise<UploadDescriptor> {
    // A body that fails before the part is read is seen through `destroyed` (storePart).
    body.on('error', () => undefined);
    const now = this.now();
    const parsed = this.tokens.verify(token, now);
    if (parsed?.kind !== 'upload') throw new NotFoundError(NO_SUCH_LINK);
    const { tenantId, fileId } = parsed;
    this.forgetExpiredTokens(now);
    // Marked used before anything is awaited, so two concurrent requests cannot both pass.
    if (this.usedTokens.has(fileId)) throw new NotFoundError(NO_SUCH_LINK);
    this.usedTokens.set(fileId, parsed.expiresAt);
    if (
      !(await this.tenantExists(tenantId)) ||
      (await this.blobs.stat(recordKey(tenantId, fileId))) !== null ||
      (await this.blobs.stat(fileKey(tenantId, fileId))) !== null
    ) {
      throw new NotFoundError(NO_SUCH_LINK);
    }
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > this.options.maxUploadBytes + MULTIPART_ALLOWANCE)
      throw this.tooLarge();
    await writeRecord(this.blobs, tenantId, fileId, { state: 'receiving' });
    try {
      const { fileName, size, head } = await this.storePart(headers, body, fileKey(tenantId, fileId));
      const contentType = detectContentType(head, fileName);
      await writeRecord(this.blobs, tenantId, fileId, { state: 'ready', fileName, contentType, size });
      // Checked after the last write: a deletion that began earlier is seen here (and this upload's
      // blobs dropped below); one that begins later lists and deletes them itself.
      if (!(await this.tenantExists(tenantId))) throw new NotFoundError(NO_SUCH_LINK);
      return { href: `/binaries/${fileId}`, fileName, contentType, size };
    } catch (error) {
      await this.blobs.delete(fileKey(tenantId, fileId)).catch(() => undefined);
      await this.blobs.delete(recordKey(tenantId, fileId)).catch(() => undefined);
      throw error;
    }
  }

  private async tenantExists(tenantId: string): Promise<boolean> {
    return (await this.options.tenantExists?.(tenantId)) ?? true;
  }

  private tooLarge(): AppError {
    return new AppError(
      'PAYLOAD_TOO_LARGE',
      `The file is larger than the limit of ${this.options.maxUploadBytes} bytes.`,
    );
  }

  private forgetExpiredTokens(now: number): void {
    for (const [fileId, expiresAt] of this.usedTokens) if (expiresAt <= now) this.usedTokens.delete(fileId);
  }

  /**
   * Parses the multipart body as it arrives (busboy) and pipes the part `file` into the blob store
   * through a counter that keeps the first bytes for content detection and fails past the limit.
   */
  private storePart(
    headers: IncomingHttpHeaders,
    body: Readable,
    key: string,
  ): Promise<{ fileName: string; size: number; head: Buffer }> {
    const max = this.options.maxUploadBytes;
    const tooLarge = this.tooLarge();
    return new Promise((resolve, reject) => {
      const notMultipart = () =>
        new ValidationError('The body must be multipart/form-data with one part named file.');
      let parser: busboy.Busboy;
      try {
        parser = busboy({
          headers,
          defParamCharset: 'utf8',
          limits: { files: 1, fields: 20, parts: 40, fieldSize: 64 * 1024 },
        });
      } catch {
        reject(notMultipart());
        return;
      }
      let part: Readable | null = null;
      let stored: Promise<void> | null = null;
      let failed = false;
      /** Rejects once the blob store gave up the part (so no write lands after the cleanup). */
      const fail = (error: unknown) => {
        if (failed) return;
        failed = true;
        body.unpipe(parser);
        part?.destroy(error instanceof Error ? error : new Error(String(error)));
        void (stored ?? Promise.resolve()).catch(() => undefined).then(() => reject(error));
      };
      let size = 0;
      let head = Buffer.alloc(0);
      let fileName = '';
      parser.on('file', (name, stream, info) => {
        if (name !== 'file' || part !== null) {
          stream.resume();
          return;
        }
        part = stream;
        fileName = sanitizeFileName(info.filename);
        const counter = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            size += chunk.length;
            if (size > max) return done(tooLarge);
            if (head.length < SNIFF_BYTES)
              head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)]);
            done(null, chunk);
          },
        });
        stored = this.blobs
          .put(
            key,
            pipeline(stream, counter, () => undefined),
          )
          .then(() => undefined);
        stored.catch(fail);
      });
      parser.on('error', () => fail(new ValidationError('The multipart body is malformed or was cut off.')));
      parser.on('close', () => {
        if (stored === null) fail(notMultipart());
        else stored.then(() => resolve({ fileName, size, head }), fail);
      });
      const cutOff = () => fail(new ValidationError('The upload was cut off.'));
      let ended = false;
      body.once('end', () => {
        ended = true;
      });
      body.once('error', cutOff);
      body.once('close', () => {
        if (!ended) cutOff();
      });
      if (body.destroyed) {
        cutOff();
        return;
      }
      body.pipe(parser);
    });
  }

  /** The object service's view of one tenant's uploads. */
  claimsFor(tenantId: string): UploadClaims {
    const claimKey = (fileId: string) => `${tenantId}/${fileId}`;
    return {
      upload: async (fileId) => {
        if (this.claiming.has(claimKey(fileId))) return null;
        const record = await readRecord(this.blobs, tenantId, fileId);
        if (record?.state !== 'ready' || record.fileName === undefined) return null;
        return {
          fileId,
          fileName: record.fileName,
          contentType: record.contentType ?? 'application/octet-stream',
          size: record.size ?? 0,
        };
      },
      claim: async (claims: readonly FileClaim[]) => {
        const taken = claims.filter((claim) => this.claiming.has(claimKey(claim.fileId)));
        if (taken.length > 0) throw uploadTaken('is being stored');
        for (const claim of claims) this.claiming.add(claimKey(claim.fileId));
        try {
          for (const { objectId, fileId } of claims) {
            // A write that found the upload claimable may come here after another write claimed
            // it and committed: its record is gone, and the upload is that write's.
            const record = await readRecord(this.blobs, tenantId, fileId);
            if (record === null) throw uploadTaken('was stored');
            await writeRecord(this.blobs, tenantId, fileId, { ...record, holder: objectId });
          }
        } catch (error) {
          for (const claim of claims) this.claiming.delete(claimKey(claim.fileId));
          throw error;
        }
      },
      settle: async (committed, claims, released) => {
        try {
          if (committed) {
            for (const { fileId } of claims) await this.blobs.delete(recordKey(tenantId, fileId));
            for (const fileId of released) await this.blobs.delete(fileKey(tenantId, fileId));
          }
        } catch (error) {
          this.options.onError?.('file cleanup after a write failed', error);
        } finally {
          for (const claim of claims) this.claiming.delete(claimKey(claim.fileId));
        }
      },
    };
  }

  /**
   * `GET /binaries/<token>` with a download token: the file's bytes, or the inclusive range of a
   * single-range `Range` header (other forms are ignored and the whole file is served, as RFC 9110
   * allows). NotFoundError for anything but a valid download token of a file whose bytes exist;
   * RangeNotSatisfiableError for a range outside the file.
   */
  async open(token: string, rangeHeader: string | undefined): Promise<OpenedFile> {
    const parsed = this.tokens.verify(token, this.now());
    if (parsed?.kind !== 'download') throw new NotFoundError(NO_SUCH_LINK);
    const { file, tenantId } = parsed;
    const range = parseRange(rangeHeader, file.size);
    const body = await this.blobs.get(
      fileKey(tenantId, file.fileId),
      range && range.end >= range.start ? range : undefined,
    );
    if (body === null) throw new NotFoundError(NO_SUCH_LINK);
    if (range && range.end < range.start) {
      body.destroy();
      throw new RangeNotSatisfiableError(file.size);
    }
    return { file, range, body };
  }

  /**
   * Deletes uploads left unclaimed longer than the configured time: their bytes and record. A
   * record naming a holder that does hold the file (a write committed but its settle was lost) is
   * only dropped. `holds` answers from the tenant's store. Returns how many uploads were deleted.
   */
  async sweep(
    holds: (tenantId: string, objectId: string, fileId: string) => Promise<boolean>,
  ): Promise<number> {
    const cutoff = this.now() - this.options.unclaimedUploadTtlMs;
    const expired: { tenantId: string; fileId: string }[] = [];
    for await (const info of this.blobs.list(UPLOADS_PREFIX)) {
      const [, tenantId, fileId] = info.key.split('/');
      if (tenantId && fileId && info.modifiedAt.getTime() < cutoff) expired.push({ tenantId, fileId });
    }
    let deleted = await this.sweepGenerated();
    for (const { tenantId, fileId } of expired) {
      if (this.claiming.has(`${tenantId}/${fileId}`)) continue;
      const record = await readRecord(this.blobs, tenantId, fileId);
      if (!record?.holder || !(await holds(tenantId, record.holder, fileId))) {
        await this.blobs.delete(fileKey(tenantId, fileId));
        deleted += 1;
      }
      await this.blobs.delete(recordKey(tenantId, fileId));
    }
    return deleted;
  }

  /** Deletes generated files older than their time to live, bytes and mark; returns how many. */
  private async sweepGenerated(): Promise<number> {
    const cutoff = this.now() - (this.options.generatedFileTtlMs ?? GENERATED_TTL_MS);
    const expired: { tenantId: string; fileId: string }[] = [];
    for await (const info of this.blobs.list(GENERATED_PREFIX)) {
      const [, tenantId, fileId] = info.key.split('/');
      if (tenantId && fileId && info.modifiedAt.getTime() < cutoff) expired.push({ tenantId, fileId });
    }
    for (const { tenantId, fileId } of expired) {
      await this.blobs.delete(fileKey(tenantId, fileId));
      await this.blobs.delete(generatedKey(tenantId, fileId));
    }
    return expired.length;
  }
}
