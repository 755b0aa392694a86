import { RateLimitedError, TenantShareError, createInProcessCoordination } from '@odp/core';
import { TenantSlots } from './tenant-slots.js';

/** A promise with its resolve, to hold a slot until the test lets go. */
function held(): { promise: Promise<void>; release: () => void } {
  let release = () => {};
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

/** The leases of one process alone. */
function leasesOf(name: string) {
  return { locks: createInProcessCoordination().locks, name };
}

describe('TenantSlots', () => {
  it('runs up to the limit per tenant, refuses one more with RateLimitedError, and frees slots as work ends', async () => {
    const slots = new TenantSlots(2, 'report renderings', 2, leasesOf('report-renderings'));
    const first = held();
    const second = held();
    const running = [slots.run('a', () => first.promise), slots.run('a', () => second.promise)];
    const refused = await slots.run('a', async () => 'ran').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAfterSeconds).toBe(2);
    expect((refused as RateLimitedError).message).toContain('2 report renderings');
    // Another tenant is not affected.
    await expect(slots.run('b', async () => 'ran')).resolves.toBe('ran');
    first.release();
    await running[0];
    await expect(slots.run('a', async () => 'ran')).resolves.toBe('ran');
    second.release();
    await running[1];
  });

  it('frees the slot of work that failed', async () => {
    const slots = new TenantSlots(1, 'report renderings', 2, leasesOf('report-renderings'));
    await expect(slots.run('a', () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    await expect(slots.run('a', async () => 'ran')).resolves.toBe('ran');
  });

  it('holds the cap across the processes that share its leases', async () => {
    // Two processes' slots over one set of leases (the primary's, or Redis', in a deployment).
    const { locks } = createInProcessCoordination();
    const shared = { locks, name: 'report-renderings' };
    const here = new TenantSlots(2, 'report renderings', 2, shared);
    const there = new TenantSlots(2, 'report renderings', 2, shared);
    const first = held();
    const second = held();
    const running = [here.run('a', () => first.promise), there.run('a', () => second.promise)];
    await new Promise((resolve) => setImmediate(resolve));
    await expect(here.run('a', async () => 'ran')).rejects.toBeInstanceOf(RateLimitedError);
    await expect(there.run('a', async () => 'ran')).rejects.toBeInstanceOf(RateLimitedError);
    await expect(there.run('b', async () => 'ran')).resolves.toBe('ran');
    first.release();
    await running[0];
    await expect(there.run('a', async () => 'ran')).resolves.toBe('ran');
    second.release();
    await running[1];
    // A failed work's lease is released too.
    await expect(here.run('a', () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    const both = [held(), held()];
    const again = both.map((hold) => here.run('a', () => hold.promise));
    await new Promise((resolve) => setImmediate(resolve));
    await expect(there.run('a', async () => 'ran')).rejects.toBeInstanceOf(RateLimitedError);
    both.forEach((hold) => hold.release());
    await Promise.all(again);
  });

  it('claims a slot for work that outlives the call, freed once by its release, across processes', async () => {
    const { locks } = createInProcessCoordination();
    const shared = { locks, name: 'imports' };
    const here = new TenantSlots(1, 'imports', 5, shared);
    const there = new TenantSlots(1, 'imports', 5, shared);
    const release = await here.claim('a');
    const refused = await there.claim('a').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TenantShareError);
    expect((refused as TenantShareError).message).toContain('1 imports under way');
    await expect(here.claim('a')).rejects.toBeInstanceOf(TenantShareError);
    await release();
    // A second call of the release frees nothing more.
    const next = await there.claim('a');
    await release();
    await expect(here.claim('a')).rejects.toBeInstanceOf(TenantShareError);
    await next();
    await (
      await here.claim('a')
    )();
  });
});
