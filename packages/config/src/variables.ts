import { IMPORT_LIMIT_VARIABLES } from '@odp/core';
import { ConfigError } from './config-error.js';

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Every variable `loadConfig` reads, each documented in docs/configuration.md (a test compares the
 * two). `read` takes only these names, so no variable is read without being listed here.
 */
export const CONFIG_VARIABLES = [
  'PORT',
  'ODP_BASE_URL',
  'ODP_DATA_DIR',
  'ODP_STORE',
  'ODP_MONGODB_URL',
  'ODP_SEARCH',
  'ODP_ELASTICSEARCH_URL',
  'ODP_BLOBS',
  'ODP_S3_ENDPOINT',
  'ODP_S3_BUCKET',
  'ODP_S3_ACCESS_KEY',
  'ODP_S3_SECRET_KEY',
  'ODP_S3_REGION',
  'ODP_MAX_UPLOAD_BYTES',
  'ODP_UNCLAIMED_UPLOAD_TTL_SECONDS',
  'ODP_UPLOAD_SWEEP_INTERVAL_SECONDS',
  'ODP_REDIS_URL',
  'ODP_AUTH_ISSUER',
  'ODP_AUTH_AUDIENCE',
  'ODP_AUTH_JWKS_URL',
  'ODP_SECRET_KEY',
  'ODP_SMTP_URL',
  'ODP_HTTP_HEADERS_TIMEOUT_MS',
  'ODP_HTTP_REQUEST_TIMEOUT_MS',
  'ODP_HTTP_KEEP_ALIVE_TIMEOUT_MS',
  'ODP_MAX_VALUE_BYTES',
  'ODP_MAX_PAGE_BYTES',
  'ODP_EVENT_PAGE_BYTES',
  'ODP_MAX_MODEL_BYTES',
  'ODP_MAX_MODEL_VERSION_BYTES',
  'ODP_MODEL_POLL_MS',
  'ODP_REPORT_MEMORY_MB',
  'ODP_REPORT_TIMEOUT_MS',
  'ODP_TENANT_REPORTS',
  'ODP_TENANT_IMPORTS',
  'ODP_ISOLATED_TASKS',
  'ODP_API_PROCESSES',
  'ODP_ISOLATED_TASK_NICENESS',
  ...Object.values(IMPORT_LIMIT_VARIABLES),
  'ODP_TENANT_EVENT_STREAMS',
  'ODP_TENANT_REQUESTS',
  'ODP_TENANT_WORK_MS',
  'ODP_TENANT_CONCURRENCY',
  'ODP_JSON_MAX_MEMBERS',
  'ODP_JSON_MAX_VALUES',
  'ODP_BATCH_MAX_OPERATIONS',
  'ODP_BATCH_MAX_BYTES',
  'ODP_IDEMPOTENCY_TTL_SECONDS',
  'ODP_MAIL_FROM',
  'ODP_JOBS',
  'ODP_JOBS_AGENDA_DATABASE',
  'ODP_WORKER_POLL_MS',
  'ODP_WORKER_LEASE_MS',
  'ODP_WORKER_CONCURRENCY',
  'ODP_WORKER_SWEEP_MS',
  'ODP_JOB_RETENTION_DAYS',
  'ODP_WAREHOUSE',
  'ODP_BIGQUERY_API_ENDPOINT',
  'ODP_BIGQUERY_JOB_TIMEOUT_SECONDS',
  'ODP_GATEWAY_ALLOWED_NETWORKS',
  'ODP_GATEWAY_CA_FILE',
  'ODP_RATE_LIMITS',
  'ODP_EXCHANGE_RATES',
] as const;
export type ConfigVariable = (typeof CONFIG_VARIABLES)[number];
export type Read = (name: ConfigVariable) => string | null;

/**
 * `ODP_*` names that belong to the test and engine tooling (tooling/engines/README.md), which share
 * the shell with the platform: the platform ignores them. Every other `ODP_*` name it does not read
 * is refused, so a misspelt or unimplemented variable stops the start instead of being ignored.
 */
const TOOLING_VARIABLES = /^ODP_(TEST_|ENGINES_|ELASTICSEARCH_VERSION$)/;

/** ConfigError for the first `ODP_*` variable of `env` that is neither the platform's nor the tooling's. */
export function refuseUnknownVariables(env: Env): void {
  const known: ReadonlySet<string> = new Set(CONFIG_VARIABLES);
  const unknown = Object.keys(env)
    .filter((name) => name.startsWith('ODP_') && !known.has(name) && !TOOLING_VARIABLES.test(name))
    .sort();
  if (unknown[0] !== undefined) {
    throw new ConfigError(unknown[0], 'is not a configuration variable (docs/configuration.md lists them)');
  }
}

/** Reads one listed variable of `env`: its trimmed value, or null when unset or blank. */
export function environmentReader(env: Env): Read {
  return (name) => {
    const value = env[name]?.trim();
    return value ? value : null;
  };
}
