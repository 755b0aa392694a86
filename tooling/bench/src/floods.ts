/**
 * What tenant A does in each row of the noisy-neighbour matrix (noisy-neighbour.ts, docs/performance.md
 * "Noisy neighbour"): the request floods made of one kind of request sent back to back on every
 * connection (autocannon, load.ts), and the shape every flood has. The event replay and the imports,
 * which are conversations rather than single requests, are in flood-replay.ts and flood-imports.ts.
 */
import { randomUUID } from 'node:crypto';
import { call } from './excel.js';
import { runLoad } from './load.js';
import type { LoadRequest, Outcomes } from './load.js';

export interface FloodContext {
  readonly baseUrl: string;
  /** Tenant A and its system key. */
  readonly tenantId: string;
  readonly key: string;
  /** A's connections for the request floods. */
  readonly connections: number;
  /** The short CI run: smaller fixtures (fewer large objects, fewer rows). */
  readonly quick: boolean;
  readonly log: (line: string) => void;
}

/** What A got during one flood: its answers by kind, and what the flood achieved, in words. */
export interface FloodRun {
  readonly outcomes: Outcomes;
  readonly note: string;
}

/** Runs A's flood for `seconds`; resolves once A's clients have stopped. */
export type StartedFlood = (seconds: number) => Promise<FloodRun>;

export interface Flood {
  /** The row's name: what A floods with. */
  readonly kind: string;
  /** What A's clients do, for the report. */
  describe(context: FloodContext): string;
  /** Creates what the flood needs in tenant A (not timed) and returns the flood. */
  prepare(context: FloodContext): Promise<StartedFlood>;
}

/** Bytes of a "1 MB" value: under `ODP_MAX_VALUE_BYTES` (1 MiB, the stored JSON of one value). */
export const LARGE_VALUE_CHARS = 1_000_000;

/** Text of `chars` characters in words (so a report wraps it into lines and pages). */
export function largeText(chars: number): string {
  return 'noisy neighbour large value '.repeat(Math.ceil(chars / 28)).slice(0, chars);
}

/** The path of a `Location` header (absolute or not). */
export function pathOf(location: string | null, baseUrl: string): string {
  if (location === null) throw new Error('The answer has no Location header.');
  return new URL(location, baseUrl).pathname;
}

/** Creates an object through the api; resolves its path. */
export async function create(context: FloodContext, plural: string, values: object): Promise<string> {
  const { location } = await call(`${context.baseUrl}/data/${context.tenantId}/${plural}`, context.key, {
    method: 'POST',
    body: values,
  });
  return pathOf(location, context.baseUrl);
}

/** A flood of one kind of request on A's connections, each answer counted by kind. */
function requestFlood(context: FloodContext, nextRequest: (index: number) => LoadRequest): StartedFlood {
  let index = 0;
  return async (seconds) => {
    const figures = await runLoad({
      baseUrl: context.baseUrl,
      headers: { 'x-api-key': context.key },
      durationSeconds: seconds,
      connections: context.connections,
      nextRequest: () => nextRequest(index++),
    });
    return {
      outcomes: figures.outcomes ?? { ok: 0, refused: 0, other: figures.failures },
      note: `${Math.round(figures.requests / seconds)}/s answered, p50 ${figures.p50Ms} ms`,
    };
  };
}

/** A's notes in this run are named apart from those of earlier runs on the same data. */
const RUN = randomUUID().slice(0, 8);

/** The PDF report's large field: the client's legal name, which the invoice template prints. */
const REPORT_FIELD_CHARS = 200_000;

/** The codings a browser (and Node's fetch) accepts: what a client of the OpenAPI document sends. */
const BROWSER_ENCODINGS = 'gzip, deflate, br';

export const REQUEST_FLOODS: readonly Flood[] = [
  {
    kind: 'lists',
    describe: (c) => `GET /data/{A}/invoices?size=1000 on ${c.connections} connections`,
    prepare: async (context) =>
      requestFlood(context, () => ({ path: `/data/${context.tenantId}/invoices?size=1000` })),
  },
  {
    kind: 'small creates',
    describe: (c) => `POST /data/{A}/notes of a subject alone on ${c.connections} connections`,
    prepare: async (context) =>
      requestFlood(context, (i) => ({
        method: 'POST',
        path: `/data/${context.tenantId}/notes`,
        body: JSON.stringify({ subject: `small ${RUN} ${i}` }),
      })),
  },
  {
    kind: '1 MB creates',
    describe: (c) =>
      `POST /data/{A}/notes with a ${(LARGE_VALUE_CHARS / 1e6).toFixed(0)} MB body (LONGTEXT) on ${c.connections} connections`,
    prepare: async (context) => {
      const body = JSON.stringify(largeText(LARGE_VALUE_CHARS));
      return requestFlood(context, (i) => ({
        method: 'POST',
        path: `/data/${context.tenantId}/notes`,
        body: `{"subject":"large ${RUN} ${i}","body":${body}}`,
      }));
    },
  },
  {
    kind: 'OpenAPI',
    describe: (c) =>
      `GET /metadata/{A}/openapi.json with Accept-Encoding: ${BROWSER_ENCODINGS} (as browsers and fetch send), ` +
      `on ${c.connections} connections`,
    prepare: async (context) =>
      requestFlood(context, () => ({
        path: `/metadata/${context.tenantId}/openapi.json`,
        headers: { 'accept-encoding': BROWSER_ENCODINGS },
      })),
  },
  {
    kind: 'PDF reports',
    describe: (c) =>
      `GET /data/{A}/invoices/{id}/reports/invoicePdf of an invoice whose client's legal name holds ` +
      `${(REPORT_FIELD_CHARS / 1000).toFixed(0)} kB of text, on ${c.connections} connections`,
    prepare: async (context) => {
      const client = await create(context, 'companies', { legalName: largeText(REPORT_FIELD_CHARS) });
      const invoice = await create(context, 'invoices', {
        invoiceNumber: `REPORT-${RUN}`,
        amount: 100,
        client,
      });
      const report = `${invoice}/reports/invoicePdf`;
      const started = performance.now();
      await call(`${context.baseUrl}${report}`, context.key);
      context.log(`    one report alone: ${(performance.now() - started).toFixed(0)} ms`);
      return requestFlood(context, () => ({ path: report }));
    },
  },
];
