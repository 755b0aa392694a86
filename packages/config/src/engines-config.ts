import { ConfigError } from './config-error.js';
import type { BlobsConfig, JobsConfig, SearchConfig, StoreConfig, WarehouseConfig } from './config-types.js';
import { parseChoice, parseInteger, parseUrl, required } from './value-parsers.js';
import type { Read } from './variables.js';

/** Where documents live (`ODP_STORE`): embedded SQLite, or the MongoDB of `ODP_MONGODB_URL`. */
export function parseStore(read: Read): StoreConfig {
  if (parseChoice('ODP_STORE', read('ODP_STORE'), ['sqlite', 'mongodb'], 'sqlite') === 'sqlite') {
    return { kind: 'sqlite' };
  }
  return { kind: 'mongodb', url: mongodbUrl(read, 'ODP_STORE=mongodb') };
}

/** Where full text is indexed (`ODP_SEARCH`): SQLite FTS5, or the Elasticsearch of its URL. */
export function parseSearch(read: Read): SearchConfig {
  if (parseChoice('ODP_SEARCH', read('ODP_SEARCH'), ['sqlite', 'elasticsearch'], 'sqlite') === 'sqlite') {
    return { kind: 'sqlite' };
  }
  const url = required(read, 'ODP_ELASTICSEARCH_URL', 'ODP_SEARCH=elasticsearch');
  return { kind: 'elasticsearch', url: parseUrl('ODP_ELASTICSEARCH_URL', url, ['http:', 'https:']) };
}

/** Where file bytes live (`ODP_BLOBS`): the data directory, or an S3 bucket. */
export function parseBlobs(read: Read): BlobsConfig {
  if (parseChoice('ODP_BLOBS', read('ODP_BLOBS'), ['fs', 's3'], 'fs') === 'fs') return { kind: 'fs' };
  const endpoint = read('ODP_S3_ENDPOINT');
  return {
    kind: 's3',
    endpoint: endpoint === null ? null : parseUrl('ODP_S3_ENDPOINT', endpoint, ['http:', 'https:']),
    bucket: required(read, 'ODP_S3_BUCKET', 'ODP_BLOBS=s3'),
    accessKey: read('ODP_S3_ACCESS_KEY'),
    secretKey: read('ODP_S3_SECRET_KEY'),
    region: read('ODP_S3_REGION') ?? 'us-east-1',
  };
}

/** `ODP_REDIS_URL`, or null to keep rate limits, fan-out and locks in-process. */
export function parseRedisUrl(read: Read): string | null {
  const redis = read('ODP_REDIS_URL');
  return redis === null ? null : parseUrl('ODP_REDIS_URL', redis, ['redis:', 'rediss:']);
}

/** Where jobs are queued (`ODP_JOBS`), see `Config.jobs`. */
export function parseJobs(read: Read): JobsConfig {
  const kind = parseChoice('ODP_JOBS', read('ODP_JOBS'), ['sqlite', 'agenda'], 'sqlite');
  if (kind === 'sqlite') return { kind };
  return {
    kind,
    url: mongodbUrl(read, 'ODP_JOBS=agenda'),
    database: parseDatabaseName(read('ODP_JOBS_AGENDA_DATABASE') ?? 'odp_jobs'),
  };
}

/** The DatastoreReplicator's warehouse (`ODP_WAREHOUSE`): embedded DuckDB, or BigQuery. */
export function parseWarehouse(read: Read): WarehouseConfig {
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

function mongodbUrl(read: Read, because: string): string {
  return parseUrl('ODP_MONGODB_URL', required(read, 'ODP_MONGODB_URL', because), [
    'mongodb:',
    'mongodb+srv:',
  ]);
}

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
