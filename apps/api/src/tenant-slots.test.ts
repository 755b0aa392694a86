import { RateLimitedError } from '@odp/core';
import { TenantSlots } from './tenant-slots.js';

/** A promise with its resolve, to hold a slot until the test lets go. */
function held(): { promise: Promise<void>; release: () => void } {
  let release = () => {};
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

describe('TenantSlots', () => {
  it('runs up to the limit per tenant, refuses one more with RateLimitedError, and frees slots as work ends', async () => {
    const slots = new TenantSlots(2, 'report renderings', 2);
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
    const slots = new TenantSlots(1, 'report renderings', 2);
    await expect(slots.run('a', () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    await expect(slots.run('a', async () => 'ran')).resolves.toBe('ran');
  });
});
