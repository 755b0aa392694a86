import { EXTERNAL_SERVICES, parseAllowListEntry } from '@odp/core';
import { ConfigError } from './config-error.js';
import type { Config, ServiceRateLimit, WorkerConfig } from './config-types.js';
import { MILLISECONDS, parseInteger, parseJsonObject, parseUrl, readableFile } from './value-parsers.js';
import type { Read } from './variables.js';

/** The settings of what the platform sends out: mail, gateway calls and the worker that makes them. */
export type OutboundConfig = Pick<Config, 'smtpUrl' | 'mailFrom' | 'worker' | 'rateLimits' | 'exchangeRates'>;

/** Mail, the worker and the gateways' limits; `baseUrl` names the default sender's host. */
export function parseOutbound(read: Read, baseUrl: string): OutboundConfig {
  const smtp = read('ODP_SMTP_URL');
  return {
    smtpUrl: smtp === null ? null : parseUrl('ODP_SMTP_URL', smtp, ['smtp:', 'smtps:']),
    mailFrom: parseMailFrom(read('ODP_MAIL_FROM'), baseUrl),
    worker: parseWorker(read),
    rateLimits: parseRateLimits(read('ODP_RATE_LIMITS')),
    exchangeRates: parseExchangeRates(read('ODP_EXCHANGE_RATES')),
  };
}

function parseWorker(read: Read): WorkerConfig {
  return {
    pollMs: parseInteger('ODP_WORKER_POLL_MS', read('ODP_WORKER_POLL_MS'), 1000, MILLISECONDS),
    leaseMs: parseInteger('ODP_WORKER_LEASE_MS', read('ODP_WORKER_LEASE_MS'), 300_000, MILLISECONDS),
    concurrency: parseInteger('ODP_WORKER_CONCURRENCY', read('ODP_WORKER_CONCURRENCY'), 4, { max: 64 }),
    sweepMs: parseInteger('ODP_WORKER_SWEEP_MS', read('ODP_WORKER_SWEEP_MS'), 10_000, MILLISECONDS),
    retentionDays: parseInteger('ODP_JOB_RETENTION_DAYS', read('ODP_JOB_RETENTION_DAYS'), 30, {
      max: 3650,
      unit: 'days',
    }),
    allowedNetworks: parseNetworks(read('ODP_GATEWAY_ALLOWED_NETWORKS')),
    caFile: readableFile('ODP_GATEWAY_CA_FILE', read('ODP_GATEWAY_CA_FILE')),
  };
}

/** `address@host` or `Name <address@host>`; default `no-reply@<host of the base URL>`. */
function parseMailFrom(raw: string | null, baseUrl: string): string {
  if (raw === null) return `no-reply@${new URL(baseUrl).hostname}`;
  if (!/^([^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(raw)) {
    throw new ConfigError('ODP_MAIL_FROM', 'must be an e-mail address or "Name <address>"');
  }
  return raw;
}

/** Comma-separated host names, addresses and CIDRs (`127.0.0.1/32`, `fd00::/8`, `hooks.internal`). */
function parseNetworks(raw: string | null): string[] {
  if (raw === null) return [];
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    if (parseAllowListEntry(entry) === null) {
      throw new ConfigError('ODP_GATEWAY_ALLOWED_NETWORKS', `"${entry}" is not a host name, address or CIDR`);
    }
  }
  return entries;
}

/**
 * `{"services": {"<service>": {"calls": 1000, "window": "HOURS"|"DAYS", "units"?: 200000,
 * "budgetEur"?: 50}}}`: the spec's `<platform>.rate-limits` block. Service names are the keys of
 * `system.externalService`; `calls` and `units` positive integers, `budgetEur` a non-negative number.
 */
function parseRateLimits(raw: string | null): Record<string, ServiceRateLimit> {
  if (raw === null) return {};
  const name = 'ODP_RATE_LIMITS';
  const block = parseJsonObject(name, raw);
  const unknownKey = Object.keys(block).find((key) => key !== 'services');
  if (unknownKey !== undefined)
    throw new ConfigError(name, `unknown member "${unknownKey}" (expected "services")`);
  const services = block['services'] ?? {};
  if (typeof services !== 'object' || services === null || Array.isArray(services)) {
    throw new ConfigError(name, '"services" must be an object of service names');
  }
  const known = new Set(EXTERNAL_SERVICES.map((service) => service.key));
  const positive = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
  const limits: Record<string, ServiceRateLimit> = {};
  for (const [service, entry] of Object.entries(services as Record<string, unknown>)) {
    const where = `services.${service}`;
    if (!known.has(service)) {
      throw new ConfigError(name, `${where}: unknown service (one of ${[...known].join(', ')})`);
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new ConfigError(name, `${where} must be an object`);
    }
    const { calls, window, units, budgetEur, ...rest } = entry as Record<string, unknown>;
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) throw new ConfigError(name, `${where}: unknown member "${extra}"`);
    if (!positive(calls)) throw new ConfigError(name, `${where}.calls must be a positive integer`);
    if (window !== 'HOURS' && window !== 'DAYS') {
      throw new ConfigError(name, `${where}.window must be "HOURS" or "DAYS"`);
    }
    if (units !== undefined && units !== null && !positive(units)) {
      throw new ConfigError(name, `${where}.units must be a positive integer`);
    }
    if (
      budgetEur !== undefined &&
      budgetEur !== null &&
      !(typeof budgetEur === 'number' && Number.isFinite(budgetEur) && budgetEur >= 0)
    ) {
      throw new ConfigError(name, `${where}.budgetEur must be a non-negative number`);
    }
    limits[service] = {
      calls: calls as number,
      window,
      units: (units as number | null | undefined) ?? null,
      budgetEur: (budgetEur as number | null | undefined) ?? null,
    };
  }
  return limits;
}

/** `{"USD": 1.08, "GBP": 0.85}`: three-letter currency codes, positive rates (the spec's block). */
function parseExchangeRates(raw: string | null): Record<string, number> {
  if (raw === null) return {};
  const name = 'ODP_EXCHANGE_RATES';
  const rates: Record<string, number> = {};
  for (const [currency, rate] of Object.entries(parseJsonObject(name, raw))) {
    if (!/^[A-Z]{3}$/.test(currency)) throw new ConfigError(name, `"${currency}" is not a currency code`);
    if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0) {
      throw new ConfigError(name, `${currency} must be a positive number`);
    }
    rates[currency] = rate;
  }
  return rates;
}
