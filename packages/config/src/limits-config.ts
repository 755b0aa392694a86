import { availableParallelism } from 'node:os';
import {
  DEFAULT_IMPORT_LIMITS,
  DEFAULT_ISOLATED_TASK_NICENESS,
  DEFAULT_ISOLATED_TASKS,
  DEFAULT_TENANT_IMPORTS,
  IMPORT_LIMIT_VARIABLES,
} from '@odp/core';
import type { ImportLimits } from '@odp/core';
import { ConfigError } from './config-error.js';
import type { Config, FilesConfig, HttpConfig, ImportsConfig, ReportsConfig } from './config-types.js';
import { MILLISECONDS, parseInteger } from './value-parsers.js';
import type { Read } from './variables.js';

/**
 * Event streams one tenant may hold open per api process by default: a browser tab of each of a
 * few dozen users at once, while a replay's memory stays bounded (at most one page per stream).
 */
export const DEFAULT_TENANT_EVENT_STREAMS = 64;

/**
 * The largest model version the registry can hold: one MongoDB document is at most 16 MiB, and a
 * version is one document with its bundle.
 */
const MAX_MODEL_VERSION_BYTES = 15 * 1024 * 1024;

/** What the settings that bound the work of one request, one tenant and one process allow. */
export type LimitsConfig = Pick<
  Config,
  | 'files'
  | 'http'
  | 'dataLimits'
  | 'maxModelBytes'
  | 'modelVersions'
  | 'reports'
  | 'imports'
  | 'isolatedTasks'
  | 'apiProcesses'
  | 'isolatedTaskNiceness'
  | 'tenantEventStreams'
  | 'fairShare'
  | 'jsonLimits'
  | 'batch'
  | 'idempotencyTtlSeconds'
>;

/** Every limit (docs/configuration.md lists each with its default). */
export function parseLimits(read: Read): LimitsConfig {
  const integer = (name: Parameters<Read>[0], fallback: number, range?: Parameters<typeof parseInteger>[3]) =>
    parseInteger(name, read(name), fallback, range);
  return {
    files: parseFiles(read),
    http: parseHttp(read),
    dataLimits: {
      maxValueBytes: integer('ODP_MAX_VALUE_BYTES', 1024 * 1024),
      maxPageBytes: integer('ODP_MAX_PAGE_BYTES', 8 * 1024 * 1024),
      eventPageBytes: integer('ODP_EVENT_PAGE_BYTES', 256 * 1024),
    },
    maxModelBytes: integer('ODP_MAX_MODEL_BYTES', 256 * 1024 * 1024),
    modelVersions: {
      maxBytes: integer('ODP_MAX_MODEL_VERSION_BYTES', 8 * 1024 * 1024, {
        min: 1024,
        max: MAX_MODEL_VERSION_BYTES,
        unit: 'bytes',
      }),
      pollMs: integer('ODP_MODEL_POLL_MS', 2000, { min: 100, max: 3_600_000, unit: 'milliseconds' }),
    },
    reports: parseReports(read),
    imports: parseImports(read),
    isolatedTasks: integer('ODP_ISOLATED_TASKS', DEFAULT_ISOLATED_TASKS, { max: 256 }),
    apiProcesses: integer('ODP_API_PROCESSES', availableParallelism(), { max: 256 }),
    isolatedTaskNiceness: integer('ODP_ISOLATED_TASK_NICENESS', DEFAULT_ISOLATED_TASK_NICENESS, {
      min: 0,
      max: 19,
    }),
    tenantEventStreams: integer('ODP_TENANT_EVENT_STREAMS', DEFAULT_TENANT_EVENT_STREAMS, { max: 100_000 }),
    fairShare: {
      tenantRequests: integer('ODP_TENANT_REQUESTS', 64, { max: 100_000 }),
      tenantWorkMs: integer('ODP_TENANT_WORK_MS', 2000, { max: 3_600_000, unit: 'milliseconds' }),
      tenantConcurrency: integer('ODP_TENANT_CONCURRENCY', 4, { max: 1000 }),
    },
    jsonLimits: {
      maxMembers: integer('ODP_JSON_MAX_MEMBERS', 10_000, { max: 10_000_000 }),
      maxValues: integer('ODP_JSON_MAX_VALUES', 200_000, { max: 10_000_000 }),
    },
    batch: {
      maxOperations: integer('ODP_BATCH_MAX_OPERATIONS', 100, { max: 10_000 }),
      maxBytes: integer('ODP_BATCH_MAX_BYTES', 1024 * 1024, { max: 10 * 1024 * 1024, unit: 'bytes' }),
    },
    idempotencyTtlSeconds: integer('ODP_IDEMPOTENCY_TTL_SECONDS', 86_400, {
      max: 30 * 86_400,
      unit: 'seconds',
    }),
  };
}

function parseFiles(read: Read): FilesConfig {
  return {
    maxUploadBytes: parseInteger('ODP_MAX_UPLOAD_BYTES', read('ODP_MAX_UPLOAD_BYTES'), 100 * 1024 * 1024),
    unclaimedUploadTtlSeconds: parseInteger(
      'ODP_UNCLAIMED_UPLOAD_TTL_SECONDS',
      read('ODP_UNCLAIMED_UPLOAD_TTL_SECONDS'),
      24 * 60 * 60,
    ),
    sweepIntervalSeconds: parseInteger(
      'ODP_UPLOAD_SWEEP_INTERVAL_SECONDS',
      read('ODP_UPLOAD_SWEEP_INTERVAL_SECONDS'),
      5 * 60,
    ),
  };
}

/** The server's timeouts; the headers must be due no later than the whole request. */
function parseHttp(read: Read): HttpConfig {
  const http: HttpConfig = {
    headersTimeoutMs: parseInteger(
      'ODP_HTTP_HEADERS_TIMEOUT_MS',
      read('ODP_HTTP_HEADERS_TIMEOUT_MS'),
      20_000,
    ),
    requestTimeoutMs: parseInteger(
      'ODP_HTTP_REQUEST_TIMEOUT_MS',
      read('ODP_HTTP_REQUEST_TIMEOUT_MS'),
      60_000,
    ),
    keepAliveTimeoutMs: parseInteger(
      'ODP_HTTP_KEEP_ALIVE_TIMEOUT_MS',
      read('ODP_HTTP_KEEP_ALIVE_TIMEOUT_MS'),
      5_000,
    ),
  };
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    throw new ConfigError(
      'ODP_HTTP_HEADERS_TIMEOUT_MS',
      `must not exceed ODP_HTTP_REQUEST_TIMEOUT_MS (${http.requestTimeoutMs})`,
    );
  }
  return http;
}

function parseReports(read: Read): ReportsConfig {
  return {
    memoryMb: parseInteger('ODP_REPORT_MEMORY_MB', read('ODP_REPORT_MEMORY_MB'), 256, {
      min: 16,
      max: 16_384,
    }),
    timeoutMs: parseInteger('ODP_REPORT_TIMEOUT_MS', read('ODP_REPORT_TIMEOUT_MS'), 30_000, MILLISECONDS),
    tenantConcurrent: parseInteger('ODP_TENANT_REPORTS', read('ODP_TENANT_REPORTS'), 2, { max: 1000 }),
  };
}

/** `ODP_TENANT_IMPORTS` and each import limit of `IMPORT_LIMIT_VARIABLES`, any positive integer. */
function parseImports(read: Read): ImportsConfig {
  const limits = Object.fromEntries(
    Object.entries(IMPORT_LIMIT_VARIABLES).map(([limit, name]) => [
      limit,
      parseInteger(name, read(name), DEFAULT_IMPORT_LIMITS[limit as keyof ImportLimits]),
    ]),
  ) as unknown as ImportLimits;
  const perTenant = parseInteger('ODP_TENANT_IMPORTS', read('ODP_TENANT_IMPORTS'), DEFAULT_TENANT_IMPORTS, {
    max: 1000,
  });
  return { ...limits, perTenant };
}
