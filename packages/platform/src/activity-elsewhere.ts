/**
 * What the machine's other api processes last reported of their tenants (cluster-activity.ts
 * carries the reports): which were active, and which of them pressed. The processes share the
 * machine's cores, so a flood served by one slows the requests another serves; the fair share of
 * each process (fair-share.ts) counts a tenant reported active within the window as active here,
 * and a tenant pressing in several processes as served by each of them.
 */

/** Which tenants are active in an api process, and which of them pressed (cluster-activity.ts). */
export interface TenantActivity {
  readonly active: readonly string[];
  readonly pressing: readonly string[];
}

export class ActivityElsewhere {
  /** When another process last reported each tenant active. */
  private readonly active = new Map<string, number>();
  /** Per tenant, the other processes that last reported it pressing, and when. */
  private readonly pressing = new Map<string, Map<string, number>>();

  /** `windowMs`: how long a report counts. */
  constructor(private readonly windowMs: number) {}

  /** Takes the report of the process named `from`, made at `now`. */
  note(from: string, activity: TenantActivity, now: number): void {
    for (const tenantId of activity.active) this.active.set(tenantId, now);
    for (const tenantId of activity.pressing) {
      let processes = this.pressing.get(tenantId);
      if (processes === undefined) this.pressing.set(tenantId, (processes = new Map()));
      processes.set(from, now);
    }
  }

  /** Whether a tenant other than `tenantId` was reported active within the window. */
  otherActive(tenantId: string | undefined, now: number): boolean {
    for (const [other, seenAt] of this.active) {
      if (other !== tenantId && now - seenAt < this.windowMs) return true;
    }
    return false;
  }

  /** How many other processes reported `tenantId` pressing within the window. */
  processesPressing(tenantId: string, now: number): number {
    let processes = 0;
    for (const seenAt of this.pressing.get(tenantId)?.values() ?? []) {
      if (now - seenAt < this.windowMs) processes++;
    }
    return processes;
  }

  /** Drops the reports older than the window. */
  sweep(now: number): void {
    for (const [tenantId, seenAt] of this.active) {
      if (now - seenAt >= this.windowMs) this.active.delete(tenantId);
    }
    for (const [tenantId, processes] of this.pressing) {
      for (const [from, seenAt] of processes) if (now - seenAt >= this.windowMs) processes.delete(from);
      if (processes.size === 0) this.pressing.delete(tenantId);
    }
  }
}
