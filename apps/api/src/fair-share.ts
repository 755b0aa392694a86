/**
 * A fair share of the api for every tenant (docs/configuration.md, "Fair share"). Expensive
 * requests (see {@link isExpensive}) do not run the moment they arrive:
 *
 * - each tenant may have at most `limit` of them admitted (waiting or running); one more answers
 *   429 (RATE_LIMITED) with `Retry-After` at once, for the price of a cheap request;
 * - admitted ones run one at a time per process, taking turns across tenants (round robin), and
 *   each starts only after the requests that arrived meanwhile were read, so cheap requests (get
 *   one, writes) of every tenant are served between two expensive ones;
 * - while more than one tenant is active (a request of another tenant in the last second), each
 *   expensive request is followed by a pause as long as it ran, so expensive work takes at most
 *   half the process's time and another tenant's requests find it idle more often than not. A
 *   tenant alone runs them back to back.
 *
 * The work of a request is synchronous for the most part (SQLite), so running them one at a time
 * costs no throughput; without the turn-taking a flood of large lists would be served first come,
 * first served and another tenant's get one would wait behind all of them.
 */
import type { RequestHandler } from 'express';
import { RateLimitedError } from '@odp/core';
import { tenantOf } from './context.js';

/** Seconds a refused client is asked to wait (`Retry-After`): expensive requests take milliseconds. */
export const RETRY_AFTER_SECONDS = 1;

/** Last path segments of cheap GETs under `/data` and `/system`: one object, capabilities, own. */
const CHEAP_TAILS: ReadonlySet<string> = new Set(['capabilities', 'own']);
/** Operations on a whole selection: `/{type}/distinct`, `/{type}/aggregations`. */
const SELECTION_TAILS: ReadonlySet<string> = new Set(['distinct', 'aggregations']);

/**
 * Whether a request is expensive: its cost grows with the tenant's data rather than being one
 * object's. Read from the method and path alone (the branch compared ignoring case, as express
 * routes): every GET under `/audit`; under `/data` and `/system` every GET of a selection: lists
 * and related lists (also with `q`), global search, distinct, field values, aggregations (and
 * Excel exports; downloads as they arrive). Not: get one, get own, capabilities and the event stream
 * (long-lived, it reads only new events).
 */
export function isExpensive(method: string, path: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const [branch = '', , ...rest] = path.split('/').slice(1);
  const segments = rest.at(-1) === '' ? rest.slice(0, -1) : rest;
  switch (branch.toLowerCase()) {
    case 'audit':
      return true;
    case 'data':
    case 'system': {
      const last = segments.at(-1);
      if (last === undefined || segments[0] === 'eventStream' || CHEAP_TAILS.has(last)) return false;
      // `/excel/{type}`: the export of a whole list (docs/excel.md).
      if (segments[0] === 'excel') return true;
      // `/{type}/{id}`: one object, unless the second segment names a selection operation.
      if (segments.length === 2) return SELECTION_TAILS.has(last);
      return true;
    }
    default:
      return false;
  }
}

/** How long a request of a tenant counts it as active, for the pauses between expensive requests. */
const ACTIVE_MS = 1000;

interface Job {
  readonly tenantId: string;
  readonly start: () => void;
}

/** The admission, turn-taking and pauses of expensive requests of one api process. */
class FairShare {
  private readonly admitted = new Map<string, number>();
  /** Per tenant with admitted requests waiting, in arrival order. */
  private readonly waiting = new Map<string, Job[]>();
  /** When each tenant with admitted requests last had a turn: the longest waiting goes next. */
  private readonly lastTurn = new Map<string, number>();
  private readonly lastSeen = new Map<string, number>();
  private running = false;
  private pending = false;

  constructor(
    private readonly limit: number,
    private readonly now: () => number,
  ) {}

  /** Marks the tenant active (every request, cheap or expensive). */
  seen(tenantId: string): void {
    this.lastSeen.set(tenantId, this.now());
  }

  /**
   * Admits a request (RateLimitedError past the tenant's limit); `start` runs at its turn. The
   * response's close (finished or aborted) releases it, whether it ran or still waited.
   */
  admit(tenantId: string, onClose: (release: () => void) => void, start: () => void): void {
    const count = this.admitted.get(tenantId) ?? 0;
    if (count >= this.limit) {
      throw new RateLimitedError(
        `This tenant already has ${this.limit} expensive requests (lists, search, distinct, values, ` +
          'aggregations, audit) under way; retry shortly.',
        RETRY_AFTER_SECONDS,
      );
    }
    this.admitted.set(tenantId, count + 1);
    let startedAt: number | null = null;
    const job: Job = {
      tenantId,
      start: () => {
        startedAt = this.now();
        start();
      },
    };
    const queue = this.waiting.get(tenantId) ?? [];
    queue.push(job);
    this.waiting.set(tenantId, queue);
    onClose(() => {
      const left = (this.admitted.get(tenantId) ?? 1) - 1;
      if (left > 0) this.admitted.set(tenantId, left);
      else {
        this.admitted.delete(tenantId);
        this.lastTurn.delete(tenantId);
      }
      if (startedAt === null) {
        this.dequeue(job);
        return;
      }
      this.running = false;
      const pause = this.contended(tenantId) ? this.now() - startedAt : 0;
      this.schedule(pause);
    });
    this.schedule(0);
  }

  private dequeue(job: Job): void {
    const queue = this.waiting.get(job.tenantId);
    if (queue === undefined) return;
    const index = queue.indexOf(job);
    if (index !== -1) queue.splice(index, 1);
    if (queue.length === 0) this.waiting.delete(job.tenantId);
  }

  /** Whether a tenant other than `tenantId` was active in the last second. */
  private contended(tenantId: string): boolean {
    const since = this.now() - ACTIVE_MS;
    let other = false;
    for (const [tenant, at] of this.lastSeen) {
      if (at < since) this.lastSeen.delete(tenant);
      else if (tenant !== tenantId) other = true;
    }
    return other;
  }

  /** Starts the next turn after `pauseMs`, or once pending I/O was read (setImmediate). */
  private schedule(pauseMs: number): void {
    if (this.pending || this.running) return;
    this.pending = true;
    const next = () => {
      this.pending = false;
      this.startNext();
    };
    if (pauseMs > 0) setTimeout(next, pauseMs);
    else setImmediate(next);
  }

  /**
   * Runs the oldest waiting request of the tenant whose turn it is: among tenants with requests
   * waiting, the one whose last turn is longest ago (never: first), so a tenant that just had a
   * turn goes after every other waiting tenant, also one that arrived since (round robin).
   */
  private startNext(): void {
    if (this.running) return;
    let turn: { tenantId: string; queue: Job[]; last: number } | undefined;
    for (const [tenantId, queue] of this.waiting) {
      const last = this.lastTurn.get(tenantId) ?? -Infinity;
      if (turn === undefined || last < turn.last) turn = { tenantId, queue, last };
    }
    if (turn === undefined) return;
    const job = turn.queue.shift();
    if (turn.queue.length === 0) this.waiting.delete(turn.tenantId);
    if (job === undefined) return;
    this.lastTurn.set(turn.tenantId, this.now());
    this.running = true;
    job.start();
  }
}

/** The middleware; runs after authentication, which established the request's tenant. */
export function tenantFairShare(limit: number, now: () => number = () => performance.now()): RequestHandler {
  const share = new FairShare(limit, now);
  return (req, res, next) => {
    const tenantId = tenantOf(res);
    if (tenantId === null) {
      next();
      return;
    }
    share.seen(tenantId);
    if (!isExpensive(req.method, req.path)) {
      next();
      return;
    }
    share.admit(
      tenantId,
      (release) => res.once('close', release),
      () => next(),
    );
  };
}
