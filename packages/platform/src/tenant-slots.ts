/**
 * A per-tenant cap on work of one kind under way (report renderings, imports): a tenant holds at most
 * `limit` slots at once, and asking for one more is refused at once with {@link TenantShareError}
 * (429 with `Retry-After`), so that one tenant cannot occupy the task processes and memory for its
 * kind of work while others wait.
 *
 * The cap holds across the processes that share the `shared` leases (those of one machine, through
 * the primary or the machine's lease file; of a deployment, through Redis): a slot is one lease
 * `<name>:<tenant>:<i>`, i below the limit, renewed while the work runs and released after it. A
 * process that dies loses its leases after their time. The count of this process is checked first,
 * so a tenant at its cap here is refused without asking the others.
 */
import { TenantShareError, keepHeld } from '@odp/core';
import type { Lease, LockService } from '@odp/core';

/** The leases a slot is held by. */
export interface SharedSlots {
  readonly locks: LockService;
  /** The leases' name prefix, e.g. `report-renderings`. */
  readonly name: string;
}

/** How long a slot's lease lasts without renewal: the time a dead process's slot stays taken. */
export const SLOT_LEASE_MS = 30_000;

export class TenantSlots {
  private readonly held = new Map<string, number>();

  constructor(
    private readonly limit: number,
    /** What the refusal says the tenant has too many of ("report renderings"). */
    private readonly what: string,
    /** Seconds a refused client is asked to wait. */
    private readonly retryAfterSeconds: number,
    private readonly shared: SharedSlots,
  ) {}

  /** Runs `work` holding one of the tenant's slots; TenantShareError when it holds them all. */
  async run<Result>(tenantId: string, work: () => Promise<Result>): Promise<Result> {
    const release = await this.claim(tenantId);
    try {
      return await work();
    } finally {
      await release();
    }
  }

  /**
   * Takes one of the tenant's slots for work that outlives the call (an import running in the
   * background): resolves its release, to call once when the work ends (later calls do nothing);
   * TenantShareError when the tenant holds them all.
   */
  async claim(tenantId: string): Promise<() => Promise<void>> {
    const count = this.held.get(tenantId) ?? 0;
    if (count >= this.limit) throw this.refusal();
    this.held.set(tenantId, count + 1);
    const free = () => {
      const left = (this.held.get(tenantId) ?? 1) - 1;
      if (left === 0) this.held.delete(tenantId);
      else this.held.set(tenantId, left);
    };
    let lease: Lease;
    try {
      lease = await this.takeSharedSlot(tenantId);
    } catch (error) {
      free();
      throw error;
    }
    const releaseLease = keepHeld(lease, SLOT_LEASE_MS);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      free();
      await releaseLease().catch(() => undefined);
    };
  }

  /** The first free lease of the tenant's slots; the refusal when every one is held. */
  private async takeSharedSlot(tenantId: string): Promise<Lease> {
    const { locks, name } = this.shared;
    for (let slot = 0; slot < this.limit; slot++) {
      const lease = await locks.acquire(`${name}:${tenantId}:${slot}`, SLOT_LEASE_MS);
      if (lease !== null) return lease;
    }
    throw this.refusal();
  }

  private refusal(): TenantShareError {
    return new TenantShareError(
      `This tenant already has ${this.limit} ${this.what} under way; retry after ${this.retryAfterSeconds} s.`,
      this.retryAfterSeconds,
    );
  }
}
