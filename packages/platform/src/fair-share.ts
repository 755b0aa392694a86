/**
 * A fair share of one api process for every tenant (docs/configuration.md, "Fair share between
 * tenants"). Every request of a tenant, of every kind, passes {@link FairShare.admit} before its body
 * is read, and streams take turns with {@link FairShare.turn}:
 *
 * - **Cost.** Each request is charged the time of the event loop it used, estimated as processor
 *   sharing: while N requests run, each is charged 1/N of the elapsed time. A tenant's recent cost
 *   (its *debt*) is the sum of its charges, halving every {@link DEBT_HALF_LIFE_MS}. Per tenant and
 *   kind of request (method, branch, shape, body size: request-kind.ts) the charge of the last ones
 *   is kept as an estimate of the next one's.
 * - **Admission.** A tenant may have `tenantRequests` requests under way (waiting or running), and,
 *   while another tenant is active, of one kind at most `tenantWorkMs / estimate` (at least one): a
 *   cheap kind many, an expensive one few. One more is refused with TenantShareError (429,
 *   `Retry-After`). A tenant alone meets only the first cap: there is nobody its burst would hold up.
 * - **Turns.** A tenant alone runs everything it was admitted at once. While several tenants are
 *   active (a request under way or seen in the last {@link ACTIVE_MS}), a tenant runs at most
 *   `tenantConcurrency` requests at once, and the *heaviest* only one: of the tenants that pressed
 *   in the last {@link ACTIVE_MS} (more than one request at once, or one of a heavy kind charged
 *   {@link HEAVY_REQUEST_MS} or more), the one that asks the most: its debt plus the estimated
 *   cost of the requests it has waiting (a client sending short requests one after the other is
 *   never slowed: it holds nobody up longer than its one short request). The rest wait in its
 *   queue; after each of its requests the heaviest pauses {@link PAUSE_FACTOR} times as long as
 *   that request was charged (at most {@link MAX_PAUSE_MS}), so it takes about a third of the
 *   process at most. A slot that frees, and the queued requests, are taken only after the I/O that
 *   arrived meanwhile was read (`setImmediate`), lowest debt first: a quiet tenant's request starts
 *   the moment it arrives, ahead of a flooding tenant's queue, and waits at most for one of the
 *   flooder's requests per turn of the event loop, also when each of them ends within its turn.
 *
 * The state is per api process: with several instances each applies it to the requests it serves.
 * The api processes of one machine share its cores, so they tell each other which tenants are
 * active (cluster-activity.ts): a tenant active in another process counts as active here too.
 */
import { TenantShareError } from '@odp/core';
import type { FairShareConfig } from '@odp/config';
import { ActivityElsewhere } from './activity-elsewhere.js';
import type { TenantActivity } from './activity-elsewhere.js';

/** Seconds a refused client is asked to wait (`Retry-After`): the requests under way take milliseconds. */
export const RETRY_AFTER_SECONDS = 1;
/** A tenant's debt halves in this time: what it cost a few seconds ago no longer counts. */
export const DEBT_HALF_LIFE_MS = 1000;
/** How long a request of a tenant counts it as active (contending for the process). */
export const ACTIVE_MS = 1000;
/** A tenant idle this long is forgotten (its debt has decayed, its estimates are stale). */
const FORGET_MS = 60_000;
/**
 * A request running longer than this no longer takes one of its tenant's slots: it streams or
 * waits for a slow client (a download, an export, an upload being read), and the tenant's other
 * requests should not wait for it to end. It still counts as under way and is charged when it ends.
 */
export const LONG_RUNNING_MS = 1000;
/**
 * A request charged this long, of a kind estimated as costly, presses like several at once: every
 * request of another tenant that arrives while it runs waits for its step on the event loop, so a
 * client sending such requests one after the other (1 MB creates, pages of 1,000) keeps the process
 * as busy as a flood. A short one (a get, a small write: well under a millisecond) holds nobody up
 * for long, also when it was charged more once because it waited for the core (a collection of the
 * heap, another process's work): its kind's estimate stays low, and it does not press.
 */
export const HEAVY_REQUEST_MS = 8;
/** The longest pause of the heaviest tenant after one of its requests. */
export const MAX_PAUSE_MS = 1000;
/**
 * The heaviest tenant's pause after a request, in multiples of the request's charge: 2 leaves it a
 * third of the process. A request that arrives while one of the heaviest's runs waits for it (work
 * on the event loop is not preempted), so its share is how often another tenant's request waits:
 * at a half, the median request of a busy neighbour waited (its p50 twice its own); at a third,
 * most do not.
 */
export const PAUSE_FACTOR = 2;
/** Weight of the newest charge in a kind's estimate (an exponentially weighted moving average). */
const ESTIMATE_WEIGHT = 0.3;

/** The share's limits: `config.fairShare` (docs/configuration.md). */
export type FairShareLimits = FairShareConfig;

/** What kind a request is, and what one of its kind is expected to cost before any was measured. */
export interface RequestKind {
  /** Names the kind in the refusal's message, e.g. `GET /data selection`. */
  readonly label: string;
  readonly priorMs: number;
}

interface Job {
  readonly tenant: TenantShare;
  readonly kind: string;
  readonly start: () => void;
  /** The virtual clock when it started; null while it waits. */
  startedAt: number | null;
  /** The clock when it started. */
  startedWallAt: number;
  released: boolean;
}

interface TenantShare {
  readonly tenantId: string;
  readonly queue: Job[];
  readonly running: Set<Job>;
  /**
   * Requests that ended while the I/O of a turn of the event loop was read: they keep their slots
   * until the next scheduled pump, at the end of that turn, so a burst read in one turn is not
   * served back to back because each one ended before the next was read. A request that ends
   * within a scheduled pump (it was started there) ends with its turn.
   */
  readonly ended: Job[];
  /** Requests under way (waiting, running, or ended at admission this turn) per kind, and in total. */
  readonly underWay: Map<string, number>;
  total: number;
  debt: number;
  debtAt: number;
  /** When it last pressed (more than one request under way, or one heavy request); -Infinity if never. */
  pressedAt: number;
  /** While other tenants are active, this tenant starts nothing before then (its pause). */
  pausedUntil: number;
  lastSeen: number;
  /** Estimated milliseconds per kind label. */
  readonly estimates: Map<string, number>;
}

/** The admission, turns and cost accounting of the tenants' requests in one api process. */
export class FairShare {
  private readonly tenants = new Map<string, TenantShare>();
  /** What the machine's other api processes reported. */
  private readonly elsewhere = new ActivityElsewhere(ACTIVE_MS);
  private running = 0;
  /** Processor-sharing clock: advances by elapsed / running while requests run. */
  private virtual = 0;
  private virtualAt: number;
  private pumpScheduled = false;
  /** True while a scheduled pump runs: requests that end then end with the turn (see `ended`). */
  private inScheduledPump = false;
  /** True while a request is admitted: one that ends then, started and served at once, ... */
  private admitting = false;
  /** ... counts as under way until the next scheduled pump, so that such a burst is capped too. */
  private readonly endedAtAdmission: Job[] = [];
  /** Pumps again when a slot taken for a time frees: a long-running request's, a pause's end. */
  private wakeTimer: ReturnType<typeof setTimeout> | null = null;
  private sweptAt: number;

  constructor(
    private readonly limits: FairShareLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.virtualAt = now();
    this.sweptAt = this.virtualAt;
  }

  /**
   * Admits a request of `tenantId` (TenantShareError past the tenant's share); `start` runs at its
   * turn, at once when it may. `onClose` is given the release, to call when the request ends
   * (finished or aborted), whether it ran or still waited; calls after the first are ignored.
   */
  admit(
    tenantId: string,
    kind: RequestKind,
    onClose: (release: () => void) => void,
    start: () => void,
  ): void {
    const tenant = this.tenant(tenantId);
    if (tenant.total >= this.limits.tenantRequests) {
      throw new TenantShareError(
        `This tenant already has ${this.limits.tenantRequests} requests under way in this api process, ` +
          'its share; retry shortly.',
        RETRY_AFTER_SECONDS,
      );
    }
    const cap = this.capOf(tenant, kind);
    if (this.contended(tenant) && (tenant.underWay.get(kind.label) ?? 0) >= cap) {
      throw new TenantShareError(
        `This tenant already has ${cap} requests like this one (${kind.label}) under way in this api ` +
          'process, its share for their cost; retry shortly.',
        RETRY_AFTER_SECONDS,
      );
    }
    const job = this.enqueue(tenant, kind, start);
    onClose(() => this.release(job));
    this.admitting = true;
    try {
      this.pump();
    } finally {
      this.admitting = false;
    }
  }

  /**
   * Runs `work` for `tenantId` at its turn, charged like a request (for work that is not a request
   * of its own, such as a page of an event stream's replay). Never refused: the caller was admitted.
   */
  turn<T>(tenantId: string, work: () => T | Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const kind = { label: 'turn', priorMs: 1 };
      const job = this.enqueue(this.tenant(tenantId), kind, () => {
        Promise.resolve()
          .then(work)
          .then(resolve, reject)
          .finally(() => this.release(job));
      });
      this.pump();
    });
  }

  /**
   * The tenants active in this process (a request under way or seen in the last
   * {@link ACTIVE_MS}) and those of them that pressed for more than one request at once: what it
   * tells the machine's other api processes.
   */
  activity(): TenantActivity {
    const now = this.now();
    const active = this.activeTenants(now);
    return {
      active: active.map((tenant) => tenant.tenantId),
      pressing: active
        .filter((tenant) => now - tenant.pressedAt < ACTIVE_MS)
        .map((tenant) => tenant.tenantId),
    };
  }

  /**
   * Takes what another api process of the machine (named `from`) reported: for the next
   * {@link ACTIVE_MS} its active tenants count as active here too, and a tenant pressing there as
   * well as here pauses longer here. The processes share the machine's cores, so a flood served by
   * one process slows the requests another serves: a tenant alone in this process is not alone on
   * the machine while another tenant is active in the next one, and the heaviest tenant's share is
   * a third of one process's time summed over the processes that serve it, not a third of each.
   */
  noteActiveElsewhere(from: string, activity: TenantActivity): void {
    this.elsewhere.note(from, activity, this.now());
    this.schedulePump();
  }

  /** The tenant's recent cost in milliseconds (decayed); for tests and diagnostics. */
  debtOf(tenantId: string): number {
    const tenant = this.tenants.get(tenantId);
    return tenant === undefined ? 0 : this.decayedDebt(tenant);
  }

  private tenant(tenantId: string): TenantShare {
    const now = this.now();
    this.forgetIdle(now);
    let tenant = this.tenants.get(tenantId);
    if (tenant === undefined) {
      tenant = {
        tenantId,
        queue: [],
        running: new Set(),
        ended: [],
        underWay: new Map(),
        total: 0,
        debt: 0,
        debtAt: now,
        pressedAt: -Infinity,
        pausedUntil: 0,
        lastSeen: now,
        estimates: new Map(),
      };
      this.tenants.set(tenantId, tenant);
    }
    tenant.lastSeen = now;
    return tenant;
  }

  /** Requests of `kind` a tenant may have under way: its work budget over their estimated cost. */
  private capOf(tenant: TenantShare, kind: RequestKind): number {
    const estimate = tenant.estimates.get(kind.label) ?? kind.priorMs;
    return Math.max(1, Math.floor(this.limits.tenantWorkMs / Math.max(estimate, 0.001)));
  }

  private enqueue(tenant: TenantShare, kind: RequestKind, start: () => void): Job {
    const job: Job = { tenant, kind: kind.label, start, startedAt: null, startedWallAt: 0, released: false };
    if (!tenant.estimates.has(kind.label)) tenant.estimates.set(kind.label, kind.priorMs);
    tenant.underWay.set(kind.label, (tenant.underWay.get(kind.label) ?? 0) + 1);
    tenant.total++;
    if (tenant.total > 1) tenant.pressedAt = this.now();
    tenant.queue.push(job);
    return job;
  }

  /**
   * Ends a job: forgets a waiting one at once; charges a run one, which counts as under way until
   * the next scheduled pump, and lets the next ones start then.
   */
  private release(job: Job): void {
    if (job.released) return;
    job.released = true;
    const { tenant } = job;
    if (job.startedAt === null) {
      const index = tenant.queue.indexOf(job);
      if (index !== -1) tenant.queue.splice(index, 1);
      this.forget(job);
      return;
    }
    const charge = this.advance() - job.startedAt;
    job.startedAt = null;
    this.running--;
    tenant.running.delete(job);
    if (!this.inScheduledPump) tenant.ended.push(job);
    if (this.admitting && !this.inScheduledPump) this.endedAtAdmission.push(job);
    else this.forget(job);
    const now = this.now();
    tenant.debt = this.decayedDebt(tenant) + charge;
    tenant.debtAt = now;
    const estimate = tenant.estimates.get(job.kind) ?? charge;
    // Heavy by its kind, not by one slow run: a get that waited for the core (another process's
    // work, a collection of the heap) is charged that wait, and would otherwise press.
    if (Math.min(charge, estimate) >= HEAVY_REQUEST_MS) tenant.pressedAt = now;
    const active = this.activeTenants(now);
    if (this.severalActive(active, now) && this.heaviest(active) === tenant) {
      tenant.pausedUntil = now + Math.min(this.pauseFactor(tenant.tenantId, now) * charge, MAX_PAUSE_MS);
    }
    tenant.estimates.set(job.kind, estimate + ESTIMATE_WEIGHT * (charge - estimate));
    this.schedulePump();
  }

  /** No longer counts a job as under way. */
  private forget(job: Job): void {
    const { tenant } = job;
    const left = (tenant.underWay.get(job.kind) ?? 1) - 1;
    if (left > 0) tenant.underWay.set(job.kind, left);
    else tenant.underWay.delete(job.kind);
    tenant.total--;
  }

  /** Moves the processor-sharing clock to now and returns it. */
  private advance(): number {
    const now = this.now();
    if (this.running > 0) this.virtual += (now - this.virtualAt) / this.running;
    this.virtualAt = now;
    return this.virtual;
  }

  private decayedDebt(tenant: TenantShare): number {
    return tenant.debt * 2 ** (-(this.now() - tenant.debtAt) / DEBT_HALF_LIFE_MS);
  }

  /** Starts the next turns once the I/O that arrived meanwhile was read. */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      for (const tenant of this.tenants.values()) tenant.ended.length = 0;
      for (const job of this.endedAtAdmission.splice(0)) this.forget(job);
      this.inScheduledPump = true;
      try {
        this.pump();
      } finally {
        this.inScheduledPump = false;
      }
    });
  }

  /**
   * Starts every waiting job that may run now, tenants in order of lowest debt: all of a tenant's
   * when it is the only active one, otherwise up to its concurrency (one for the heaviest),
   * counting the slots of turns that ended since the last scheduled pump as taken.
   */
  private pump(): void {
    const now = this.now();
    const active = this.activeTenants(now);
    const waiting = active
      .filter((tenant) => tenant.queue.length > 0)
      .map((tenant) => ({ tenant, debt: this.decayedDebt(tenant) }))
      .sort((a, b) => a.debt - b.debt);
    if (waiting.length === 0) return;
    const several = this.severalActive(active, now);
    const heaviest = several ? this.heaviest(active) : null;
    let nextFree = Infinity;
    for (const { tenant } of waiting) {
      const slots = !several ? Infinity : tenant === heaviest ? 1 : this.limits.tenantConcurrency;
      let taken = tenant.ended.length;
      if (several && tenant.pausedUntil > now) {
        taken = slots;
        nextFree = Math.min(nextFree, tenant.pausedUntil);
      }
      for (const job of tenant.running) {
        const freesAt = job.startedWallAt + LONG_RUNNING_MS;
        if (freesAt > now) {
          taken++;
          nextFree = Math.min(nextFree, freesAt);
        }
      }
      for (; taken < slots && tenant.queue.length > 0; taken++) this.startJob(tenant.queue.shift() as Job);
    }
    this.pumpWhenFree(nextFree - now);
  }

  /** Whether a tenant other than `tenant` is active: then its kinds are capped by their cost. */
  private contended(tenant: TenantShare): boolean {
    const now = this.now();
    return this.otherActive(tenant.tenantId, this.activeTenants(now), now);
  }

  /** Whether more than one tenant is active, here or in the machine's other api processes. */
  private severalActive(active: readonly TenantShare[], now: number): boolean {
    return this.otherActive(active[0]?.tenantId, active, now);
  }

  /**
   * Whether a tenant other than `tenantId` is active: among `active` (this process's), or reported
   * by another api process of the machine within the last {@link ACTIVE_MS}.
   */
  private otherActive(tenantId: string | undefined, active: readonly TenantShare[], now: number): boolean {
    return active.some((other) => other.tenantId !== tenantId) || this.elsewhere.otherActive(tenantId, now);
  }

  /**
   * The heaviest tenant's pause in multiples of its request's charge: {@link PAUSE_FACTOR} when
   * this process alone serves its flood; when k processes of the machine do, long enough that its
   * shares of them add up to what one process alone would give it (a third of one process).
   */
  private pauseFactor(tenantId: string, now: number): number {
    const processes = 1 + this.elsewhere.processesPressing(tenantId, now);
    return (PAUSE_FACTOR + 1) * processes - 1;
  }

  /** Tenants with a request under way or seen in the last {@link ACTIVE_MS}. */
  private activeTenants(now: number): TenantShare[] {
    return [...this.tenants.values()].filter(
      (tenant) => tenant.total > 0 || now - tenant.lastSeen < ACTIVE_MS,
    );
  }

  /** Pumps again in `delayMs`, when the first slot taken for a time frees (a long run, a pause). */
  private pumpWhenFree(delayMs: number): void {
    if (this.wakeTimer !== null) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    if (!Number.isFinite(delayMs)) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      this.schedulePump();
    }, delayMs);
    this.wakeTimer.unref?.();
  }

  /**
   * The tenant that takes turns one at a time and pauses: of the active tenants that pressed
   * within the last {@link ACTIVE_MS} (more than one request at once, waiting or running, or one
   * of a heavy kind charged {@link HEAVY_REQUEST_MS} or more), the one whose demand
   * ({@link demandOf}) is strictly above every other such tenant's; null on a tie or when none
   * pressed. By debt alone, a flood held to its share would soon weigh less than a busy neighbour
   * that pressed once, and the two would trade places. A client that sends short requests one after
   * the other never presses, however busy it keeps the process: each of its requests holds another
   * tenant's for a fraction of a millisecond, and slowing it would only add to its own latency.
   */
  private heaviest(active: readonly TenantShare[]): TenantShare | null {
    const now = this.now();
    let top: TenantShare | null = null;
    let topDemand = -1;
    let second = -1;
    for (const tenant of active) {
      if (now - tenant.pressedAt >= ACTIVE_MS) continue;
      const demand = this.demandOf(tenant);
      if (demand > topDemand) {
        second = topDemand;
        top = tenant;
        topDemand = demand;
      } else if (demand > second) second = demand;
    }
    return topDemand > second ? top : null;
  }

  /**
   * What a tenant asks of the process: its recent cost and the estimated cost of the requests it
   * has waiting. A flood held to its share has a low recent cost (it is paused), but a queue; a
   * busy client sending one request after the other has a high one and nothing waiting.
   */
  private demandOf(tenant: TenantShare): number {
    let waiting = 0;
    for (const job of tenant.queue) waiting += tenant.estimates.get(job.kind) ?? 0;
    return this.decayedDebt(tenant) + waiting;
  }

  private startJob(job: Job): void {
    job.startedAt = this.advance();
    job.startedWallAt = this.now();
    this.running++;
    job.tenant.running.add(job);
    job.start();
  }

  /** Drops the state of tenants idle for {@link FORGET_MS}, at most once a second. */
  private forgetIdle(now: number): void {
    if (now - this.sweptAt < ACTIVE_MS) return;
    this.sweptAt = now;
    for (const [tenantId, tenant] of this.tenants) {
      if (tenant.total === 0 && now - tenant.lastSeen > FORGET_MS) this.tenants.delete(tenantId);
    }
    this.elsewhere.sweep(now);
  }
}
