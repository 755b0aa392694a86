import { RateLimitedError } from '@odp/core';
import { ACTIVE_MS, DEBT_HALF_LIFE_MS, FairShare, HEAVY_REQUEST_MS, LONG_RUNNING_MS } from './fair-share.js';
import type { FairShareLimits, RequestKind } from './fair-share.js';

const CHEAP: RequestKind = { label: 'GET /data', priorMs: 1 };
const LIST: RequestKind = { label: 'GET /data selection', priorMs: 20 };

describe('FairShare (fake clock and timers)', () => {
  let clock = 0;
  let share: FairShare;
  const started: string[] = [];
  const releases = new Map<string, () => void>();

  function create(limits: Partial<FairShareLimits> = {}): void {
    share = new FairShare(
      { tenantRequests: 64, tenantWorkMs: 100, tenantConcurrency: 2, ...limits },
      () => clock,
    );
  }
  /** Sends request `name` of `tenant`; the refusal when it is refused. */
  function send(name: string, tenant: string, kind: RequestKind = CHEAP): RateLimitedError | undefined {
    try {
      share.admit(
        tenant,
        kind,
        (release) => releases.set(name, release),
        () => started.push(name),
      );
      return undefined;
    } catch (error) {
      if (error instanceof RateLimitedError) return error;
      throw error;
    }
  }
  /** Ends request `name` (finished, or its client went away) `ms` milliseconds later. */
  function finish(name: string, ms = 0): void {
    clock += ms;
    releases.get(name)?.();
    jest.runOnlyPendingTimers();
  }

  /** Another tenant, B, is seen: A now contends with it, and A's kinds are capped by their cost. */
  function otherTenantActive(): void {
    send('b-seen', 'B');
    finish('b-seen');
  }

  beforeEach(() => {
    jest.useFakeTimers();
    clock = 0;
    started.length = 0;
    releases.clear();
    create();
  });
  afterEach(() => jest.useRealTimers());

  it('admits of one kind up to the work budget over its estimate, then refuses with Retry-After 1', () => {
    otherTenantActive();
    for (let i = 0; i < 5; i++) expect(send(`list${i}`, 'A', LIST)).toBeUndefined();
    const refused = send('list5', 'A', LIST);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect(refused?.retryAfterSeconds).toBe(1);
    expect(refused?.message).toContain('(GET /data selection)');
    // A cheap kind has its own, larger cap; another tenant its own share.
    expect(send('one', 'A', CHEAP)).toBeUndefined();
    expect(send('b-list', 'B', LIST)).toBeUndefined();
    finish('list0');
    expect(send('list6', 'A', LIST)).toBeUndefined();
  });

  it('counts a request served at once at its admission as under way until the end of the turn', () => {
    create({ tenantWorkMs: 40 });
    otherTenantActive();
    // Two lists served, and ended, within their admission (synchronous work).
    for (let i = 0; i < 2; i++) {
      let release: () => void = () => undefined;
      share.admit(
        'A',
        LIST,
        (r) => (release = r),
        () => {
          clock += 20;
          release();
        },
      );
    }
    expect(send('list2', 'A', LIST)).toBeInstanceOf(RateLimitedError);
    jest.runOnlyPendingTimers();
    expect(send('list3', 'A', LIST)).toBeUndefined();
  });

  it('frees the share of a request that ended after its admission at once', () => {
    create({ tenantWorkMs: 40 });
    for (let i = 0; i < 4; i++) {
      expect(send(`list${i}`, 'A', LIST)).toBeUndefined();
      clock += 20;
      releases.get(`list${i}`)?.();
    }
  });

  it('counts a request released twice (its response ended, then its connection closed) once', () => {
    create({ tenantRequests: 2 });
    send('a1', 'A');
    send('a2', 'A');
    finish('a1');
    finish('a1');
    expect(send('a3', 'A')).toBeUndefined();
    expect(send('a4', 'A')).toBeInstanceOf(RateLimitedError);
  });

  it('caps the requests of a tenant under way, every kind together', () => {
    create({ tenantRequests: 3 });
    send('a1', 'A', CHEAP);
    send('a2', 'A', LIST);
    send('a3', 'A', { label: 'POST /data', priorMs: 1 });
    expect(send('a4', 'A', CHEAP)?.message).toContain('3 requests under way');
    expect(send('b1', 'B', CHEAP)).toBeUndefined();
  });

  it('learns what a kind costs: after slow ones its cap shrinks to the budget over their cost', () => {
    otherTenantActive();
    for (let round = 0; round < 8; round++) {
      send(`slow${round}`, 'A', CHEAP);
      finish(`slow${round}`, 50);
      // A, heavy, pauses twice as long after each: its next request runs once the pause is over.
      clock += 100;
      jest.advanceTimersByTime(100);
      jest.runOnlyPendingTimers();
    }
    otherTenantActive();
    send('x1', 'A', CHEAP);
    send('x2', 'A', CHEAP);
    expect(send('x3', 'A', CHEAP)).toBeInstanceOf(RateLimitedError);
  });

  it('caps a tenant alone by its requests under way only, whatever their kind costs', () => {
    create({ tenantRequests: 8 });
    for (let i = 0; i < 8; i++) expect(send(`list${i}`, 'A', LIST)).toBeUndefined();
    expect(send('list8', 'A', LIST)).toBeInstanceOf(RateLimitedError);
    // Once another tenant is active, the kind's cost caps it again (100 ms over 20 ms: 5).
    finish('list0');
    otherTenantActive();
    expect(send('list9', 'A', LIST)).toBeInstanceOf(RateLimitedError);
  });

  it('runs everything of a tenant alone at once: a tenant alone is never slowed', () => {
    for (let i = 0; i < 10; i++) send(`a${i}`, 'A');
    expect(started).toHaveLength(10);
  });

  it("starts a quiet tenant's request at once, ahead of a flooding tenant's queue", () => {
    send('a0', 'A', LIST);
    finish('a0', 40); // A has a debt now
    send('b0', 'B');
    finish('b0', 1);
    for (let i = 1; i <= 4; i++) send(`a${i}`, 'A', LIST);
    // Contended: A, the heaviest of the tenants pressing for several requests, runs one at a time.
    expect(started).toEqual(['a0', 'b0', 'a1']);
    send('b1', 'B');
    expect(started).toEqual(['a0', 'b0', 'a1', 'b1']);
    finish('a1', 10);
    // A pauses twice as long as a1 was charged (10 ms shared with b1: 5 ms; a pause of 10 ms).
    expect(started).toEqual(['a0', 'b0', 'a1', 'b1']);
    clock += 9;
    jest.advanceTimersByTime(9);
    jest.runOnlyPendingTimers();
    expect(started).toEqual(['a0', 'b0', 'a1', 'b1']);
    clock += 1;
    jest.advanceTimersByTime(1);
    jest.runOnlyPendingTimers();
    expect(started).toEqual(['a0', 'b0', 'a1', 'b1', 'a2']);
  });

  it('never slows a tenant that sends one request after the other, however high its debt', () => {
    // B alone keeps the process busy, one request at a time: a high debt.
    for (let i = 0; i < 20; i++) {
      send(`b${i}`, 'B');
      finish(`b${i}`, 5);
    }
    // A floods: several requests at once, a lower debt than B's.
    for (let i = 0; i < 4; i++) send(`a${i}`, 'A');
    expect(share.debtOf('A')).toBeLessThan(share.debtOf('B'));
    // A is the only tenant pressing for several at once: it runs one at a time and pauses ...
    expect(started.filter((name) => name.startsWith('a'))).toEqual(['a0']);
    finish('a0', 1);
    expect(started.filter((name) => name.startsWith('a'))).toEqual(['a0']);
    clock += 2;
    jest.advanceTimersByTime(2);
    jest.runOnlyPendingTimers();
    expect(started.filter((name) => name.startsWith('a'))).toEqual(['a0', 'a1']);
    // ... while each request of B's starts the moment it arrives.
    for (let i = 20; i < 25; i++) {
      send(`b${i}`, 'B');
      expect(started.at(-1)).toBe(`b${i}`);
      finish(`b${i}`, 5);
    }
  });

  it('pauses a tenant that sends heavy requests one after the other, as one sending several at once', () => {
    otherTenantActive();
    // A sends one list at a time, each charged HEAVY_REQUEST_MS: it presses though never two at once.
    send('a0', 'A', LIST);
    finish('a0', HEAVY_REQUEST_MS);
    expect(share.activity().pressing).toEqual(['A']);
    send('a1', 'A', LIST);
    // The heaviest pauses twice its charge before its next request starts ...
    expect(started.filter((name) => name.startsWith('a'))).toEqual(['a0']);
    clock += 2 * HEAVY_REQUEST_MS;
    jest.advanceTimersByTime(2 * HEAVY_REQUEST_MS);
    jest.runOnlyPendingTimers();
    expect(started.filter((name) => name.startsWith('a'))).toEqual(['a0', 'a1']);
    // ... while B's request, sent during the pause, would have started at once.
    send('b1', 'B');
    expect(started.at(-1)).toBe('b1');
  });

  it('never pauses a tenant that sends short requests one after the other', () => {
    otherTenantActive();
    for (let i = 0; i < 5; i++) {
      send(`a${i}`, 'A');
      expect(started.at(-1)).toBe(`a${i}`);
      finish(`a${i}`, HEAVY_REQUEST_MS - 1);
    }
    expect(share.activity().pressing).toEqual([]);
  });

  it('does not count one slow request of a cheap kind as pressing (it waited for the core)', () => {
    otherTenantActive();
    for (let i = 0; i < 5; i++) {
      send(`a${i}`, 'A');
      finish(`a${i}`, 1);
    }
    // One get charged far more than its kind's estimate: it waited, it did not work that long.
    send('slow', 'A');
    finish('slow', 10 * HEAVY_REQUEST_MS);
    expect(share.activity().pressing).toEqual([]);
    send('next', 'A');
    expect(started.at(-1)).toBe('next');
  });

  it("holds the flood with requests waiting as the heaviest, also below a busy neighbour's debt", () => {
    create({ tenantWorkMs: 1000 });
    // B sends lists one after the other: it presses (a heavy kind), and has a debt.
    for (let i = 0; i < 4; i++) {
      send(`b${i}`, 'B', LIST);
      finish(`b${i}`, 10);
    }
    // A floods: two of its lists start (B pressed, and asked more then), eight wait.
    for (let i = 0; i < 10; i++) send(`a${i}`, 'A', LIST);
    expect(started.filter((name) => name.startsWith('a'))).toEqual(['a0', 'a1']);
    finish('a0', 1);
    // A's debt is below B's, but what it has waiting makes it the heaviest: one at a time, and a
    // pause; B's next list starts at once.
    expect(share.debtOf('A')).toBeLessThan(share.debtOf('B'));
    finish('a1', 1);
    expect(started.filter((name) => name.startsWith('a'))).toEqual(['a0', 'a1']);
    send('b4', 'B', LIST);
    expect(started.at(-1)).toBe('b4');
    clock += 5;
    jest.advanceTimersByTime(5);
    jest.runOnlyPendingTimers();
    expect(started.filter((name) => name.startsWith('a'))).toEqual(['a0', 'a1', 'a2']);
  });

  it("frees a flooder's slot only after the I/O that arrived meanwhile: a quiet request goes first", () => {
    // A has pressed for two requests at once, and has a debt.
    send('a0', 'A', LIST);
    send('a0b', 'A', LIST);
    finish('a0', 20);
    finish('a0b', 20);
    send('b0', 'B');
    finish('b0', 1);
    // Within one turn of the event loop: A's request ends, A's next two and B's arrive.
    send('a1', 'A');
    releases.get('a1')?.();
    send('a2', 'A');
    send('a3', 'A');
    send('b1', 'B');
    expect(started).toEqual(['a0', 'a0b', 'b0', 'a1', 'b1']);
    jest.runOnlyPendingTimers();
    expect(started).toEqual(['a0', 'a0b', 'b0', 'a1', 'b1', 'a2']);
  });

  it('frees the slot of a long-running request (a download, an export) after LONG_RUNNING_MS', () => {
    send('a0', 'A', LIST);
    finish('a0', 40);
    send('b0', 'B');
    send('download', 'A', LIST);
    send('a1', 'A');
    expect(started).toEqual(['a0', 'b0', 'download']);
    clock += LONG_RUNNING_MS - 1;
    jest.advanceTimersByTime(LONG_RUNNING_MS - 1);
    jest.runOnlyPendingTimers();
    expect(started).toEqual(['a0', 'b0', 'download']);
    clock += 1;
    jest.advanceTimersByTime(1);
    jest.runOnlyPendingTimers();
    expect(started).toEqual(['a0', 'b0', 'download', 'a1']);
  });

  it('lets a tenant that is not the heaviest run up to its concurrency while contended', () => {
    // A floods: it pressed for two at once and has the higher debt.
    send('a0', 'A', LIST);
    send('a1', 'A', LIST);
    finish('a0', 40);
    for (let i = 1; i <= 3; i++) send(`b${i}`, 'B');
    expect(started).toEqual(['a0', 'a1', 'b1', 'b2']);
    finish('b1', 1);
    expect(started).toEqual(['a0', 'a1', 'b1', 'b2', 'b3']);
  });

  it('holds to one request at a time the only tenant pressing for several, whatever the debts', () => {
    send('a0', 'A', LIST);
    finish('a0', HEAVY_REQUEST_MS - 1);
    // A is quiet now (its one request was short, but its debt is above B's); B sends three at once.
    for (let i = 1; i <= 3; i++) send(`b${i}`, 'B');
    expect(started).toEqual(['a0', 'b1']);
  });

  it('counts a tenant another api process of the machine reported active as contending', () => {
    create({ tenantConcurrency: 4 });
    // A alone in this process: not limited.
    for (let i = 0; i < 3; i++) send(`a${i}`, 'A');
    expect(started).toEqual(['a0', 'a1', 'a2']);
    for (let i = 0; i < 3; i++) finish(`a${i}`, 2);
    // Another process serves B: A, pressing, runs one at a time and pauses, though alone here.
    share.noteActiveElsewhere('2', { active: ['B'], pressing: [] });
    for (let i = 3; i < 6; i++) send(`a${i}`, 'A');
    expect(started).toEqual(['a0', 'a1', 'a2', 'a3']);
    expect(share.activity()).toEqual({ active: ['A'], pressing: ['A'] });
    // A second after the last report, B no longer counts: A runs everything at once again.
    finish('a3', 1);
    clock += ACTIVE_MS;
    jest.advanceTimersByTime(ACTIVE_MS);
    jest.runOnlyPendingTimers();
    expect(started).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']);
  });

  it('pauses the heaviest longer while another process of the machine serves its flood too', () => {
    otherTenantActive();
    // A presses here and, by the report of process 2, there: its two shares add up to a third of one.
    share.noteActiveElsewhere('2', { active: ['A'], pressing: ['A'] });
    for (let i = 0; i < 3; i++) send(`a${i}`, 'A');
    expect(started.filter((name) => name.startsWith('a'))).toEqual(['a0']);
    finish('a0', 2);
    // A pause of 5 times the charge (2 ms): 10 ms, not the 4 ms of a flood this process serves alone.
    for (const step of [4, 5]) {
      clock += step;
      jest.advanceTimersByTime(step);
      jest.runOnlyPendingTimers();
      expect(started.filter((name) => name.startsWith('a'))).toEqual(['a0']);
    }
    clock += 1;
    jest.advanceTimersByTime(1);
    jest.runOnlyPendingTimers();
    expect(started.filter((name) => name.startsWith('a'))).toEqual(['a0', 'a1']);
  });

  it('does not count the tenant itself, reported active by another process, as contending', () => {
    share.noteActiveElsewhere('2', { active: ['A'], pressing: ['A'] });
    for (let i = 0; i < 5; i++) send(`a${i}`, 'A');
    expect(started).toHaveLength(5);
  });

  it('starts waiting requests lowest debt first once a turn frees', () => {
    create({ tenantConcurrency: 1 });
    send('a0', 'A');
    finish('a0', 30);
    send('c0', 'C');
    finish('c0', 10);
    send('b0', 'B');
    send('a1', 'A');
    send('c1', 'C');
    send('b1', 'B');
    send('a2', 'A');
    send('c2', 'C');
    expect(started).toEqual(['a0', 'c0', 'b0', 'a1', 'c1']);
    for (const name of ['a1', 'c1', 'b0']) releases.get(name)?.();
    // Once the I/O was read: B (no debt), then C (10), then A (30), one each.
    expect(started).toHaveLength(5);
    jest.runOnlyPendingTimers();
    expect(started.slice(5)).toEqual(['b1', 'c2', 'a2']);
  });

  it('charges each of N running requests 1/N of the time they ran together', () => {
    send('a', 'A');
    send('b', 'B');
    clock += 10;
    finish('a');
    finish('b');
    expect(share.debtOf('A')).toBeCloseTo(5);
    expect(share.debtOf('B')).toBeCloseTo(5);
  });

  it("halves a tenant's debt every half-life", () => {
    send('a', 'A');
    finish('a', 40);
    clock += DEBT_HALF_LIFE_MS;
    expect(share.debtOf('A')).toBeCloseTo(20);
  });

  it('forgets a request whose client went away while it waited', () => {
    create({ tenantConcurrency: 1 });
    send('a0', 'A');
    finish('a0', 30);
    send('b0', 'B');
    send('a1', 'A');
    send('a2', 'A');
    expect(started).toEqual(['a0', 'b0', 'a1']);
    finish('a2'); // went away while waiting
    finish('a1');
    expect(started).toEqual(['a0', 'b0', 'a1']);
    send('a3', 'A');
    expect(started).toEqual(['a0', 'b0', 'a1', 'a3']);
  });

  it('counts a tenant inactive a while after its last request', () => {
    send('a0', 'A');
    finish('a0', 30);
    send('b0', 'B');
    finish('b0', 1);
    clock += ACTIVE_MS;
    for (let i = 1; i <= 3; i++) send(`a${i}`, 'A');
    expect(started).toEqual(['a0', 'b0', 'a1', 'a2', 'a3']);
  });

  it('takes turns for work that is not a request (turn), never refused, charged to the tenant', async () => {
    create({ tenantRequests: 1, tenantConcurrency: 1 });
    send('a0', 'A');
    finish('a0', 30);
    send('b0', 'B');
    send('a1', 'A');
    const order: string[] = [];
    const page = share.turn('A', () => {
      order.push('page');
      clock += 5;
      return 'page 1';
    });
    await Promise.resolve();
    expect(order).toEqual([]);
    finish('a1');
    await expect(page).resolves.toBe('page 1');
    expect(order).toEqual(['page']);
    expect(share.debtOf('A')).toBeGreaterThan(30);
  });

  it('passes the error of a turn on and frees the turn', async () => {
    await expect(
      share.turn('A', () => {
        throw new Error('replay failed');
      }),
    ).rejects.toThrow('replay failed');
    send('a', 'A');
    expect(started).toEqual(['a']);
  });
});
