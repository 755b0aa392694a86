/**
 * The BlobStore on the local filesystem: blob `a/b/c` is the file `<root>/a/b/c`. A put streams to
 * a temporary file in `<root>/.tmp` (same filesystem) and renames it into place only once the body
 * ended, so a reader never sees a partial blob and a failed upload leaves nothing. Keys are checked
 * by `assertBlobKey` before any path is built, so no key reaches outside the root. Temporary files
 * a stopped process left behind are removed when the store is next opened (after a day, so that
 * another process's upload in flight is never touched).
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertBlobKey } from '@odp/core';
import type { BlobInfo, BlobStore, ByteRange } from '@odp/core';

const TEMP_DIR = '.tmp';

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Temporary files older than this were left by a process that stopped mid-upload. */
const STALE_TEMPORARY_MS = 24 * 60 * 60 * 1000;

async function removeStaleTemporaries(temp: string): Promise<void> {
  for (const name of await readdir(temp)) {
    const file = path.join(temp, name);
    const info = await stat(file).catch(() => null);
    if (info && Date.now() - info.mtimeMs > STALE_TEMPORARY_MS) await rm(file, { force: true });
  }
}

/** A BlobStore rooted at `root` (created when missing); the embedded default is `<dataDir>/blobs`. */
export async function openFsBlobStore(root: string): Promise<BlobStore> {
  const base = path.resolve(root);
  const temp = path.join(base, TEMP_DIR);
  await mkdir(temp, { recursive: true });
  await removeStaleTemporaries(temp);
  const fileOf = (key: string): string => {
    assertBlobKey(key);
    return path.join(base, ...key.split('/'));
  };

  return {
    async put(key: string, body: Readable) {
      const file = fileOf(key);
      const partial = path.join(temp, randomUUID());
      let size = 0;
      body.on('data', (chunk: Uint8Array) => {
        size += chunk.length;
      });
      try {
        await pipeline(body, createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
        await mkdir(path.dirname(file), { recursive: true });
        await rename(partial, file);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
      return { size };
    },

    async get(key: string, range?: ByteRange) {
      const file = fileOf(key);
      try {
        const handle = await open(file, 'r');
        return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async stat(key: string): Promise<BlobInfo | null> {
      try {
        const info = await stat(fileOf(key));
        return info.isFile() ? { key, size: info.size, modifiedAt: info.mtime } : null;
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async delete(key: string) {
      try {
        await unlink(fileOf(key));
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    },

    async *list(prefix: string): AsyncIterable<BlobInfo> {
      const cut = prefix.lastIndexOf('/');
      const directory = prefix.slice(0, cut + 1);
      if (directory !== '') assertBlobKey(directory.slice(0, -1));
      const pending = [directory];
      for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
        let entries;
        try {
          entries = await readdir(path.join(base, ...dir.split('/')), { withFileTypes: true });
        } catch (error) {
          if (isMissing(error)) continue;
          throw error;
        }
        for (const entry of entries) {
          const key = `${dir}${entry.name}`;
          if (key === TEMP_DIR || !(key.startsWith(prefix) || prefix.startsWith(`${key}/`))) continue;
          if (entry.isDirectory()) pending.push(`${key}/`);
          else if (entry.isFile()) {
            const info = await stat(path.join(base, ...key.split('/'))).catch(() => null);
            if (info) yield { key, size: info.size, modifiedAt: info.mtime };
          }
        }
      }
    },

    async close() {},
  };
}
