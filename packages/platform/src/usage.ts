/**
 * The usage of external services of a platform process (docs/worker.md, Usage records): the
 * window counters the configuration names (Redis with `ODP_REDIS_URL`, so every worker and api
 * instance shares them; otherwise `<ODP_DATA_DIR>/counters.sqlite`, shared by the processes of one
 * machine), and the {@link ServiceUsage} that applies `ODP_RATE_LIMITS` and writes each call's
 * `system.serviceCallLog` record into its tenant.
 */
import { countersDatabasePath } from '@odp/config';
import type { Config } from '@odp/config';
import type { WindowCounters } from '@odp/core';
import { ServiceUsage } from '@odp/gateways';
import { SERVICE_OF_GATEWAY } from '@odp/job-runner';
import { SqliteWindowCounters } from '@odp/store-sqlite';
import type { Logger } from './log.js';
import { openOnRedis } from './redis.js';
import { writeSystemRecord } from './tenant-runtime.js';
import type { TenantRuntimes } from './tenant-runtime.js';

const SERVICE_CALL_LOG_CLASS = 'system.serviceCallLog';

/** The counters adapter of the configuration; ConfigError naming ODP_REDIS_URL when Redis does not answer. */
export async function openWindowCounters(
  config: Pick<Config, 'redisUrl' | 'dataDir'>,
): Promise<WindowCounters> {
  const { redisUrl } = config;
  if (redisUrl === null) return new SqliteWindowCounters(countersDatabasePath(config));
  return openOnRedis(({ openRedisWindowCounters }) => openRedisWindowCounters(redisUrl));
}

/**
 * The ServiceUsage of the configuration on `counters`, with the clock `now`. A usage record that
 * cannot be written (the tenant was deleted meanwhile) is logged, never fails the call it records.
 */
export function serviceUsage(
  config: Pick<Config, 'rateLimits' | 'exchangeRates'>,
  counters: WindowCounters,
  runtimes: TenantRuntimes,
  log: Logger,
  now: () => Date,
): ServiceUsage {
  return new ServiceUsage({
    counters,
    limits: config.rateLimits,
    exchangeRates: config.exchangeRates,
    now,
    write: async (tenantId, record) => {
      try {
        await writeSystemRecord(runtimes, tenantId, SERVICE_CALL_LOG_CLASS, { ...record });
      } catch (error) {
        log.error('usage record not written', { tenantId, service: record.service, error: String(error) });
      }
    },
  });
}

/**
 * For the object service of a tenant: refuses a MANUAL run of a gateway script whose external
 * service has reached its rate limit (429), before anything is queued.
 */
export function gatewayLimitOf(usage: ServiceUsage, tenantId: string): (gateway: string) => Promise<void> {
  return async (gateway) => {
    const service = SERVICE_OF_GATEWAY[gateway];
    if (service !== undefined) await usage.assertWithinLimit(tenantId, service);
  };
}
