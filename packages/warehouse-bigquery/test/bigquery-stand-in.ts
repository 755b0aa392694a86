/**
 * A local HTTP stand-in for the BigQuery REST API (v2), for tests only: no BigQuery or BigQuery
 * emulator runs on the test machines. It answers the few calls the adapter makes (tables.get,
 * tables.insert, tables.patch, jobs.insert, jobs.getQueryResults) from tables it keeps in memory,
 * records every request, and checks each one's bearer token: a JWT signed (RS256) with the service
 * account's key. It does not run SQL: a query job is recorded and answered as done.
 */
import { createPublicKey, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInRequest {
  readonly method: string;
  /** The path below `/bigquery/v2`. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly body: Record<string, unknown> | null;
  /** The raw text of the request line, headers and body, to look for leaked secrets. */
  readonly raw: string;
  /** The claims of the request's verified bearer JWT; null when it had none or it did not verify. */
  readonly claims: Record<string, unknown> | null;
}

export interface BigQueryStandIn {
  /** The `apiEndpoint` to point the client at. */
  readonly url: string;
  readonly requests: StandInRequest[];
  /** Table schemas by `project/dataset/table`. */
  readonly tables: Map<string, { fields: Record<string, unknown>[] }>;
  /** The next query job fails with this message (then jobs succeed again). */
  failNextJob(message: (request: StandInRequest) => string): void;
  close(): Promise<void>;
}

/** Starts the stand-in on 127.0.0.1; requests must be signed with `publicKeyPem`'s private key. */
export async function startBigQueryStandIn(publicKeyPem: string): Promise<BigQueryStandIn> {
  const publicKey = createPublicKey(publicKeyPem);
  const requests: StandInRequest[] = [];
  const tables = new Map<string, { fields: Record<string, unknown>[] }>();
  let failure: ((request: StandInRequest) => string) | null = null;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const request: StandInRequest = {
        method: req.method ?? '',
        path: url.pathname.replace(/^\/bigquery\/v2/, ''),
        query: Object.fromEntries(url.searchParams),
        body: text === '' ? null : (JSON.parse(text) as Record<string, unknown>),
        raw: `${req.method} ${req.url}\n${JSON.stringify(req.headers)}\n${text}`,
        claims: verifiedClaims(req.headers.authorization, publicKey),
      };
      requests.push(request);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (request.claims === null) return send(401, apiError(401, 'Request had invalid authentication'));
      const answer = route(request, tables, () => {
        const fail = failure;
        failure = null;
        return fail;
      });
      send(answer.status, answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    tables,
    failNextJob(message) {
      failure = message;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function apiError(code: number, message: string) {
  return { error: { code, message, errors: [{ message, reason: code === 404 ? 'notFound' : 'invalid' }] } };
}

type Answer = { status: number; body: unknown };

function route(
  request: StandInRequest,
  tables: BigQueryStandIn['tables'],
  takeFailure: () => ((request: StandInRequest) => string) | null,
): Answer {
  const table = /^\/projects\/([^/]+)\/datasets\/([^/]+)\/tables\/([^/]+)$/.exec(request.path);
  const tableList = /^\/projects\/([^/]+)\/datasets\/([^/]+)\/tables$/.exec(request.path);
  const jobs = /^\/projects\/([^/]+)\/jobs$/.exec(request.path);
  const results = /^\/projects\/([^/]+)\/queries\/([^/]+)$/.exec(request.path);
  if (table !== null) {
    const [, project, dataset, name] = table;
    const key = `${project}/${dataset}/${decodeURIComponent(name!)}`;
    const existing = tables.get(key);
    if (existing === undefined) return { status: 404, body: apiError(404, `Not found: Table ${key}`) };
    if (request.method === 'PATCH') {
      const schema = (request.body?.['schema'] ?? {}) as { fields: Record<string, unknown>[] };
      tables.set(key, { fields: schema.fields });
    }
    return { status: 200, body: tableResource(project!, dataset!, name!, tables.get(key)!) };
  }
  if (tableList !== null && request.method === 'POST') {
    const [, project, dataset] = tableList;
    const body = request.body as { tableReference: { tableId: string }; schema: { fields: [] } };
    const key = `${project}/${dataset}/${body.tableReference.tableId}`;
    if (tables.has(key)) return { status: 409, body: apiError(409, `Already Exists: Table ${key}`) };
    tables.set(key, { fields: body.schema.fields });
    return {
      status: 200,
      body: tableResource(project!, dataset!, body.tableReference.tableId, tables.get(key)!),
    };
  }
  if (jobs !== null && request.method === 'POST') {
    const reference = (request.body?.['jobReference'] ?? {}) as Record<string, unknown>;
    const fail = takeFailure();
    if (fail !== null) return { status: 400, body: apiError(400, fail(request)) };
    return {
      status: 200,
      body: { ...request.body, jobReference: { ...reference, location: 'US' }, status: { state: 'DONE' } },
    };
  }
  if (results !== null) {
    return {
      status: 200,
      body: {
        kind: 'bigquery#getQueryResultsResponse',
        jobReference: { projectId: results[1], jobId: results[2], location: 'US' },
        jobComplete: true,
        totalRows: '0',
        numDmlAffectedRows: '0',
      },
    };
  }
  return { status: 404, body: apiError(404, `The stand-in has no ${request.method} ${request.path}`) };
}

function tableResource(project: string, dataset: string, table: string, schema: { fields: unknown[] }) {
  return {
    kind: 'bigquery#table',
    id: `${project}:${dataset}.${table}`,
    tableReference: { projectId: project, datasetId: dataset, tableId: table },
    schema,
  };
}

/** The claims of an `Authorization: Bearer <JWT>` whose RS256 signature verifies with `key`. */
function verifiedClaims(
  authorization: string | undefined,
  key: ReturnType<typeof createPublicKey>,
): Record<string, unknown> | null {
  const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
  const parts = token?.split('.');
  if (parts?.length !== 3) return null;
  const [header, payload, signature] = parts as [string, string, string];
  const signed = verify(
    'RSA-SHA256',
    Buffer.from(`${header}.${payload}`),
    key,
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) return null;
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
}
