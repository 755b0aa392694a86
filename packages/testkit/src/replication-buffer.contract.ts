/**
 * The ReplicationBuffer contract, backend-neutral: every adapter runs it from its own test file.
 * `open` returns a handle on a fresh, empty buffer per call; two calls with the same `shared` key
 * return two handles on the same buffer (two processes' connections), so appends are checked across
 * handles.
 */
import { randomUUID } from 'node:crypto';
import type { ReplicationBuffer, ReplicationEvent } from '@odp/core';

export function describeReplicationBufferContract(
  name: string,
  open: (shared?: string) => Promise<ReplicationBuffer>,
): void {
  describe(`ReplicationBuffer contract: ${name}`, () => {
    const opened: ReplicationBuffer[] = [];
    const handle = async (shared?: string) => {
      const buffer = await open(shared);
      opened.push(buffer);
      return buffer;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((buffer) => buffer.close()));
    });

    const tenant = randomUUID();
    const event = (id: string, at: string, destination = 'p/d/t'): ReplicationEvent => ({
      id,
      tenantId: tenant,
      destination,
      objectId: `object-${id}`,
      at,
      payload: { trigger: 'UPDATE', id, amount: { value: '12.50', currency: 'EUR' } },
    });

    it('keeps events per destination, oldest first, once per id even after their flush', async () => {
      const buffer = await handle();
      expect(await buffer.append(event('b', '2030-01-01T00:00:02.000Z'))).toBe(true);
      expect(await buffer.append(event('a', '2030-01-01T00:00:01.000Z'))).toBe(true);
      expect(await buffer.append(event('c', '2030-01-01T00:00:01.000Z', 'p/d/other'))).toBe(true);
      expect(await buffer.append(event('a', '2030-01-01T00:00:09.000Z'))).toBe(false);
      const pending = await buffer.pending(tenant, 'p/d/t', 10);
      expect(pending.map((e) => [e.id, e.payload['id']])).toEqual([
        ['a', 'a'],
        ['b', 'b'],
      ]);
      expect(pending[0]).toEqual(event('a', '2030-01-01T00:00:01.000Z'));
      expect(await buffer.pending(tenant, 'p/d/t', 1)).toHaveLength(1);
      await buffer.markFlushed(['a'], new Date('2030-01-01T01:00:00.000Z'));
      expect(await buffer.append(event('a', '2030-01-01T00:00:01.000Z'))).toBe(false);
      expect((await buffer.pending(tenant, 'p/d/t', 10)).map((e) => e.id)).toEqual(['b']);
      expect(await buffer.prune(new Date('2030-01-01T00:59:59.000Z'))).toBe(0);
      expect(await buffer.prune(new Date('2030-01-01T01:00:01.000Z'))).toBe(1);
      expect(await buffer.append(event('a', '2030-01-01T00:00:01.000Z'))).toBe(true);
    });

    it('orders events of the same time by arrival', async () => {
      const buffer = await handle();
      const ids = ['e3', 'e1', 'e2', 'e0'];
      for (const id of ids) await buffer.append(event(id, '2030-01-01T00:00:05.000Z'));
      expect((await buffer.pending(tenant, 'p/d/t', 10)).map((e) => e.id)).toEqual(ids);
    });

    it('forgets every event of a deleted tenant, flushed or not, and no other tenant’s', async () => {
      const buffer = await handle();
      const other = { ...event('x', '2030-01-01T00:00:01.000Z'), tenantId: randomUUID() };
      await buffer.append(event('a', '2030-01-01T00:00:01.000Z'));
      await buffer.append(event('b', '2030-01-01T00:00:02.000Z'));
      await buffer.append(other);
      await buffer.markFlushed(['a'], new Date('2030-01-01T01:00:00.000Z'));
      expect(await buffer.deleteTenant(tenant)).toBe(2);
      expect(await buffer.pending(tenant, 'p/d/t', 10)).toEqual([]);
      // Its ids are forgotten too: the tenant starts again with an empty buffer.
      expect(await buffer.append(event('a', '2030-01-01T00:00:01.000Z'))).toBe(true);
      expect((await buffer.pending(other.tenantId, 'p/d/t', 10)).map((e) => e.id)).toEqual(['x']);
    });

    it('adds an event once when two handles append it at the same time, and both see it', async () => {
      const shared = `shared-${randomUUID()}`;
      const [one, two] = [await handle(shared), await handle(shared)];
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? one : two)!.append(event(`race-${i % 4}`, '2030-01-01T00:00:01.000Z')),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(4);
      expect((await two.pending(tenant, 'p/d/t', 10)).map((e) => e.id).sort()).toEqual([
        'race-0',
        'race-1',
        'race-2',
        'race-3',
      ]);
      await one.markFlushed(['race-0', 'race-1'], new Date('2030-01-01T01:00:00.000Z'));
      expect((await two.pending(tenant, 'p/d/t', 10)).map((e) => e.id).sort()).toEqual(['race-2', 'race-3']);
    });
  });
}
