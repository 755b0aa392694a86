/**
 * The BlobStore on S3-compatible object storage through the `minio` client (AWS S3, MinIO). Blob
 * `a/b/c` is object `a/b/c` of the configured bucket (created on open when missing).
 *
 * Streaming: a body that ends within its first {@link PART_SIZE} bytes goes up in one PUT; a longer
 * one as a multipart upload in parts of that size, so one upload holds about one part in memory,
 * never the whole file.
 * A body that fails midway would make the client wait forever for the rest, so the adapter ends
 * the client's input early, lets the truncated upload finish and removes it before rejecting: the
 * key is never referenced before `put` resolves, so nothing is left and nothing partial is used.
 */
import { PassThrough, Readable } from 'node:stream';
import { Client } from 'minio';
import { assertBlobKey } from '@odp/core';
import type { BlobInfo, BlobStore, ByteRange } from '@odp/core';

/** Bytes per multipart part (the S3 minimum is 5 MiB; 10,000 parts make 80 GiB the largest blob). */
export const PART_SIZE = 8 * 1024 * 1024;

export interface S3BlobStoreOptions {
  /** `http(s)://host:port` of the service; null for AWS S3's default endpoint. */
  readonly endpoint: string | null;
  readonly bucket: string;
  readonly accessKey: string | null;
  readonly secretKey: string | null;
  readonly region: string;
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'NotFound' || code === 'NoSuchKey';
}

function clientOf(options: S3BlobStoreOptions): Client {
  const url = new URL(options.endpoint ?? 'https://s3.amazonaws.com');
  const useSSL = url.protocol === 'https:';
  return new Client({
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey: options.accessKey ?? '',
    secretKey: options.secretKey ?? '',
    region: options.region,
    pathStyle: options.endpoint !== null,
    partSize: PART_SIZE,
  });
}

/** Opens the store on `options.bucket`, creating the bucket when it does not exist. */
export async function openS3BlobStore(options: S3BlobStoreOptions): Promise<BlobStore> {
  const client = clientOf(options);
  const bucket = options.bucket;
  if (!(await client.bucketExists(bucket))) {
    try {
      await client.makeBucket(bucket, options.region);
    } catch (error) {
      // Another process created it meanwhile.
      if (!(await client.bucketExists(bucket))) throw error;
    }
  }

  return {
    async put(key: string, body: Readable) {
      assertBlobKey(key);
      const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
      const head: Uint8Array[] = [];
      let size = 0;
      for (;;) {
        if (size >= PART_SIZE) break;
        const next = await chunks.next();
        if (next.done) {
          await client.putObject(bucket, key, Buffer.concat(head));
          return { size };
        }
        head.push(next.value);
        size += next.value.length;
      }
      const rest = Readable.from(
        (async function* () {
          yield* head;
          for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
            size += next.value.length;
            yield next.value;
          }
        })(),
      );
      const input = new PassThrough();
      let failure: unknown = null;
      rest.once('error', (error) => {
        failure = error;
        rest.unpipe(input);
        input.end();
      });
      rest.pipe(input);
      try {
        await client.putObject(bucket, key, input);
      } catch (error) {
        rest.destroy();
        failure ??= error;
      }
      if (failure !== null) {
        await client.removeObject(bucket, key).catch(() => undefined);
        await client.removeIncompleteUpload(bucket, key).catch(() => undefined);
        throw failure;
      }
      return { size };
    },

    async get(key: string, range?: ByteRange) {
      assertBlobKey(key);
      try {
        return range
          ? await client.getPartialObject(bucket, key, range.start, range.end - range.start + 1)
          : await client.getObject(bucket, key);
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async stat(key: string): Promise<BlobInfo | null> {
      assertBlobKey(key);
      try {
        const info = await client.statObject(bucket, key);
        return { key, size: info.size, modifiedAt: info.lastModified };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async delete(key: string) {
      assertBlobKey(key);
      await client.removeObject(bucket, key);
    },

    async *list(prefix: string): AsyncIterable<BlobInfo> {
      const cut = prefix.lastIndexOf('/');
      if (cut > 0) assertBlobKey(prefix.slice(0, cut));
      const stream = client.listObjectsV2(bucket, prefix, true);
      for await (const item of stream as AsyncIterable<{ name?: string; size: number; lastModified: Date }>) {
        if (item.name !== undefined) yield { key: item.name, size: item.size, modifiedAt: item.lastModified };
      }
    },

    async close() {},
  };
}
