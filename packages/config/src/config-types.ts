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
  /** How tenants' models are kept as versions in the platform registry (docs/model-format.md). */
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
   * How many processes serve the api on this machine (`ODP_API_PROCESSES`, default one per core):
   * they share the listening port and the data directory (docs/architecture.md, "Api processes");
   * 1 serves it from the process that started it.
   */
  readonly apiProcesses: number;
  /**
   * How much lower than the api's own the processor priority of an isolated task's process is, as
   * a nice increment (`ODP_ISOLATED_TASK_NICENESS`; 0: the same): on a machine the tasks share with
   * the api, the api's requests are scheduled first and the tasks take the time left.
   */
  readonly isolatedTaskNiceness: number;
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
   * by the processes of one machine; `agenda`, agenda's jobs in the MongoDB of `ODP_MONGODB_URL`, database `ODP_JOBS_AGENDA_DATABASE`
   * (default `odp_jobs`), shared by any number of machines.
   */
  readonly jobs: JobsConfig;
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
  /**
   * Byte budget of one page of an event stream's replay (at least one event): the work one turn of
   * the event loop does for a stream, so another tenant's request waits at most for about that.
   */
  readonly eventPageBytes: number;
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

/** Each tenant's share of one api process (docs/configuration.md, "Fair share between tenants"). */
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

/** The background worker (docs/worker.md). */
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

/** The job queue (`ODP_JOBS`), see {@link Config.jobs}. */
export type JobsConfig =
  { readonly kind: 'sqlite' } | { readonly kind: 'agenda'; readonly url: string; readonly database: string };

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
