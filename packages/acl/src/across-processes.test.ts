/**
 * Two TenantAccessControl instances over one store stand for two processes writing one tenant:
 * with `acrossProcesses` holding a shared lease, no derive-then-write of one runs while the other's
 * is under way; without it they interleave (what the lease is for).
 */
import { createInProcessCoordination, holdingLease, UnavailableError } from '@odp/core';
import type { LockService, WriteBatch } from '@odp/core';
import { TenantAccessControl } from './tenant-access-control.js';
import { TENANT, crmObjects } from '../test/crm-fixture.js';
import { CRM, buildModel } from '../test/model-builder.js';
import { MemoryAclStore } from '../test/memory-store.js';

const model = buildModel(CRM);
const pause = () => new Promise((resolve) => setTimeout(resolve, 2));

/** Runs writes through both instances at once; resolves the largest number under way together. */
async function overlapOf(one: TenantAccessControl, two: TenantAccessControl): Promise<number> {
  let running = 0;
  let most = 0;
  const write = async (_complete: WriteBatch) => {
    running += 1;
    most = Math.max(most, running);
    await pause();
    running -= 1;
  };
  await Promise.all(
    Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? one : two).writeWithAccessRows({ put: [] }, write)),
  );
  return most;
}

const leased =
  (locks: LockService) =>
  <T>(work: () => Promise<T>) =>
    holdingLease(
      locks,
      `acl-write:${TENANT}`,
      { ttlMs: 5000, onTimeout: () => new UnavailableError('busy') },
      work,
    );

describe('ACL-affecting writes of one tenant from two processes', () => {
  it('run one at a time when both hold the deployment-wide lease', async () => {
    const store = new MemoryAclStore();
    await store.write({ put: crmObjects(model) });
    const { locks } = createInProcessCoordination();
    const one = new TenantAccessControl(model, TENANT, store, leased(locks));
    const two = new TenantAccessControl(model, TENANT, store, leased(locks));
    expect(await overlapOf(one, two)).toBe(1);
  });

  it('interleave without it (each process only queues its own)', async () => {
    const store = new MemoryAclStore();
    await store.write({ put: crmObjects(model) });
    const one = new TenantAccessControl(model, TENANT, store);
    const two = new TenantAccessControl(model, TENANT, store);
    expect(await overlapOf(one, two)).toBe(2);
  });
});

describe('holdingLease', () => {
  it('waits while another holder keeps the lease, and gives up with the caller’s error', async () => {
    const { locks } = createInProcessCoordination();
    const held = await locks.acquire('busy', 5000);
    expect(held).not.toBeNull();
    await expect(
      holdingLease(
        locks,
        'busy',
        { ttlMs: 5000, waitMs: 50, onTimeout: () => new UnavailableError('waited') },
        async () => 1,
      ),
    ).rejects.toThrow('waited');
    const later = holdingLease(
      locks,
      'busy',
      { ttlMs: 5000, onTimeout: () => new UnavailableError('x') },
      async () => 'ran',
    );
    setTimeout(() => void held!.release(), 20);
    await expect(later).resolves.toBe('ran');
  });

  it('releases the lease when the work fails', async () => {
    const { locks } = createInProcessCoordination();
    const options = { ttlMs: 5000, waitMs: 50, onTimeout: () => new UnavailableError('still held') };
    await expect(holdingLease(locks, 'l', options, () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    await expect(holdingLease(locks, 'l', options, async () => 'free')).resolves.toBe('free');
  });
});

describe('turns of the lease between two processes with writes queued', () => {
  it('alternate: a process with more writes waiting does not keep the lease from the other', async () => {
    const store = new MemoryAclStore();
    await store.write({ put: crmObjects(model) });
    const { locks } = createInProcessCoordination();
    const one = new TenantAccessControl(model, TENANT, store, leased(locks));
    const two = new TenantAccessControl(model, TENANT, store, leased(locks));
    const order: string[] = [];
    const write = (who: string) => async () => {
      order.push(who);
      await pause();
    };
    await Promise.all([
      ...Array.from({ length: 10 }, () => one.writeWithAccessRows({ put: [] }, write('one'))),
      ...Array.from({ length: 10 }, () => two.writeWithAccessRows({ put: [] }, write('two'))),
    ]);
    // Without fair turns the first holder runs its whole queue before the other gets in.
    expect(order.indexOf('two')).toBeLessThan(order.lastIndexOf('one'));
    expect(order.indexOf('one')).toBeLessThan(order.lastIndexOf('two'));
  });
});
