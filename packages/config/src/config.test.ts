import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_IMPORT_LIMITS } from '@odp/core';
import { CONFIG_VARIABLES, ConfigError, loadConfig, SECRET_KEY_FILE } from './index.js';

describe('loadConfig', () => {
  let dataDir: string;
  const secret = 'x'.repeat(32);

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-config-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const load = (env: Record<string, string>) =>
    loadConfig({ ODP_DATA_DIR: dataDir, ODP_SECRET_KEY: secret, ...env });

  it('applies the documented defaults', () => {
    const config = load({});
    expect(config).toEqual({
      port: 8080,
      baseUrl: 'http://localhost:8080',
      dataDir,
      store: { kind: 'sqlite' },
      search: { kind: 'sqlite' },
      blobs: { kind: 'fs' },
      files: { maxUploadBytes: 104857600, unclaimedUploadTtlSeconds: 86400, sweepIntervalSeconds: 300 },
      redisUrl: null,
      auth: null,
      secretKey: secret,
      smtpUrl: null,
      http: { headersTimeoutMs: 20_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000 },
      dataLimits: { maxValueBytes: 1024 * 1024, maxPageBytes: 8 * 1024 * 1024, eventPageBytes: 256 * 1024 },
      maxModelBytes: 256 * 1024 * 1024,
      modelVersions: { maxBytes: 8 * 1024 * 1024, pollMs: 2000 },
      reports: { memoryMb: 256, timeoutMs: 30_000, tenantConcurrent: 2 },
      imports: {
        maxPartBytes: 512 * 1024 * 1024,
        maxInflatedBytes: 1024 * 1024 * 1024,
        maxSharedStrings: 1_000_000,
        maxSharedStringBytes: 64 * 1024 * 1024,
        maxCellBytes: 1024 * 1024,
        maxRowBytes: 4 * 1024 * 1024,
        maxRows: 1_000_000,
        memoryMb: 256,
        timeoutSeconds: 60,
        perTenant: 2,
      },
      isolatedTasks: 4,
      apiProcesses: os.availableParallelism(),
      isolatedTaskNiceness: 5,
      tenantEventStreams: 64,
      fairShare: { tenantRequests: 64, tenantWorkMs: 2000, tenantConcurrency: 4 },
      jsonLimits: { maxMembers: 10_000, maxValues: 200_000 },
      batch: { maxOperations: 100, maxBytes: 1024 * 1024 },
      idempotencyTtlSeconds: 86_400,
      mailFrom: 'no-reply@localhost',
      jobs: { kind: 'sqlite' },
      warehouse: { kind: 'duckdb' },
      worker: {
        pollMs: 1000,
        leaseMs: 300_000,
        concurrency: 4,
        sweepMs: 10_000,
        retentionDays: 30,
        allowedNetworks: [],
        caFile: null,
      },
      rateLimits: {},
      exchangeRates: {},
    });
  });

  it('reads the rate limits and exchange rates blocks', () => {
    const config = load({
      ODP_RATE_LIMITS: JSON.stringify({
        services: {
          'ai-model': { calls: 1000, window: 'DAYS', units: 200_000, budgetEur: 50.5 },
          webhook: { calls: 60, window: 'HOURS' },
        },
      }),
      ODP_EXCHANGE_RATES: '{"USD": 1.08, "GBP": 0.85}',
    });
    expect(config.rateLimits).toEqual({
      'ai-model': { calls: 1000, window: 'DAYS', units: 200_000, budgetEur: 50.5 },
      webhook: { calls: 60, window: 'HOURS', units: null, budgetEur: null },
    });
    expect(config.exchangeRates).toEqual({ USD: 1.08, GBP: 0.85 });
  });

  it('defaults the data directory to ./.odp and the base URL to the port', () => {
    const config = loadConfig({ PORT: '9000', ODP_SECRET_KEY: secret });
    expect(config.dataDir).toBe(path.resolve('.odp'));
    expect(config.baseUrl).toBe('http://localhost:9000');
  });

  it('reads every variable', () => {
    const config = load({
      PORT: '3000',
      ODP_BASE_URL: 'https://odp.example.com/',
      ODP_STORE: 'mongodb',
      ODP_MONGODB_URL: 'mongodb://127.0.0.1:27017/odp',
      ODP_SEARCH: 'elasticsearch',
      ODP_ELASTICSEARCH_URL: 'http://127.0.0.1:9200',
      ODP_BLOBS: 's3',
      ODP_S3_ENDPOINT: 'http://127.0.0.1:9000',
      ODP_S3_BUCKET: 'files',
      ODP_S3_ACCESS_KEY: 'access',
      ODP_S3_SECRET_KEY: 'secret',
      ODP_S3_REGION: 'eu-west-1',
      ODP_MAX_UPLOAD_BYTES: '1048576',
      ODP_UNCLAIMED_UPLOAD_TTL_SECONDS: '600',
      ODP_UPLOAD_SWEEP_INTERVAL_SECONDS: '30',
      ODP_REDIS_URL: 'redis://127.0.0.1:6379',
      ODP_AUTH_ISSUER: 'https://login.example.com',
      ODP_AUTH_AUDIENCE: 'odp',
      ODP_AUTH_JWKS_URL: 'https://login.example.com/jwks',
      ODP_SMTP_URL: 'smtp://127.0.0.1:25',
      ODP_HTTP_HEADERS_TIMEOUT_MS: '1000',
      ODP_HTTP_REQUEST_TIMEOUT_MS: '2000',
      ODP_HTTP_KEEP_ALIVE_TIMEOUT_MS: '3000',
      ODP_MAX_VALUE_BYTES: '4096',
      ODP_MAX_PAGE_BYTES: '65536',
      ODP_EVENT_PAGE_BYTES: '4096',
      ODP_MAX_MODEL_BYTES: '1048576',
      ODP_REPORT_MEMORY_MB: '64',
      ODP_REPORT_TIMEOUT_MS: '5000',
      ODP_TENANT_REPORTS: '3',
      ODP_TENANT_IMPORTS: '3',
      ODP_IMPORT_MAX_ROWS: '5000',
      ODP_IMPORT_MEMORY_MB: '128',
      ODP_ISOLATED_TASKS: '6',
      ODP_API_PROCESSES: '3',
      ODP_ISOLATED_TASK_NICENESS: '5',
      ODP_TENANT_EVENT_STREAMS: '3',
      ODP_TENANT_REQUESTS: '12',
      ODP_TENANT_WORK_MS: '500',
      ODP_TENANT_CONCURRENCY: '2',
      ODP_JSON_MAX_MEMBERS: '100',
      ODP_JSON_MAX_VALUES: '1000',
      ODP_BATCH_MAX_OPERATIONS: '20',
      ODP_BATCH_MAX_BYTES: '65536',
      ODP_IDEMPOTENCY_TTL_SECONDS: '60',
      ODP_MAIL_FROM: 'ODP <no-reply@odp.example.com>',
      ODP_JOBS: 'agenda',
      ODP_JOBS_AGENDA_DATABASE: 'odp_queue',
      ODP_WORKER_POLL_MS: '50',
      ODP_WORKER_LEASE_MS: '3000',
      ODP_WORKER_SWEEP_MS: '200',
      ODP_WORKER_CONCURRENCY: '2',
      ODP_JOB_RETENTION_DAYS: '7',
      ODP_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32, hooks.internal ,fd00::/8,10.1.2.3',
      ODP_WAREHOUSE: 'bigquery',
      ODP_BIGQUERY_API_ENDPOINT: 'http://127.0.0.1:9050/',
      ODP_BIGQUERY_JOB_TIMEOUT_SECONDS: '120',
    });
    expect(config).toMatchObject({
      port: 3000,
      baseUrl: 'https://odp.example.com',
      store: { kind: 'mongodb', url: 'mongodb://127.0.0.1:27017/odp' },
      search: { kind: 'elasticsearch', url: 'http://127.0.0.1:9200' },
      blobs: {
        kind: 's3',
        endpoint: 'http://127.0.0.1:9000',
        bucket: 'files',
        accessKey: 'access',
        secretKey: 'secret',
        region: 'eu-west-1',
      },
      files: { maxUploadBytes: 1048576, unclaimedUploadTtlSeconds: 600, sweepIntervalSeconds: 30 },
      redisUrl: 'redis://127.0.0.1:6379',
      auth: {
        issuer: 'https://login.example.com',
        audience: 'odp',
        jwksUrl: 'https://login.example.com/jwks',
      },
      smtpUrl: 'smtp://127.0.0.1:25',
      http: { headersTimeoutMs: 1000, requestTimeoutMs: 2000, keepAliveTimeoutMs: 3000 },
      dataLimits: { maxValueBytes: 4096, maxPageBytes: 65536, eventPageBytes: 4096 },
      maxModelBytes: 1048576,
      apiProcesses: 3,
      reports: { memoryMb: 64, timeoutMs: 5000, tenantConcurrent: 3 },
      imports: { ...DEFAULT_IMPORT_LIMITS, maxRows: 5000, memoryMb: 128, perTenant: 3 },
      isolatedTasks: 6,
      isolatedTaskNiceness: 5,
      tenantEventStreams: 3,
      fairShare: { tenantRequests: 12, tenantWorkMs: 500, tenantConcurrency: 2 },
      jsonLimits: { maxMembers: 100, maxValues: 1000 },
      batch: { maxOperations: 20, maxBytes: 65536 },
      idempotencyTtlSeconds: 60,
      mailFrom: 'ODP <no-reply@odp.example.com>',
      jobs: { kind: 'agenda', url: 'mongodb://127.0.0.1:27017/odp', database: 'odp_queue' },
      worker: {
        pollMs: 50,
        leaseMs: 3000,
        concurrency: 2,
        sweepMs: 200,
        retentionDays: 7,
        allowedNetworks: ['127.0.0.1/32', 'hooks.internal', 'fd00::/8', '10.1.2.3'],
      },
      warehouse: { kind: 'bigquery', apiEndpoint: 'http://127.0.0.1:9050', jobTimeoutSeconds: 120 },
    });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT: must be an integer from 1 to 65535 (got "abc")'],
    [{ PORT: '70000' }, 'PORT: must be an integer from 1 to 65535 (got "70000")'],
    [{ PORT: '0' }, 'PORT: must be an integer from 1 to 65535 (got "0")'],
    [{ ODP_API_PROCESSES: '0' }, 'ODP_API_PROCESSES: must be an integer from 1 to 256 (got "0")'],
    [{ ODP_BASE_URL: 'not a url' }, 'ODP_BASE_URL: is not a valid URL'],
    [{ ODP_BASE_URL: 'ftp://x' }, 'ODP_BASE_URL: must be a http or https URL'],
    [{ ODP_STORE: 'postgres' }, 'ODP_STORE: must be one of sqlite, mongodb (got "postgres")'],
    [{ ODP_STORE: 'mongodb' }, 'ODP_MONGODB_URL: is required when ODP_STORE=mongodb'],
    [{ ODP_SEARCH: 'solr' }, 'ODP_SEARCH: must be one of sqlite, elasticsearch (got "solr")'],
    [{ ODP_SEARCH: 'elasticsearch' }, 'ODP_ELASTICSEARCH_URL: is required when ODP_SEARCH=elasticsearch'],
    [{ ODP_BLOBS: 's3' }, 'ODP_S3_BUCKET: is required when ODP_BLOBS=s3'],
    [{ ODP_JOBS: 'bull' }, 'ODP_JOBS: must be one of sqlite, agenda (got "bull")'],
    [{ ODP_JOBS: 'agenda' }, 'ODP_MONGODB_URL: is required when ODP_JOBS=agenda'],
    [
      { ODP_JOBS: 'agenda', ODP_MONGODB_URL: 'mongodb://db', ODP_JOBS_AGENDA_DATABASE: 'a.b' },
      'ODP_JOBS_AGENDA_DATABASE: must be a database name of letters, digits, _ and - (got "a.b")',
    ],
    [{ ODP_JOBS: 'redis' }, 'ODP_JOBS: must be one of sqlite, agenda (got "redis")'],
    [
      { ODP_MAX_MODEL_VERSION_BYTES: '16777216' },
      'ODP_MAX_MODEL_VERSION_BYTES: must be a number of bytes from 1024 to 15728640 (got "16777216")',
    ],
    [
      { ODP_MODEL_POLL_MS: '10' },
      'ODP_MODEL_POLL_MS: must be a number of milliseconds from 100 to 3600000 (got "10")',
    ],
    [{ ODP_BLOBS: 'gcs' }, 'ODP_BLOBS: must be one of fs, s3 (got "gcs")'],
    [{ ODP_WAREHOUSE: 'snowflake' }, 'ODP_WAREHOUSE: must be one of duckdb, bigquery (got "snowflake")'],
    [
      { ODP_WAREHOUSE: 'bigquery', ODP_BIGQUERY_API_ENDPOINT: 'bigquery.local' },
      'ODP_BIGQUERY_API_ENDPOINT: is not a valid URL',
    ],
    [
      { ODP_WAREHOUSE: 'bigquery', ODP_BIGQUERY_JOB_TIMEOUT_SECONDS: '0' },
      'ODP_BIGQUERY_JOB_TIMEOUT_SECONDS: must be a number of seconds from 1 to 21600 (got "0")',
    ],
    [{ ODP_STORE: 'MongoDB' }, 'ODP_STORE: must be one of sqlite, mongodb (got "MongoDB")'],
    [{ ODP_SEARCH: 'elastic' }, 'ODP_SEARCH: must be one of sqlite, elasticsearch (got "elastic")'],
    [{ ODP_REDIS_URL: 'not a url' }, 'ODP_REDIS_URL: is not a valid URL'],
    [{ ODP_REDIS_URL: 'http://x' }, 'ODP_REDIS_URL: must be a redis or rediss URL'],
    [{ ODP_MAX_UPLOAD_BYTES: '10MB' }, 'ODP_MAX_UPLOAD_BYTES: must be a positive integer (got "10MB")'],
    [
      { ODP_UNCLAIMED_UPLOAD_TTL_SECONDS: '0' },
      'ODP_UNCLAIMED_UPLOAD_TTL_SECONDS: must be a positive integer (got "0")',
    ],
    [
      { ODP_WORKER_LEASE_MS: '1s' },
      'ODP_WORKER_LEASE_MS: must be a number of milliseconds from 10 to 86400000 (got "1s")',
    ],
    [
      { ODP_JOB_RETENTION_DAYS: '0' },
      'ODP_JOB_RETENTION_DAYS: must be a number of days from 1 to 3650 (got "0")',
    ],
    [{ ODP_WORKER_CONCURRENCY: '0' }, 'ODP_WORKER_CONCURRENCY: must be an integer from 1 to 64 (got "0")'],
    [
      { ODP_IDEMPOTENCY_TTL_SECONDS: '0' },
      'ODP_IDEMPOTENCY_TTL_SECONDS: must be a number of seconds from 1 to 2592000 (got "0")',
    ],
    [{ ODP_MAIL_FROM: 'nobody' }, 'ODP_MAIL_FROM: must be an e-mail address or "Name <address>"'],
    [
      { ODP_WORKER_POLL_MS: '0' },
      'ODP_WORKER_POLL_MS: must be a number of milliseconds from 10 to 86400000 (got "0")',
    ],
    [
      { ODP_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/33' },
      'ODP_GATEWAY_ALLOWED_NETWORKS: "127.0.0.1/33" is not a host name, address or CIDR',
    ],
    [
      { ODP_GATEWAY_ALLOWED_NETWORKS: 'https://x' },
      'ODP_GATEWAY_ALLOWED_NETWORKS: "https://x" is not a host name, address or CIDR',
    ],
    [
      { ODP_AUTH_ISSUER: 'https://login.example.com' },
      'ODP_AUTH_AUDIENCE: is required when ODP_AUTH_ISSUER, ODP_AUTH_AUDIENCE or ODP_AUTH_JWKS_URL is set',
    ],
    [
      { ODP_AUTH_ISSUER: 'i', ODP_AUTH_AUDIENCE: 'a', ODP_AUTH_JWKS_URL: 'jwks' },
      'ODP_AUTH_JWKS_URL: is not a valid URL',
    ],
    [{ ODP_SECRET_KEY: 'short' }, 'ODP_SECRET_KEY: must be at least 32 characters long'],
    [{ ODP_MAX_VALUE_BYTES: '0' }, 'ODP_MAX_VALUE_BYTES: must be a positive integer (got "0")'],
    [{ ODP_MAX_PAGE_BYTES: '1e6' }, 'ODP_MAX_PAGE_BYTES: must be a positive integer (got "1e6")'],
    [{ ODP_EVENT_PAGE_BYTES: '0' }, 'ODP_EVENT_PAGE_BYTES: must be a positive integer (got "0")'],
    [
      { ODP_ISOLATED_TASK_NICENESS: '20' },
      'ODP_ISOLATED_TASK_NICENESS: must be an integer from 0 to 19 (got "20")',
    ],
    [
      { ODP_HTTP_KEEP_ALIVE_TIMEOUT_MS: '-1' },
      'ODP_HTTP_KEEP_ALIVE_TIMEOUT_MS: must be a positive integer (got "-1")',
    ],
    [
      { ODP_HTTP_HEADERS_TIMEOUT_MS: '5000', ODP_HTTP_REQUEST_TIMEOUT_MS: '1000' },
      'ODP_HTTP_HEADERS_TIMEOUT_MS: must not exceed ODP_HTTP_REQUEST_TIMEOUT_MS (1000)',
    ],
    [{ ODP_TENANT_REQUESTS: '0' }, 'ODP_TENANT_REQUESTS: must be an integer from 1 to 100000 (got "0")'],
    [
      { ODP_TENANT_EVENT_STREAMS: '0' },
      'ODP_TENANT_EVENT_STREAMS: must be an integer from 1 to 100000 (got "0")',
    ],
    [
      { ODP_TENANT_REQUESTS: 'many' },
      'ODP_TENANT_REQUESTS: must be an integer from 1 to 100000 (got "many")',
    ],
    [
      { ODP_TENANT_WORK_MS: '0' },
      'ODP_TENANT_WORK_MS: must be a number of milliseconds from 1 to 3600000 (got "0")',
    ],
    [
      { ODP_TENANT_CONCURRENCY: '1001' },
      'ODP_TENANT_CONCURRENCY: must be an integer from 1 to 1000 (got "1001")',
    ],
    [{ ODP_JSON_MAX_MEMBERS: '0' }, 'ODP_JSON_MAX_MEMBERS: must be an integer from 1 to 10000000 (got "0")'],
    [
      { ODP_JSON_MAX_VALUES: 'lots' },
      'ODP_JSON_MAX_VALUES: must be an integer from 1 to 10000000 (got "lots")',
    ],
    [{ ODP_REPORT_MEMORY_MB: '8' }, 'ODP_REPORT_MEMORY_MB: must be an integer from 16 to 16384 (got "8")'],
    [
      { ODP_REPORT_TIMEOUT_MS: '5' },
      'ODP_REPORT_TIMEOUT_MS: must be a number of milliseconds from 10 to 86400000 (got "5")',
    ],
    [{ ODP_TENANT_REPORTS: '0' }, 'ODP_TENANT_REPORTS: must be an integer from 1 to 1000 (got "0")'],
    [{ ODP_RATE_LIMITS: '{services:' }, 'ODP_RATE_LIMITS: is not valid JSON'],
    [{ ODP_RATE_LIMITS: '[]' }, 'ODP_RATE_LIMITS: must be a JSON object'],
    [
      { ODP_RATE_LIMITS: '{"services": {"ai": {"calls": 1, "window": "DAYS"}}}' },
      'ODP_RATE_LIMITS: services.ai: unknown service (one of ai-model, document-conversion, company-register-nl, company-register-gb, address-enrichment, webhook, mail)',
    ],
    [
      { ODP_RATE_LIMITS: '{"services": {"mail": {"calls": 0, "window": "DAYS"}}}' },
      'ODP_RATE_LIMITS: services.mail.calls must be a positive integer',
    ],
    [
      { ODP_RATE_LIMITS: '{"services": {"mail": {"calls": 5, "window": "WEEKS"}}}' },
      'ODP_RATE_LIMITS: services.mail.window must be "HOURS" or "DAYS"',
    ],
    [
      { ODP_RATE_LIMITS: '{"services": {"mail": {"calls": 5, "window": "DAYS", "units": 1.5}}}' },
      'ODP_RATE_LIMITS: services.mail.units must be a positive integer',
    ],
    [
      { ODP_RATE_LIMITS: '{"services": {"mail": {"calls": 5, "window": "DAYS", "budgetEur": -1}}}' },
      'ODP_RATE_LIMITS: services.mail.budgetEur must be a non-negative number',
    ],
    [
      { ODP_RATE_LIMITS: '{"services": {"mail": {"calls": 5, "window": "DAYS", "call": 1}}}' },
      'ODP_RATE_LIMITS: services.mail: unknown member "call"',
    ],
    [{ ODP_IMPORT_MAX_CELL_BYTES: '0' }, 'ODP_IMPORT_MAX_CELL_BYTES: must be a positive integer (got "0")'],
    [{ ODP_TENANT_IMPORTS: '1001' }, 'ODP_TENANT_IMPORTS: must be an integer from 1 to 1000 (got "1001")'],
    [{ ODP_EXCHANGE_RATES: '{"usd": 1.08}' }, 'ODP_EXCHANGE_RATES: "usd" is not a currency code'],
    [{ ODP_EXCHANGE_RATES: '{"USD": 0}' }, 'ODP_EXCHANGE_RATES: USD must be a positive number'],
  ])('refuses %j with one line naming the variable', (env, message) => {
    let thrown: unknown;
    try {
      load(env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toBe(message);
    expect(message).not.toContain('\n');
  });

  it.each(['ODP_MAX_UPLOAD_BYTE', 'ODP_STORAGE', 'ODP_LOG_LEVEL', 'ODP_AUTH_CLIENT_ID'])(
    'refuses %s, a variable the platform does not implement, naming it and not its value',
    (name) => {
      expect(() => load({ [name]: 'hunter2' })).toThrow(
        new ConfigError(name, 'is not a configuration variable (docs/configuration.md lists them)'),
      );
      expect(() => load({ [name]: 'hunter2' })).not.toThrow(/hunter2/);
    },
  );

  it('ignores the variables of the test and engine tooling, which share the shell', () => {
    expect(() =>
      load({
        ODP_TEST_REDIS_URL: 'redis://127.0.0.1:1',
        ODP_ENGINES_RUN: '/tmp/engines',
        ODP_ELASTICSEARCH_VERSION: '8.19.21',
      }),
    ).not.toThrow();
  });

  it('reads exactly the variables docs/configuration.md documents', () => {
    const doc = readFileSync(path.join(__dirname, '../../../docs/configuration.md'), 'utf8');
    const documented = doc
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]));
    expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('never echoes a secret value', () => {
    expect(() => load({ ODP_MONGODB_URL: 'x://user:hunter2@h', ODP_STORE: 'mongodb' })).toThrow(
      /^ODP_MONGODB_URL: must be a mongodb or mongodb\+srv URL$/,
    );
  });

  it('generates ODP_SECRET_KEY into the data directory once and reuses it', () => {
    const first = loadConfig({ ODP_DATA_DIR: dataDir });
    const file = path.join(dataDir, SECRET_KEY_FILE);
    expect(first.secretKey.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.secretKey);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadConfig({ ODP_DATA_DIR: dataDir }).secretKey).toBe(first.secretKey);
  });

  it('creates a missing data directory for the secret key', () => {
    const nested = path.join(dataDir, 'a', 'b');
    expect(loadConfig({ ODP_DATA_DIR: nested }).dataDir).toBe(nested);
  });

  it('refuses a truncated generated key file', () => {
    writeFileSync(path.join(dataDir, SECRET_KEY_FILE), 'abc');
    expect(() => loadConfig({ ODP_DATA_DIR: dataDir })).toThrow(ConfigError);
  });
});
