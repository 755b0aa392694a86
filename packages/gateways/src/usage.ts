/**
 * Usage of external services (interface spec: Service call log, Usage records as events of external
 * calls, Rate limits for external services): every external call a gateway makes runs through
 * {@link ServiceUsage.call}, which
 *
 * 1. refuses it (a {@link ServiceLimitError}, HTTP 429) when the service's `units` for the current
 *    window are used up, or when its `calls` are: the call counter is taken atomically across every
 *    process (the {@link WindowCounters} port: SQLite on one machine, Redis across machines), so
 *    no number of workers passes the limit;
 * 2. makes the call, adds the units it consumed to the window's unit counter;
 * 3. writes one `system.serviceCallLog` record, successful or not, with its cost in the service's
 *    currency and `costLocal` in EUR from the exchange rates.
 *
 * Windows are the current UTC hour (`HOURS`) or UTC day (`DAYS`); counters are per tenant and
 * service, and start at zero when the window rolls over. {@link ServiceUsage.assertWithinLimit} is the same
 * refusal without a call: what `POST /scripts/...` and an import ask before queueing work.
 */
import { RateLimitedError } from '@odp/core';
import type { WindowCounters } from '@odp/core';

/** One entry of `<platform>.rate-limits.services` (`ODP_RATE_LIMITS`). */
export interface ServiceLimit {
  readonly calls: number;
  readonly window: 'HOURS' | 'DAYS';
  readonly units: number | null;
  readonly budgetEur: number | null;
}

/** A `system.serviceCallLog` record (field names as the interface spec lists them). */
export interface ServiceCallRecord {
  readonly service: string;
  readonly timestamp: string;
  readonly success: boolean;
  readonly costUnits: number | null;
  readonly costUnit: string | null;
  readonly cost: number | null;
  readonly costLocal: number | null;
  readonly reference: string | null;
}

/** What one call consumed, as the gateway that made it knows it. */
export interface CallMeasure {
  /** Units consumed (tokens, pages); absent when the service counts none. */
  readonly units?: number;
  /** The cost in the service's currency when the tariff cannot tell it (a per-model token price). */
  readonly cost?: number;
}

/**
 * The spec's tariffs (Limits, Service names and tracked costs): currency, unit label, a price per
 * call and per unit. `null` prices are not shown by the spec (AI tokens: per model), so the calling
 * gateway passes the cost. Searches of the company registers are free: their gateway passes cost 0.
 */
export const TARIFFS: Readonly<
  Record<string, { currency: string; unit: string | null; perCall: number | null; perUnit: number }>
> = {
  'ai-model': { currency: 'USD', unit: 'tokens', perCall: null, perUnit: 0 },
  'document-conversion': { currency: 'USD', unit: 'pages', perCall: 0, perUnit: 0.01 },
  'company-register-nl': { currency: 'EUR', unit: null, perCall: 0.02, perUnit: 0 },
  'company-register-gb': { currency: 'EUR', unit: null, perCall: 0, perUnit: 0 },
  'address-enrichment': { currency: 'EUR', unit: null, perCall: 0.0707, perUnit: 0 },
  webhook: { currency: 'EUR', unit: null, perCall: 0, perUnit: 0 },
  mail: { currency: 'EUR', unit: null, perCall: 0, perUnit: 0 },
};

/** Amounts of money are kept to 6 decimals, so sums of many records stay exact enough to show. */
const round = (amount: number) => Math.round(amount * 1e6) / 1e6;

/**
 * `cost` in EUR: as is for EUR, divided by the currency's configured rate otherwise (interface spec:
 * "costLocal is the cost divided by the rate"), null without a rate or without a cost.
 */
export function costLocal(
  cost: number | null,
  currency: string,
  rates: Readonly<Record<string, number>>,
): number | null {
  if (cost === null) return null;
  if (currency === 'EUR') return cost;
  const rate = rates[currency];
  return rate === undefined ? null : round(cost / rate);
}

/** The window of `now`: its start (the key of its counters) and its end (when they reset). */
export function windowOf(window: ServiceLimit['window'], now: Date): { start: Date; end: Date } {
  const start = new Date(now);
  if (window === 'DAYS') start.setUTCHours(0, 0, 0, 0);
  else start.setUTCMinutes(0, 0, 0);
  return { start, end: new Date(start.getTime() + (window === 'DAYS' ? 86_400_000 : 3_600_000)) };
}

/** A call refused by the rate limit of its service: HTTP 429, `Retry-After` until the window ends. */
export class ServiceLimitError extends RateLimitedError {
  constructor(
    readonly service: string,
    what: string,
    resetsAt: Date,
    now: Date,
  ) {
    super(
      `The rate limit of the service ${service} is reached (${what}); it resets at ${resetsAt.toISOString()}.`,
      Math.max(1, Math.ceil((resetsAt.getTime() - now.getTime()) / 1000)),
    );
  }
}

export interface ServiceUsageDeps {
  readonly counters: WindowCounters;
  readonly limits: Readonly<Record<string, ServiceLimit>>;
  readonly exchangeRates: Readonly<Record<string, number>>;
  /** Stores the record in the tenant (must not throw: a call that was made stays made). */
  readonly write: (tenantId: string, record: ServiceCallRecord) => Promise<void>;
  readonly now: () => Date;
}

export class ServiceUsage {
  constructor(private readonly deps: ServiceUsageDeps) {}

  /** Refuses with ServiceLimitError when a call of `service` by the tenant would be refused now. */
  async assertWithinLimit(tenantId: string, service: string): Promise<void> {
    const limit = this.deps.limits[service];
    if (!limit) return;
    const now = this.deps.now();
    const { start, end } = windowOf(limit.window, now);
    const [calls = 0, units = 0] = await this.deps.counters.read(
      [counterKey(tenantId, service, 'calls', start), counterKey(tenantId, service, 'units', start)],
      now,
    );
    if (limit.units !== null && units >= limit.units) throw unitsRefusal(service, limit, end, now);
    if (calls >= limit.calls) throw callsRefusal(service, limit, end, now);
  }

  /**
   * Makes one external call of `service` for the tenant under its rate limit and logs it: `run`
   * makes the call, `measure` tells what a successful one consumed. `reference` identifies the
   * object that triggered it. ServiceLimitError (nothing called, nothing logged) when refused.
   */
  async call<T>(
    tenantId: string,
    service: string,
    reference: string | null,
    run: () => Promise<T>,
    measure: (result: T) => CallMeasure = () => ({}),
  ): Promise<T> {
    const { counters, now } = this.deps;
    const limit = this.deps.limits[service];
    const started = now();
    const window = limit ? windowOf(limit.window, started) : null;
    if (limit && window) {
      if (limit.units !== null) {
        const [units = 0] = await counters.read(
          [counterKey(tenantId, service, 'units', window.start)],
          started,
        );
        if (units >= limit.units) throw unitsRefusal(service, limit, window.end, started);
      }
      const calls = counterKey(tenantId, service, 'calls', window.start);
      if (!(await counters.take(calls, limit.calls, window.end, started))) {
        throw callsRefusal(service, limit, window.end, started);
      }
    }
    let result: T;
    try {
      result = await run();
    } catch (error) {
      await this.deps.write(tenantId, this.record(service, started, false, {}, reference));
      throw error;
    }
    const measured = measure(result);
    if (limit?.units != null && window && (measured.units ?? 0) > 0) {
      const units = counterKey(tenantId, service, 'units', window.start);
      await counters.add(units, measured.units ?? 0, window.end, now());
    }
    await this.deps.write(tenantId, this.record(service, started, true, measured, reference));
    return result;
  }

  private record(
    service: string,
    at: Date,
    success: boolean,
    measured: CallMeasure,
    reference: string | null,
  ): ServiceCallRecord {
    const tariff = TARIFFS[service] ?? { currency: 'EUR', unit: null, perCall: null, perUnit: 0 };
    const units = measured.units ?? null;
    const cost = success
      ? (measured.cost ??
        (tariff.perCall === null ? null : round(tariff.perCall + tariff.perUnit * (units ?? 0))))
      : 0;
    return {
      service,
      timestamp: at.toISOString(),
      success,
      costUnits: units,
      costUnit: units === null ? null : tariff.unit,
      cost,
      costLocal: costLocal(cost, tariff.currency, this.deps.exchangeRates),
      reference,
    };
  }
}

function counterKey(tenantId: string, service: string, counter: 'calls' | 'units', start: Date): string {
  return `${tenantId}:${service}:${counter}:${start.toISOString()}`;
}

const per = (limit: ServiceLimit) => (limit.window === 'DAYS' ? 'day' : 'hour');

function callsRefusal(service: string, limit: ServiceLimit, end: Date, now: Date): ServiceLimitError {
  const calls = `${limit.calls} call${limit.calls === 1 ? '' : 's'}`;
  return new ServiceLimitError(service, `${calls} per ${per(limit)}`, end, now);
}

function unitsRefusal(service: string, limit: ServiceLimit, end: Date, now: Date): ServiceLimitError {
  return new ServiceLimitError(service, `${limit.units} units per ${per(limit)}`, end, now);
}
