import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  DEFAULT_IMPORT_LIMITS,
  DEFAULT_ISOLATED_TASKS,
  DEFAULT_TENANT_IMPORTS,
  EXTERNAL_SERVICES,
  IMPORT_LIMIT_VARIABLES,
  parseAllowListEntry,
} from '@odp/core';
import type { ImportLimits } from '@odp/core';

/**
 * The platform's configuration, read from the environment in exactly one place (`loadConfig`).
 * Every other module receives the typed object; nothing else reads `process.env`.
 */
export interface Config {
  /** Port the api listens on. */
  readonly port: number;
  /** Public base address without trailing slash; used in links and signed URLs. */
  readonly baseUrl: string;
  /** Absolute path of the embedded data directory. */
  readonly dataDir: string;
  readonly store: StoreConfig;
  readonly search: SearchConfig;
  readonly blobs: BlobsConfig;
  readonly files: FilesConfig;
  /** Redis address for rate limits, event fan-out and locks; null runs them in-process. */
  readonly redisUrl: string | null;
  /** Sign-in through an external identity provider; null when not configured (tokens are refused). */
  readonly auth: AuthConfig | null;
  /** Key material that encrypts SECRET fields and secret values (at least 32 characters). */
  readonly secretKey: string;
  /** Mail server for the Mail and UserInvitation gateways; null when not configured. */
  readonly smtpUrl: string | null;
  /** Timeouts of the HTTP server, so slow or idle clients cannot hold connections. */
  readonly http: HttpConfig;
  /** What one stored value and one list page may weigh. */
  readonly dataLimits: DataLimitsConfig;
  /**
   * Most bytes read from a tenant's model repository, all files together (`ODP_MAX_MODEL_BYTES`): a
   * repository past it is refused, so a push cannot make the api hold gigabytes while loading.
   */
  readonly maxModelBytes: number;
  /** How tenants' models are kept as versions in the platform registry (docs/models.md). */
  readonly modelVersions: ModelVersionsConfig;
  /** Limits of report rendering (docs/reports.md). */
  readonly reports: ReportsConfig;
  /** Spreadsheet and CSV imports (docs/excel.md, "Limits"). */
  readonly imports: ImportsConfig;
  /**
   * Isolated tasks (an import's parse, a report's rendering) one api process runs at once, each a
   * child process with a heap of its own (`ODP_ISOLATED_TASKS`); more wait their turn.
   */
  readonly isolatedTasks: number;
  /**
   * How many change event streams of one tenant one api process keeps open at once
   * (`ODP_TENANT_EVENT_STREAMS`); one more answers 429 with `Retry-After` (docs/events.md).
   */
  readonly tenantEventStreams: number;
  /** Each tenant's fair share of an api process (docs/configuration.md, "Fair share between tenants"). */
  readonly fairShare: FairShareConfig;
  /** What one JSON request body may hold, beyond its size and nesting. */
  readonly jsonLimits: JsonLimitsConfig;
  /** What one batch request may hold (`POST /data/{tenant}/batch`). */
  readonly batch: BatchConfig;
  /**
   * How long a create's or batch's `Idempotency-Key` is remembered, in seconds
   * (`ODP_IDEMPOTENCY_TTL_SECONDS`, 86400): a retry within it answers the first response.
   */
  readonly idempotencyTtlSeconds: number;
  /** From address of the e-mails the platform sends (`ODP_MAIL_FROM`). */
  readonly mailFrom: string;
  /**
   * Where jobs are queued (`ODP_JOBS`): `sqlite` (default), the file `<dataDir>/jobs.sqlite` shared
   * by the processes of one machine; `redis`, the Redis of `ODP_REDIS_URL`, shared by any number of
   * machines (docs/worker.md), under the key prefix `ODP_JOBS_REDIS_PREFIX` (default `odp:jobs:`);
   * `agenda`, agenda's jobs in the MongoDB of `ODP_MONGODB_URL`, database `ODP_JOBS_AGENDA_DATABASE`
   * (default `odp_jobs`), shared by any number of machines.
   */
  readonly jobs:
    | { readonly kind: 'sqlite' }
    | { readonly kind: 'redis'; readonly url: string; readonly prefix: string }
    | { readonly kind: 'agenda'; readonly url: string; readonly database: string };
  readonly worker: WorkerConfig;
  readonly warehouse: WarehouseConfig;
  /**
   * Rate limits of external services (`ODP_RATE_LIMITS`, the `<platform>.rate-limits` block of the
   * interface spec), by service name; a service without an entry is not limited.
   */
  readonly rateLimits: Readonly<Record<string, ServiceRateLimit>>;
  /**
   * Exchange rates (`ODP_EXCHANGE_RATES`, the `<platform>.exchange-rates` block) by currency code:
   * the `cost` of a usage record divided by its currency's rate is its `costLocal` in EUR.
   */
  readonly exchangeRates: Readonly<Record<string, number>>;
}

/** One entry of `<platform>.rate-limits.services` (interface spec, Rate limits for external services). */
export interface ServiceRateLimit {
  /** Calls per window; one more is refused (429 to the triggering script or import). */
  readonly calls: number;
  /** The window: the current UTC hour or day; its counters start at zero when it rolls over. */
  readonly window: 'HOURS' | 'DAYS';
  /** Units (tokens, pages) per window; once reached, further calls are refused. null: not limited. */
  readonly units: number | null;
  /** Monthly spend budget in EUR; informational (shown with the usage aggregations). */
  readonly budgetEur: number | null;
}

export interface ModelVersionsConfig {
  /**
   * Largest model version stored, in bytes of its bundle (`ODP_MAX_MODEL_VERSION_BYTES`): a larger
   * model is refused (422, `odp` exit 1) and never becomes current.
   */
  readonly maxBytes: number;
  /**
   * How often each api process reads the registry's current model versions (`ODP_MODEL_POLL_MS`):
   * the fallback that switches an instance that missed an announcement, and the only signal between
   * processes without Redis.
   */
  readonly pollMs: number;
}

export interface HttpConfig {
  /** Time a client has to send the complete request headers (Node's `headersTimeout`). */
  readonly headersTimeoutMs: number;
  /** Time a client has to send the complete request, headers and body (`requestTimeout`). */
  readonly requestTimeoutMs: number;
  /** Time an idle keep-alive connection stays open for a next request (`keepAliveTimeout`). */
  readonly keepAliveTimeoutMs: number;
}

/** The limits of every import, and how many one tenant may run at once in one process. */
export interface ImportsConfig extends ImportLimits {
  /** Imports one tenant may have running in one api process (`ODP_TENANT_IMPORTS`); one more gets 429. */
  readonly perTenant: number;
}

export interface DataLimitsConfig {
  /** Largest stored form of one field value (UTF-8 bytes of its JSON); larger values get 400. */
  readonly maxValueBytes: number;
  /** Byte budget of one list page; a page that would exceed it is shortened (at least one object). */
  readonly maxPageBytes: number;
}

/**
 * Report documents render in a process of their own within these limits (docs/reports.md), so that one
 * tenant's report can neither block the api nor exhaust its memory.
 */
export interface ReportsConfig {
  /** Heap of one rendering, in MiB (`ODP_REPORT_MEMORY_MB`, 256). */
  readonly memoryMb: number;
  /** Time one rendering may take, worker start included (`ODP_REPORT_TIMEOUT_MS`, 30000). */
  readonly timeoutMs: number;
  /** Renderings one tenant may have under way in one api process (`ODP_TENANT_REPORTS`, 2). */
  readonly tenantConcurrent: number;
}

/** The background worker (docs/worker.md). */
export interface FairShareConfig {
  /** Requests of one tenant under way (waiting or running) in one process, every kind together. */
  readonly tenantRequests: number;
  /** Estimated milliseconds of work of one kind one tenant may have under way in one process. */
  readonly tenantWorkMs: number;
  /** Requests of one tenant running at once while other tenants are active. */
  readonly tenantConcurrency: number;
}

/** The bounds of one batch request: larger ones answer 413 before any operation runs. */
export interface BatchConfig {
  /** Operations one batch may hold (`ODP_BATCH_MAX_OPERATIONS`, 100). */
  readonly maxOperations: number;
  /** Bytes of one batch's operations as compact JSON (`ODP_BATCH_MAX_BYTES`, 1 MiB). */
  readonly maxBytes: number;
}

export interface JsonLimitsConfig {
  /** Members one object of a JSON body may have. */
  readonly maxMembers: number;
  /** Values (objects, arrays, strings, numbers, literals) one JSON body may hold in all. */
  readonly maxValues: number;
}

export interface WorkerConfig {
  /** How long an idle worker waits before looking for due jobs again (`ODP_WORKER_POLL_MS`, 1000). */
  readonly pollMs: number;
  /**
   * How long a claimed job stays with its worker (`ODP_WORKER_LEASE_MS`, 300000): a worker that dies
   * holding a job delays its re-run by up to this long. Longer than any job runs.
   */
  readonly leaseMs: number;
  /** Jobs one worker process runs at the same time (`ODP_WORKER_CONCURRENCY`, 4). */
  readonly concurrency: number;
  /** How often the worker relays jobs left in tenant outboxes (`ODP_WORKER_SWEEP_MS`, 10000). */
  readonly sweepMs: number;
  /** Days a finished (done or failed) job stays listed before the sweep removes it (`ODP_JOB_RETENTION_DAYS`, 30). */
  readonly retentionDays: number;
  /**
   * Host names and CIDRs outbound gateway calls may reach although they are loopback, private or
   * link-local (`ODP_GATEWAY_ALLOWED_NETWORKS`, comma-separated; empty by default).
   */
  readonly allowedNetworks: readonly string[];
  /**
   * A PEM file of certificate authorities gateway calls trust besides the system's (an internal CA
   * of on-premises receivers; `ODP_GATEWAY_CA_FILE`); null when not set.
   */
  readonly caFile: string | null;
}

export type StoreConfig = { readonly kind: 'sqlite' } | { readonly kind: 'mongodb'; readonly url: string };
export type SearchConfig =
  { readonly kind: 'sqlite' } | { readonly kind: 'elasticsearch'; readonly url: string };
export type BlobsConfig =
  | { readonly kind: 'fs' }
  | {
      readonly kind: 's3';
      readonly endpoint: string | null;
      readonly bucket: string;
      readonly accessKey: string | null;
      readonly secretKey: string | null;
      readonly region: string;
    };

/**
 * The warehouse of the DatastoreReplicator gateway (`ODP_WAREHOUSE`): `duckdb` (default), embedded
 * DuckDB files under `<dataDir>/warehouse`; `bigquery`, the tables in the tenants' own Google
 * BigQuery projects, through the API at `apiEndpoint` (`ODP_BIGQUERY_API_ENDPOINT`; Google's when
 * null), each MERGE job cancelled by BigQuery after `jobTimeoutSeconds`
 * (`ODP_BIGQUERY_JOB_TIMEOUT_SECONDS`, 300).
 */
export type WarehouseConfig =
  | { readonly kind: 'duckdb' }
  | { readonly kind: 'bigquery'; readonly apiEndpoint: string | null; readonly jobTimeoutSeconds: number };

/** Uploads of FILE and IMAGE fields (docs/files.md). */
export interface FilesConfig {
  /** Largest accepted upload in bytes (`ODP_MAX_UPLOAD_BYTES`); larger ones answer 413. */
  readonly maxUploadBytes: number;
  /** Unclaimed uploads older than this are deleted (`ODP_UNCLAIMED_UPLOAD_TTL_SECONDS`). */
  readonly unclaimedUploadTtlSeconds: number;
  /** How often the api sweeps unclaimed uploads (`ODP_UPLOAD_SWEEP_INTERVAL_SECONDS`). */
  readonly sweepIntervalSeconds: number;
}

export interface AuthConfig {
  /** Accepted `iss` claim. */
  readonly issuer: string;
  /** Value the `aud` claim must contain. */
  readonly audience: string;
  /** Where the identity provider publishes its signing keys. */
  readonly jwksUrl: string;
}

/** A bad configuration value. The message is one line that names the variable and never its secret value. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

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
  'ODP_MAX_MODEL_BYTES',
  'ODP_MAX_MODEL_VERSION_BYTES',
  'ODP_MODEL_POLL_MS',
  'ODP_REPORT_MEMORY_MB',
  'ODP_REPORT_TIMEOUT_MS',
  'ODP_TENANT_REPORTS',
  'ODP_TENANT_IMPORTS',
  'ODP_ISOLATED_TASKS',
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
  'ODP_JOBS_REDIS_PREFIX',
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
type Read = (name: ConfigVariable) => string | null;

/**
 * `ODP_*` names that belong to the test and engine tooling (tooling/engines/README.md), which share
 * the shell with the platform: the platform ignores them. Every other `ODP_*` name it does not read
 * is refused, so a misspelt or unimplemented variable stops the start instead of being ignored.
 */
const TOOLING_VARIABLES = /^ODP_(TEST_|ENGINES_|ELASTICSEARCH_VERSION$)/;

/** ConfigError for the first `ODP_*` variable of `env` that is neither the platform's nor the tooling's. */
function refuseUnknownVariables(env: Env): void {
  const known: ReadonlySet<string> = new Set(CONFIG_VARIABLES);
  const unknown = Object.keys(env)
    .filter((name) => name.startsWith('ODP_') && !known.has(name) && !TOOLING_VARIABLES.test(name))
    .sort();
  if (unknown[0] !== undefined) {
    throw new ConfigError(unknown[0], 'is not a configuration variable (docs/configuration.md lists them)');
  }
}

/** Name of the file inside the data directory that holds the generated `ODP_SECRET_KEY`. */
export const SECRET_KEY_FILE = 'secret.key';
const MIN_SECRET_KEY_LENGTH = 32;

/**
 * Reads and validates the environment. Throws ConfigError on the first bad value, and on an `ODP_*`
 * variable that is not one of {@link CONFIG_VARIABLES} (tooling variables aside).
 *
 * Side effect: when `ODP_SECRET_KEY` is absent, the key is read from `<dataDir>/secret.key`, and on
 * first start generated into that file (mode 0600), creating the data directory.
 */
export function loadConfig(env: Env = process.env): Config {
  refuseUnknownVariables(env);
  const read: Read = (name) => {
    const value = env[name]?.trim();
    return value ? value : null;
  };

  const port = parseInteger('PORT', read('PORT'), 8080, { max: 65535 });
  const baseUrl = parseUrl('ODP_BASE_URL', read('ODP_BASE_URL') ?? `http://localhost:${port}`, [
    'http:',
    'https:',
  ]);
  const dataDir = path.resolve(read('ODP_DATA_DIR') ?? './.odp');

  const storeKind = parseChoice('ODP_STORE', read('ODP_STORE'), ['sqlite', 'mongodb'], 'sqlite');
  const store: StoreConfig =
    storeKind === 'mongodb'
      ? {
          kind: 'mongodb',
          url: parseUrl('ODP_MONGODB_URL', required(read, 'ODP_MONGODB_URL', 'ODP_STORE=mongodb'), [
            'mongodb:',
            'mongodb+srv:',
          ]),
        }
      : { kind: 'sqlite' };

  const searchKind = parseChoice('ODP_SEARCH', read('ODP_SEARCH'), ['sqlite', 'elasticsearch'], 'sqlite');
  const search: SearchConfig =
    searchKind === 'elasticsearch'
      ? {
          kind: 'elasticsearch',
          url: parseUrl(
            'ODP_ELASTICSEARCH_URL',
            required(read, 'ODP_ELASTICSEARCH_URL', 'ODP_SEARCH=elasticsearch'),
            ['http:', 'https:'],
          ),
        }
      : { kind: 'sqlite' };

  const blobsKind = parseChoice('ODP_BLOBS', read('ODP_BLOBS'), ['fs', 's3'], 'fs');
  const s3Endpoint = read('ODP_S3_ENDPOINT');
  const blobs: BlobsConfig =
    blobsKind === 's3'
      ? {
          kind: 's3',
          endpoint: s3Endpoint === null ? null : parseUrl('ODP_S3_ENDPOINT', s3Endpoint, ['http:', 'https:']),
          bucket: required(read, 'ODP_S3_BUCKET', 'ODP_BLOBS=s3'),
          accessKey: read('ODP_S3_ACCESS_KEY'),
          secretKey: read('ODP_S3_SECRET_KEY'),
          region: read('ODP_S3_REGION') ?? 'us-east-1',
        }
      : { kind: 'fs' };

  const files: FilesConfig = {
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

  const redis = read('ODP_REDIS_URL');
  const redisUrl = redis === null ? null : parseUrl('ODP_REDIS_URL', redis, ['redis:', 'rediss:']);
  const smtp = read('ODP_SMTP_URL');
  const jobsKind = parseChoice('ODP_JOBS', read('ODP_JOBS'), ['sqlite', 'redis', 'agenda'], 'sqlite');
  const jobs: Config['jobs'] =
    jobsKind === 'sqlite'
      ? { kind: 'sqlite' }
      : jobsKind === 'redis'
        ? {
            kind: 'redis',
            url: redisUrl ?? required(read, 'ODP_REDIS_URL', 'ODP_JOBS=redis'),
            prefix: read('ODP_JOBS_REDIS_PREFIX') ?? 'odp:jobs:',
          }
        : {
            kind: 'agenda',
            url: parseUrl('ODP_MONGODB_URL', required(read, 'ODP_MONGODB_URL', 'ODP_JOBS=agenda'), [
              'mongodb:',
              'mongodb+srv:',
            ]),
            database: parseDatabaseName(read('ODP_JOBS_AGENDA_DATABASE') ?? 'odp_jobs'),
          };

  return {
    port,
    baseUrl,
    dataDir,
    store,
    search,
    blobs,
    files,
    redisUrl,
    auth: parseAuth(read),
    secretKey: resolveSecretKey(read('ODP_SECRET_KEY'), dataDir),
    smtpUrl: smtp === null ? null : parseUrl('ODP_SMTP_URL', smtp, ['smtp:', 'smtps:']),
    http: parseHttp(read),
    dataLimits: {
      maxValueBytes: parseInteger('ODP_MAX_VALUE_BYTES', read('ODP_MAX_VALUE_BYTES'), 1024 * 1024),
      maxPageBytes: parseInteger('ODP_MAX_PAGE_BYTES', read('ODP_MAX_PAGE_BYTES'), 8 * 1024 * 1024),
    },
    maxModelBytes: parseInteger('ODP_MAX_MODEL_BYTES', read('ODP_MAX_MODEL_BYTES'), 256 * 1024 * 1024),
    modelVersions: {
      maxBytes: parseInteger(
        'ODP_MAX_MODEL_VERSION_BYTES',
        read('ODP_MAX_MODEL_VERSION_BYTES'),
        8 * 1024 * 1024,
        { min: 1024, max: MAX_MODEL_VERSION_BYTES, unit: 'bytes' },
      ),
      pollMs: parseInteger('ODP_MODEL_POLL_MS', read('ODP_MODEL_POLL_MS'), 2000, {
        min: 100,
        max: 3_600_000,
        unit: 'milliseconds',
      }),
    },
    reports: parseReports(read),
    imports: parseImports(read),
    isolatedTasks: parseInteger('ODP_ISOLATED_TASKS', read('ODP_ISOLATED_TASKS'), DEFAULT_ISOLATED_TASKS, {
      max: 256,
    }),
    tenantEventStreams: parseInteger(
      'ODP_TENANT_EVENT_STREAMS',
      read('ODP_TENANT_EVENT_STREAMS'),
      DEFAULT_TENANT_EVENT_STREAMS,
      { max: 100_000 },
    ),
    fairShare: {
      tenantRequests: parseInteger('ODP_TENANT_REQUESTS', read('ODP_TENANT_REQUESTS'), 64, { max: 100_000 }),
      tenantWorkMs: parseInteger('ODP_TENANT_WORK_MS', read('ODP_TENANT_WORK_MS'), 2000, {
        max: 3_600_000,
        unit: 'milliseconds',
      }),
      tenantConcurrency: parseInteger('ODP_TENANT_CONCURRENCY', read('ODP_TENANT_CONCURRENCY'), 4, {
        max: 1000,
      }),
    },
    jsonLimits: {
      maxMembers: parseInteger('ODP_JSON_MAX_MEMBERS', read('ODP_JSON_MAX_MEMBERS'), 10_000, {
        max: 10_000_000,
      }),
      maxValues: parseInteger('ODP_JSON_MAX_VALUES', read('ODP_JSON_MAX_VALUES'), 200_000, {
        max: 10_000_000,
      }),
    },
    batch: {
      maxOperations: parseInteger('ODP_BATCH_MAX_OPERATIONS', read('ODP_BATCH_MAX_OPERATIONS'), 100, {
        max: 10_000,
      }),
      maxBytes: parseInteger('ODP_BATCH_MAX_BYTES', read('ODP_BATCH_MAX_BYTES'), 1024 * 1024, {
        max: 10 * 1024 * 1024,
        unit: 'bytes',
      }),
    },
    idempotencyTtlSeconds: parseInteger(
      'ODP_IDEMPOTENCY_TTL_SECONDS',
      read('ODP_IDEMPOTENCY_TTL_SECONDS'),
      86_400,
      { max: 30 * 86_400, unit: 'seconds' },
    ),
    mailFrom: parseMailFrom(read('ODP_MAIL_FROM'), baseUrl),
    jobs,
    worker: {
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
    },
    warehouse: parseWarehouse(read),
    rateLimits: parseRateLimits(read('ODP_RATE_LIMITS')),
    exchangeRates: parseExchangeRates(read('ODP_EXCHANGE_RATES')),
  };
}

/** A JSON object variable; ConfigError naming it when the value is not one. */
function parseJsonObject(name: string, raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConfigError(name, 'is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(name, 'must be a JSON object');
  }
  return value as Record<string, unknown>;
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

function parseWarehouse(read: Read): WarehouseConfig {
  if (parseChoice('ODP_WAREHOUSE', read('ODP_WAREHOUSE'), ['duckdb', 'bigquery'], 'duckdb') === 'duckdb')
    return { kind: 'duckdb' };
  const endpoint = read('ODP_BIGQUERY_API_ENDPOINT');
  return {
    kind: 'bigquery',
    apiEndpoint:
      endpoint === null ? null : parseUrl('ODP_BIGQUERY_API_ENDPOINT', endpoint, ['http:', 'https:']),
    jobTimeoutSeconds: parseInteger(
      'ODP_BIGQUERY_JOB_TIMEOUT_SECONDS',
      read('ODP_BIGQUERY_JOB_TIMEOUT_SECONDS'),
      300,
      { max: 21_600, unit: 'seconds' },
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

/** `address@host` or `Name <address@host>`; default `no-reply@<host of the base URL>`. */
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

function parseMailFrom(raw: string | null, baseUrl: string): string {
  if (raw === null) return `no-reply@${new URL(baseUrl).hostname}`;
  if (!/^([^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(raw)) {
    throw new ConfigError('ODP_MAIL_FROM', 'must be an e-mail address or "Name <address>"');
  }
  return raw;
}

function readableFile(name: string, raw: string | null): string | null {
  if (raw === null) return null;
  const file = path.resolve(raw);
  try {
    readFileSync(file);
  } catch {
    throw new ConfigError(name, `cannot read ${file}`);
  }
  return file;
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

function required(read: Read, name: ConfigVariable, because: string): string {
  const value = read(name);
  if (value === null) throw new ConfigError(name, `is required when ${because}`);
  return value;
}

/**
 * An integer variable: `fallback` when unset, else digits only, from `min` to `max`. Without `max`,
 * any positive integer. `unit` names what it counts in the message ("a number of days").
 */
function parseInteger(
  name: string,
  raw: string | null,
  fallback: number,
  range: { readonly min?: number; readonly max?: number; readonly unit?: string } = {},
): number {
  if (raw === null) return fallback;
  const { min = 1, max, unit } = range;
  const value = Number(raw);
  if (
    !/^\d+$/.test(raw) ||
    !Number.isSafeInteger(value) ||
    value < min ||
    (max !== undefined && value > max)
  ) {
    const expected =
      max === undefined
        ? 'a positive integer'
        : `${unit ? `a number of ${unit}` : 'an integer'} from ${min} to ${max}`;
    throw new ConfigError(name, `must be ${expected} (got "${raw}")`);
  }
  return value;
}

/**
 * The largest model version the registry can hold: one MongoDB document is at most 16 MiB, and a
 * version is one document with its bundle.
 */
const MAX_MODEL_VERSION_BYTES = 15 * 1024 * 1024;

/**
 * Event streams one tenant may hold open per api process by default: a browser tab of each of a
 * few dozen users at once, while a replay's memory stays bounded (at most one page per stream).
 */
export const DEFAULT_TENANT_EVENT_STREAMS = 64;

/** The range of the worker's millisecond settings. */
const MILLISECONDS = { min: 10, max: 86_400_000, unit: 'milliseconds' } as const;

/** A MongoDB database name: letters, digits, `_` and `-`, at most 63 characters. */
function parseDatabaseName(raw: string): string {
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(raw)) {
    throw new ConfigError(
      'ODP_JOBS_AGENDA_DATABASE',
      `must be a database name of letters, digits, _ and - (got "${raw}")`,
    );
  }
  return raw;
}

function parseChoice<T extends string>(
  name: string,
  raw: string | null,
  choices: readonly T[],
  fallback: T,
): T {
  if (raw === null) return fallback;
  const choice = choices.find((c) => c === raw);
  if (choice === undefined) {
    throw new ConfigError(name, `must be one of ${choices.join(', ')} (got "${raw}")`);
  }
  return choice;
}

/** Validates a URL; the value itself is never echoed because it may carry credentials. */
function parseUrl(name: string, raw: string, protocols: readonly string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `must be a ${protocols.map((p) => p.replace(':', '')).join(' or ')} URL`);
  }
  return raw.replace(/\/+$/, '');
}

/** Sign-in is configured by all three variables together, or not at all. */
function parseAuth(read: Read): AuthConfig | null {
  const issuer = read('ODP_AUTH_ISSUER');
  const audience = read('ODP_AUTH_AUDIENCE');
  const jwksUrl = read('ODP_AUTH_JWKS_URL');
  if (issuer === null && audience === null && jwksUrl === null) return null;
  const together = 'is required when ODP_AUTH_ISSUER, ODP_AUTH_AUDIENCE or ODP_AUTH_JWKS_URL is set';
  if (issuer === null) throw new ConfigError('ODP_AUTH_ISSUER', together);
  if (audience === null) throw new ConfigError('ODP_AUTH_AUDIENCE', together);
  if (jwksUrl === null) throw new ConfigError('ODP_AUTH_JWKS_URL', together);
  return { issuer, audience, jwksUrl: parseUrl('ODP_AUTH_JWKS_URL', jwksUrl, ['http:', 'https:']) };
}

function resolveSecretKey(fromEnv: string | null, dataDir: string): string {
  if (fromEnv !== null) {
    if (fromEnv.length < MIN_SECRET_KEY_LENGTH) {
      throw new ConfigError('ODP_SECRET_KEY', `must be at least ${MIN_SECRET_KEY_LENGTH} characters long`);
    }
    return fromEnv;
  }
  const file = path.join(dataDir, SECRET_KEY_FILE);
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64url') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if (!isNodeError(error, 'EEXIST')) {
      throw new ConfigError('ODP_DATA_DIR', `cannot create the secret key file in ${dataDir}`);
    }
  }
  const stored = readFileSync(file, 'utf8').trim();
  if (stored.length < MIN_SECRET_KEY_LENGTH) {
    throw new ConfigError(
      'ODP_SECRET_KEY',
      `the key in ${file} is shorter than ${MIN_SECRET_KEY_LENGTH} characters`,
    );
  }
  return stored;
}

function isNodeError(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as NodeJS.ErrnoException).code === code;
}

/** Directory of one tenant's embedded data (documents, files): `<dataDir>/tenants/<id>`. */
export function tenantDataDir(config: Pick<Config, 'dataDir'>, tenantId: string): string {
  return path.join(config.dataDir, 'tenants', tenantId);
}

/** Root of the embedded blob store (`ODP_BLOBS=fs`): `<dataDir>/blobs`. */
export function blobsDir(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'blobs');
}

/** Path of the platform registry database (tenants, profiles, keys): `<dataDir>/platform.sqlite`. */
export function platformDatabasePath(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'platform.sqlite');
}

/** Path of the embedded rate-limit counters (without `ODP_REDIS_URL`): `<dataDir>/counters.sqlite`. */
export function countersDatabasePath(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'counters.sqlite');
}

/** Path of the embedded job queue database (jobs of every tenant): `<dataDir>/jobs.sqlite`. */
export function jobsDatabasePath(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'jobs.sqlite');
}

/**
 * Path of the buffer of the DatastoreReplicator (changes waiting for their warehouse flush):
 * `<dataDir>/replication.sqlite`.
 */
export function replicationDatabasePath(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'replication.sqlite');
}

/** Directory of the embedded warehouse (one DuckDB file per `_projectId`): `<dataDir>/warehouse`. */
export function warehouseDir(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'warehouse');
}
