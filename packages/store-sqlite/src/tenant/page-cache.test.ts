import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAX_MMAP_BYTES, TenantDatabase, pageCacheKib } from './database.js';

/**
 * The page cache of a tenant's connection: small for a file mapped whole and under the gigabyte
 * whose commits walk the whole cache (database.ts), SQLite's pages of a larger or partly mapped
 * file kept in a large one.
 */
describe('page cache of a tenant database', () => {
  const GIB = 1024 ** 3;

  it('is 8 MB for a file under 1 GB mapped whole, 64 MB for a larger one or one mapped in part', () => {
    expect(pageCacheKib(0, MAX_MMAP_BYTES)).toBe(8_192);
    expect(pageCacheKib(GIB - 4096, MAX_MMAP_BYTES)).toBe(8_192);
    expect(pageCacheKib(GIB, MAX_MMAP_BYTES)).toBe(65_536);
    expect(pageCacheKib(1.9 * GIB, MAX_MMAP_BYTES)).toBe(65_536);
    expect(pageCacheKib(10 * 1024 ** 2, 1024 ** 2)).toBe(65_536);
  });

  it('is what a connection opens with, by the file and the map it is given', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'odp-page-cache-'));
    try {
      const file = path.join(dir, 'documents.sqlite');
      const mapped = new TenantDatabase(file);
      expect(mapped.db.pragma('cache_size', { simple: true })).toBe(-8_192);
      await mapped.close();
      const unmapped = new TenantDatabase(file, { mmapBytes: 0 });
      expect(unmapped.db.pragma('cache_size', { simple: true })).toBe(-65_536);
      await unmapped.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
