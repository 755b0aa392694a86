/**
 * The BigQuery adapter's requests, against a local HTTP stand-in of the BigQuery API
 * (test/bigquery-stand-in.ts): no BigQuery can run here, so these tests check what the adapter
 * asks for (table create and patch, the MERGE job, its SQL and parameters, the signed token) and
 * that no secret leaves it, not what BigQuery does with it.
 */
import { generateKeyPairSync } from 'node:crypto';
import { inspect } from 'node:util';
import type { WarehouseBatch, WarehouseTarget } from '@odp/core';
import { startBigQueryStandIn } from '../test/bigquery-stand-in.js';
import type { BigQueryStandIn, StandInRequest } from '../test/bigquery-stand-in.js';
import { BIGQUERY_SCOPE, BigQueryWarehouse, CredentialsError, WarehouseWriteError } from './index.js';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privateKey = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const publicKey = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const credentials = JSON.stringify({
  type: 'service_account',
  project_id: 'acme-analytics',
  private_key_id: 'key-1',
  private_key: privateKey,
  client_email: 'replicator@acme-analytics.iam.gserviceaccount.com',
});
const target: WarehouseTarget = {
  tenantId: 'tenant-a',
  projectId: 'acme-analytics',
  dataset: 'crm',
  table: 'companies',
  credentials,
};
const firstBatch: WarehouseBatch = {
  columns: { legalName: 'STRING', employeeCount: 'INT64', founded: 'DATE' },
  rows: [
    { id: 'a1', values: { legalName: 'Acme', employeeCount: '12', founded: '2001-02-03' } },
    { id: 'b2', values: { legalName: 'Bolt', employeeCount: null, founded: null } },
  ],
  deletes: ['c3'],
};
/** The table schema the first batch creates: `id`, then its columns in batch order. */
const FIRST_FIELDS = [
  { name: 'id', type: 'STRING', mode: 'REQUIRED' },
  { name: 'legalName', type: 'STRING', mode: 'NULLABLE' },
  { name: 'employeeCount', type: 'INT64', mode: 'NULLABLE' },
  { name: 'founded', type: 'DATE', mode: 'NULLABLE' },
];

/** Every secret of the key: the PEM body, and each signed token the stand-in was sent. */
function secretsOf(requests: readonly StandInRequest[]): string[] {
  const pemBody = privateKey.split('\n').slice(1, 3).join('\n');
  const tokens = requests.map((request) => /Bearer ([^"]+)/.exec(request.raw)?.[1] ?? '');
  return [pemBody, ...tokens.filter((token) => token !== '')];
}

describe('BigQueryWarehouse against a local BigQuery stand-in (no BigQuery runs here)', () => {
  let standIn: BigQueryStandIn;
  let warehouse: BigQueryWarehouse;

  beforeEach(async () => {
    standIn = await startBigQueryStandIn(publicKey);
    warehouse = new BigQueryWarehouse({ apiEndpoint: standIn.url, jobTimeoutSeconds: 60 });
  });
  afterEach(() => standIn.close());

  it('creates the table on first use and writes the batch with one MERGE job of parameters', async () => {
    await warehouse.write(target, firstBatch);

    const calls = standIn.requests.map((request) => `${request.method} ${request.path}`);
    expect(calls).toEqual([
      'GET /projects/acme-analytics/datasets/crm/tables/companies',
      'POST /projects/acme-analytics/datasets/crm/tables',
      'POST /projects/acme-analytics/jobs',
      expect.stringMatching(/^GET \/projects\/acme-analytics\/queries\/.+/),
    ]);
    expect(standIn.requests[1]!.body).toMatchObject({
      tableReference: { projectId: 'acme-analytics', datasetId: 'crm', tableId: 'companies' },
      schema: {
        fields: FIRST_FIELDS,
      },
    });
    const job = standIn.requests[2]!.body as { configuration: { query: Record<string, unknown> } };
    const query = job.configuration.query;
    expect(query['query']).toBe(
      [
        'MERGE `acme-analytics.crm.companies` AS target',
        'USING (SELECT * FROM UNNEST(@rows)) AS source',
        'ON target.`id` = source.id',
        'WHEN MATCHED AND source.deleted THEN DELETE',
        'WHEN MATCHED THEN UPDATE SET `legalName` = CAST(source.v0 AS STRING), ' +
          '`employeeCount` = CAST(source.v1 AS INT64), `founded` = CAST(source.v2 AS DATE)',
        'WHEN NOT MATCHED AND NOT source.deleted THEN INSERT (`id`, `legalName`, `employeeCount`, `founded`)',
        '  VALUES (source.id, CAST(source.v0 AS STRING), CAST(source.v1 AS INT64), CAST(source.v2 AS DATE))',
      ].join('\n'),
    );
    expect(query['useLegacySql']).toBe(false);
    expect(query['parameterMode']).toBe('named');
    expect(query['queryParameters']).toEqual([
      {
        name: 'rows',
        parameterType: {
          type: 'ARRAY',
          arrayType: {
            type: 'STRUCT',
            structTypes: ['id', 'deleted', 'v0', 'v1', 'v2'].map((name) => ({
              name,
              type: { type: name === 'deleted' ? 'BOOL' : 'STRING' },
            })),
          },
        },
        parameterValue: {
          arrayValues: [
            ['c3', true, null, null, null],
            ['a1', false, 'Acme', '12', '2001-02-03'],
            ['b2', false, 'Bolt', null, null],
          ].map(([id, deleted, v0, v1, v2]) => ({
            structValues: {
              id: { value: id },
              deleted: { value: deleted },
              v0: { value: v0 },
              v1: { value: v1 },
              v2: { value: v2 },
            },
          })),
        },
      },
    ]);
    expect(job.configuration).toMatchObject({ jobTimeoutMs: '60000' });
  });

  it('signs every request as the service account with the BigQuery scope and sends no key', async () => {
    await warehouse.write(target, firstBatch);

    expect(standIn.requests.length).toBeGreaterThan(0);
    for (const request of standIn.requests) {
      expect(request.claims).toMatchObject({
        iss: 'replicator@acme-analytics.iam.gserviceaccount.com',
        sub: 'replicator@acme-analytics.iam.gserviceaccount.com',
        scope: BIGQUERY_SCOPE,
      });
      expect(request.raw).not.toContain(secretsOf([])[0]);
    }
  });

  it('adds the columns a later batch brings and casts to the types the table has', async () => {
    await warehouse.write(target, firstBatch);
    standIn.requests.length = 0;

    await warehouse.write(target, {
      columns: { employeeCount: 'STRING', city: 'STRING' },
      rows: [{ id: 'a1', values: { employeeCount: '13', city: 'Ghent' } }],
      deletes: [],
    });

    const patch = standIn.requests.find((request) => request.method === 'PATCH');
    expect(patch?.path).toBe('/projects/acme-analytics/datasets/crm/tables/companies');
    expect(patch?.body).toEqual({
      schema: {
        fields: [...FIRST_FIELDS, { name: 'city', type: 'STRING', mode: 'NULLABLE' }],
      },
    });
    const job = standIn.requests.find((request) => request.path.endsWith('/jobs'));
    const sql = (job?.body as { configuration: { query: { query: string } } }).configuration.query.query;
    // The batch's STRING employeeCount is cast to the INT64 column; columns it lacks become NULL.
    expect(sql).toContain(
      'UPDATE SET `legalName` = NULL, `employeeCount` = CAST(source.v0 AS INT64), `founded` = NULL, ' +
        '`city` = CAST(source.v1 AS STRING)',
    );
  });

  it('writes nothing for deletes of a table that does not exist yet', async () => {
    await warehouse.write(target, { columns: {}, rows: [], deletes: ['a1'] });

    expect(standIn.requests.map((request) => request.method)).toEqual(['GET']);
    expect(standIn.tables.size).toBe(0);
  });

  it("fails a refused job with BigQuery's reason and no token or key in the error", async () => {
    standIn.failNextJob((request) => `Could not cast literal "x" to type INT64; request was ${request.raw}`);

    const failure = await warehouse.write(target, firstBatch).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(WarehouseWriteError);
    const error = failure as WarehouseWriteError;
    expect(error.message).toContain('Could not cast literal "x" to type INT64');
    const shown = [error.message, error.stack ?? '', inspect(error, { depth: 10 }), JSON.stringify(error)];
    for (const secret of secretsOf(standIn.requests))
      for (const text of shown) expect(text).not.toContain(secret);
  });

  it('refuses credentials that are not a service account key without quoting them or calling out', async () => {
    const cases = [
      `not json ${privateKey}`,
      JSON.stringify({ type: 'external_account', credential_source: { file: '/etc/passwd' } }),
      JSON.stringify({ type: 'service_account', client_email: 'a@b.c' }),
    ];
    for (const credentials of cases) {
      const failure = await warehouse
        .write({ ...target, credentials }, firstBatch)
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(CredentialsError);
      expect(String((failure as Error).message)).not.toMatch(/PRIVATE KEY|passwd|not json/);
    }
    expect(standIn.requests).toEqual([]);
  });

  it('names the parameter of a target BigQuery cannot have', () => {
    expect(warehouse.targetProblem({ ...target, projectId: 'Acme Analytics' })).toMatch(
      /^_projectId 'Acme Analytics'/,
    );
    expect(warehouse.targetProblem({ ...target, dataset: 'crm.x' })).toMatch(/^_dataset 'crm.x'/);
    expect(warehouse.targetProblem({ ...target, table: 'a`b' })).toMatch(/^_table 'a`b'/);
    expect(warehouse.targetProblem(target)).toBeNull();
  });
});
