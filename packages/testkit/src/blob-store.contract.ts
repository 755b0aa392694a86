/**
 * The BlobStore contract, backend-neutral. `open` returns a store; every test writes under its own
 * random prefix, so a shared bucket or directory between runs is fine.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { BlobStore } from '@odp/core';

async function bytesOf(stream: Readable | null): Promise<Buffer> {
  if (stream === null) throw new Error('expected a blob, got null');
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** `total` bytes in chunks of `chunk`, generated as read (never held whole), then optionally a failure. */
function generated(total: number, chunk: number, failAfter?: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (failAfter !== undefined && sent >= failAfter) {
        this.destroy(new Error('client aborted'));
        return;
      }
      if (sent >= total) {
        this.push(null);
        return;
      }
      const size = Math.min(chunk, total - sent);
      sent += size;
      this.push(Buffer.alloc(size, sent % 251));
    },
  });
}

export function describeBlobStoreContract(name: string, open: () => Promise<BlobStore>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let store: BlobStore;
    let prefix: string;

    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store.close();
    });
    beforeEach(() => {
      prefix = `contract/${randomUUID()}`;
    });

    it('streams bytes in and out unchanged and reports their size', async () => {
      const bytes = randomBytes(70_000);
      await expect(
        store.put(`${prefix}/a`, Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)])),
      ).resolves.toEqual({
        size: 70_000,
      });
      expect((await bytesOf(await store.get(`${prefix}/a`))).equals(bytes)).toBe(true);
      const info = await store.stat(`${prefix}/a`);
      expect(info).toMatchObject({ key: `${prefix}/a`, size: 70_000 });
      expect(Math.abs((info?.modifiedAt.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);
    });

    it('stores an empty blob', async () => {
      await expect(store.put(`${prefix}/empty`, Readable.from([]))).resolves.toEqual({ size: 0 });
      expect((await bytesOf(await store.get(`${prefix}/empty`))).length).toBe(0);
      expect(await store.stat(`${prefix}/empty`)).toMatchObject({ size: 0 });
    });

    it('replaces a blob written again', async () => {
      await store.put(`${prefix}/r`, Readable.from([Buffer.from('first version')]));
      await store.put(`${prefix}/r`, Readable.from([Buffer.from('second')]));
      expect((await bytesOf(await store.get(`${prefix}/r`))).toString()).toBe('second');
      expect(await store.stat(`${prefix}/r`)).toMatchObject({ size: 6 });
    });

    it('serves an inclusive byte range', async () => {
      await store.put(`${prefix}/range`, Readable.from([Buffer.from('0123456789')]));
      expect((await bytesOf(await store.get(`${prefix}/range`, { start: 2, end: 5 }))).toString()).toBe(
        '2345',
      );
      expect((await bytesOf(await store.get(`${prefix}/range`, { start: 9, end: 9 }))).toString()).toBe('9');
      expect((await bytesOf(await store.get(`${prefix}/range`, { start: 0, end: 0 }))).toString()).toBe('0');
    });

    it('answers null for an absent blob and deletes idempotently', async () => {
      expect(await store.get(`${prefix}/missing`)).toBeNull();
      expect(await store.stat(`${prefix}/missing`)).toBeNull();
      await store.put(`${prefix}/d`, Readable.from([Buffer.from('x')]));
      await store.delete(`${prefix}/d`);
      await store.delete(`${prefix}/d`);
      expect(await store.stat(`${prefix}/d`)).toBeNull();
      expect(await store.get(`${prefix}/d`)).toBeNull();
    });

    it('leaves nothing behind when the body fails midway', async () => {
      await expect(store.put(`${prefix}/failed`, generated(3_000_000, 64 * 1024, 1_000_000))).rejects.toThrow(
        'client aborted',
      );
      expect(await store.stat(`${prefix}/failed`)).toBeNull();
      const left: string[] = [];
      for await (const info of store.list(prefix)) left.push(info.key);
      expect(left).toEqual([]);
    });

    it('streams a body larger than any one buffer (12 MB)', async () => {
      const total = 12 * 1024 * 1024 + 17;
      await expect(store.put(`${prefix}/big`, generated(total, 256 * 1024))).resolves.toEqual({
        size: total,
      });
      expect(await store.stat(`${prefix}/big`)).toMatchObject({ size: total });
      let read = 0;
      for await (const chunk of (await store.get(`${prefix}/big`))!) read += (chunk as Uint8Array).length;
      expect(read).toBe(total);
    });

    it('lists by prefix, and only that prefix', async () => {
      for (const key of ['x/1', 'x/2', 'xy/3', 'y/4']) {
        await store.put(`${prefix}/${key}`, Readable.from([Buffer.from(key)]));
      }
      const keys: string[] = [];
      for await (const info of store.list(`${prefix}/x/`)) keys.push(info.key);
      expect(keys.sort()).toEqual([`${prefix}/x/1`, `${prefix}/x/2`]);
      const all: { key: string; size: number }[] = [];
      for await (const info of store.list(`${prefix}/`)) all.push({ key: info.key, size: info.size });
      expect(all.sort((a, b) => a.key.localeCompare(b.key))).toEqual([
        { key: `${prefix}/x/1`, size: 3 },
        { key: `${prefix}/x/2`, size: 3 },
        { key: `${prefix}/xy/3`, size: 4 },
        { key: `${prefix}/y/4`, size: 3 },
      ]);
    });

    it.each([
      '../escape',
      'a/../../b',
      '/absolute',
      'a//b',
      'a/',
      'a\\b',
      'a/./b',
      '',
      'spa ce',
      'nul\u0000',
    ])('refuses the key %j', async (key) => {
      await expect(store.put(key, Readable.from([Buffer.from('x')]))).rejects.toThrow('Not a valid blob key');
      await expect(store.get(key)).rejects.toThrow('Not a valid blob key');
      await expect(store.stat(key)).rejects.toThrow('Not a valid blob key');
      await expect(store.delete(key)).rejects.toThrow('Not a valid blob key');
    });
  });
}
