/**
 * The contract of the coordination ports (ChangeFanout, InvalidationChannel, LockService), run by
 * every adapter. `open` connects one api instance to the shared medium; each test opens two (`a`
 * and `b`) and closes both. An in-process adapter may answer the same object twice: its two
 * "instances" are one process. Names are unique per test, so a shared engine needs no cleanup.
 */
import { randomUUID } from 'node:crypto';
import type { Coordination, Invalidation } from '@odp/core';
import { keepRenewed } from '@odp/core';
import { perCase } from './per-case.js';

export interface CoordinationContractTarget {
  /** Connects one instance to the shared medium. */
  open(): Promise<Coordination>;
}

const DELIVERY_TIMEOUT_MS = 2000;

/**
 * Waits until `values` (or what `values()` answers) has at least `count` entries, and answers them:
 * announcements between processes arrive asynchronously.
 */
async function arrived<T>(values: readonly T[] | (() => readonly T[]), count: number): Promise<readonly T[]> {
  const read = typeof values === 'function' ? values : () => values;
  const deadline = Date.now() + DELIVERY_TIMEOUT_MS;
  while (read().length < count) {
    if (Date.now() > deadline) throw new Error(`${read().length} of ${count} announcements arrived`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return read();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function describeCoordinationContract(name: string, target: CoordinationContractTarget): void {
  describe(`Coordination contract: ${name}`, () => {
    const a = perCase(
      () => target.open(),
      (opened) => opened.close(),
    );
    const b = perCase(
      () => target.open(),
      (opened) => opened.close(),
    );
    describeChangeFanoutContract(a, b);
    describeInvalidationChannelContract(a, b);
    describeLockServiceContract(a, b);
  });
}

/** Publications reach the subscribers of their tenant on every instance. */
function describeChangeFanoutContract(a: Coordination, b: Coordination): void {
  describe('ChangeFanout', () => {
    /** A tenant name of its own per case, so a shared engine needs no cleanup. */
    let tenant: string;
    beforeEach(() => {
      tenant = randomUUID();
    });
    it('delivers a publication to subscribers on every instance, the publishing one included, once each', async () => {
      const onA: string[] = [];
      const onB: string[] = [];
      await a.changes.subscribe(tenant, (head) => onA.push(head));
      await b.changes.subscribe(tenant, (head) => onB.push(head));
      await a.changes.publish(tenant, '41');
      await a.changes.publish(tenant, '42');
      expect(await arrived(onB, 2)).toEqual(['41', '42']);
      expect(await arrived(onA, 2)).toEqual(['41', '42']);
      // A barrier: once a later publication arrived, an extra copy of the earlier ones would have too.
      await b.changes.publish(tenant, '43');
      await arrived(onA, 3);
      await arrived(onB, 3);
      expect(onA).toEqual(['41', '42', '43']);
      expect(onB).toEqual(['41', '42', '43']);
    });

    it("reaches only the tenant's own subscribers", async () => {
      const other = randomUUID();
      const ofOther: string[] = [];
      const ofTenant: string[] = [];
      await b.changes.subscribe(other, (head) => ofOther.push(head));
      await b.changes.subscribe(tenant, (head) => ofTenant.push(head));
      await a.changes.publish(tenant, '1');
      await a.changes.publish(other, '2');
      expect(await arrived(ofOther, 1)).toEqual(['2']);
      expect(ofTenant).toEqual(['1']);
    });

    it('stops calling a listener once its subscription is stopped, and keeps calling the others', async () => {
      const stoppedOne: string[] = [];
      const kept: string[] = [];
      const stop = await b.changes.subscribe(tenant, (head) => stoppedOne.push(head));
      await b.changes.subscribe(tenant, (head) => kept.push(head));
      await a.changes.publish(tenant, '1');
      await arrived(stoppedOne, 1);
      await stop();
      await stop();
      await a.changes.publish(tenant, '2');
      expect(await arrived(kept, 2)).toEqual(['1', '2']);
      expect(stoppedOne).toEqual(['1']);
    });

    it('keeps delivering to the others when a listener throws', async () => {
      const kept: string[] = [];
      await b.changes.subscribe(tenant, () => {
        throw new Error('listener failure');
      });
      await b.changes.subscribe(tenant, (head) => kept.push(head));
      await a.changes.publish(tenant, '7');
      expect(await arrived(kept, 1)).toEqual(['7']);
    });
  });
}

/** Invalidations reach every instance, and move its generation, before publish resolves. */
function describeInvalidationChannelContract(a: Coordination, b: Coordination): void {
  describe('InvalidationChannel', () => {
    /** A tenant name of its own per case, so a shared engine needs no cleanup. */
    let tenant: string;
    beforeEach(() => {
      tenant = randomUUID();
    });
    const revoked = (): Invalidation => ({ kind: 'apiKey', tenantId: tenant, keyId: 'k' });
    /** This test's messages (another suite may share the engine). */
    const mine = (list: readonly Invalidation[]) =>
      list.filter((m) => ('tenantId' in m ? m.tenantId === tenant : m.key === `s:${tenant}`));

    it('delivers every message, unchanged, to listeners on every instance', async () => {
      const onA: Invalidation[] = [];
      const onB: Invalidation[] = [];
      await a.invalidations.subscribe((message) => onA.push(message));
      await b.invalidations.subscribe((message) => onB.push(message));
      const messages: Invalidation[] = [
        revoked(),
        { kind: 'profile', tenantId: tenant, profileId: 'p' },
        { kind: 'tenant', tenantId: tenant },
        { kind: 'setting', key: `s:${tenant}` },
        { kind: 'model', tenantId: tenant },
      ];
      for (const message of messages) await a.invalidations.publish(message);
      expect(await arrived(() => mine(onB), messages.length)).toEqual(messages);
      expect(await arrived(() => mine(onA), messages.length)).toEqual(messages);
    });

    it('has moved the generation on every instance by the time publish resolves', async () => {
      const beforeOnA = await a.invalidations.generation();
      const beforeOnB = await b.invalidations.generation();
      expect(beforeOnB).toBe(beforeOnA);
      await a.invalidations.publish(revoked());
      const afterOnB = await b.invalidations.generation();
      expect(afterOnB).not.toBe(beforeOnB);
      expect(await a.invalidations.generation()).toBe(afterOnB);
      await b.invalidations.publish(revoked());
      expect(await a.invalidations.generation()).not.toBe(afterOnB);
    });

    it('answers the same generation while nothing is published', async () => {
      const first = await b.invalidations.generation();
      expect(await b.invalidations.generation()).toBe(first);
    });

    it('stops calling a listener once its subscription is stopped', async () => {
      const stoppedOne: Invalidation[] = [];
      const kept: Invalidation[] = [];
      const stop = await b.invalidations.subscribe((message) => stoppedOne.push(message));
      await b.invalidations.subscribe((message) => kept.push(message));
      await stop();
      const message: Invalidation = { kind: 'tenant', tenantId: tenant };
      await a.invalidations.publish(message);
      expect(await arrived(() => mine(kept), 1)).toEqual([message]);
      expect(mine(stoppedOne)).toEqual([]);
    });
  });
}

/** Leases held by one holder at a time across instances, expiring unless renewed. */
function describeLockServiceContract(a: Coordination, b: Coordination): void {
  describe('LockService', () => {
    let lock: string;
    beforeEach(() => {
      lock = `rebuild:${randomUUID()}`;
    });

    it('gives a lease to one holder at a time, across instances', async () => {
      const first = await a.locks.acquire(lock, 10_000);
      expect(first?.name).toBe(lock);
      expect(await b.locks.acquire(lock, 10_000)).toBeNull();
      expect(await a.locks.acquire(lock, 10_000)).toBeNull();
      await first!.release();
      const second = await b.locks.acquire(lock, 10_000);
      expect(second).not.toBeNull();
      await second!.release();
    });

    it('keeps leases of different names apart', async () => {
      const one = await a.locks.acquire(lock, 10_000);
      const other = await b.locks.acquire(`${lock}:other`, 10_000);
      expect(one).not.toBeNull();
      expect(other).not.toBeNull();
      await one!.release();
      await other!.release();
    });

    it('lets a lease expire when it is not renewed; the former holder can neither renew nor release it', async () => {
      const first = await a.locks.acquire(lock, 200);
      expect(first).not.toBeNull();
      await sleep(350);
      const second = await b.locks.acquire(lock, 10_000);
      expect(second).not.toBeNull();
      expect(await first!.renew()).toBe(false);
      await first!.release();
      expect(await a.locks.acquire(lock, 10_000)).toBeNull();
      await second!.release();
    });

    it('extends a lease on renewal', async () => {
      const lease = await a.locks.acquire(lock, 300);
      await sleep(200);
      expect(await lease!.renew()).toBe(true);
      await sleep(200);
      expect(await b.locks.acquire(lock, 10_000)).toBeNull();
      await lease!.release();
      await lease!.release();
      expect(await b.locks.acquire(lock, 10_000)).not.toBeNull();
    });

    it('holds a lease past its time while keepRenewed renews it', async () => {
      const lease = await a.locks.acquire(lock, 300);
      const lost = jest.fn();
      const stop = keepRenewed(lease!, 100, lost);
      await sleep(700);
      expect(await b.locks.acquire(lock, 10_000)).toBeNull();
      stop();
      expect(lost).not.toHaveBeenCalled();
      await lease!.release();
    });

    it('reports a lease lost by keepRenewed once it has been taken over', async () => {
      const lease = await a.locks.acquire(lock, 150);
      await sleep(250);
      const taker = await b.locks.acquire(lock, 10_000);
      expect(taker).not.toBeNull();
      const lost = jest.fn();
      const stop = keepRenewed(lease!, 50, lost);
      await sleep(200);
      stop();
      expect(lost).toHaveBeenCalledTimes(1);
      await taker!.release();
    });
  });
}
