/**
 * The measured operations: each an HTTP request shape (varied per request), the account it runs
 * as, the same operation on the raw store (the engine ceiling), and the target it is held to.
 */
import type {
  AccessFilter,
  ListPlan,
  ListPosition,
  Model,
  SearchIndex,
  StoredObject,
  TenantStore,
} from '@odp/core';
import { UNRESTRICTED } from '@odp/core';
import { parseAggregateQuery, parseDistinctQuery, parseListQuery } from '@odp/query-engine';
import type { TenantAccessControl } from '@odp/acl';
import type { LoadFigures, LoadRequest } from './load.js';
import type { Ceilings } from './report.js';
import type { SeedFixture } from './seed.js';

export type Caller = 'system' | 'member' | 'viewer';

export interface Operation {
  readonly name: string;
  readonly caller: Caller;
  /** Absent for work measured on the engine only. */
  readonly request?: (i: number) => LoadRequest;
  /** Requests it can make at most in a run (see `LoadOptions.maxRequests`). */
  readonly maxRequests?: number;
  readonly engine?: (i: number) => Promise<unknown>;
  readonly target?: (
    http: LoadFigures,
    ceilings: Ceilings,
    others: Map<string, LoadFigures>,
  ) => {
    description: string;
    met: boolean;
  };
}

/** The filtered, sorted invoice list of the list operations. */
export const LIST = 'status=paid&sort=invoiceNumber';
const TEN_PERCENT = 'invoiceDate_from=2020-01-01&invoiceDate_to=2020-12-31';
/** The text queries of the search over companies, one per request in turn. */
export const COMPANY_QUERIES = ['har', 'north', 'sum', 'lum de'] as const;

/**
 * The path of page `page` (default 500; pages are numbered from 0) of {@link LIST} by keyset cursor:
 * the `next` link the api answers for the page before (the api seals the cursor); undefined when the
 * list has no such page.
 */
export async function deepCursorPath(
  baseUrl: string,
  key: string,
  tenantPath: string,
  page = 500,
): Promise<string | undefined> {
  const res = await fetch(`${baseUrl}${tenantPath}/invoices?${LIST}&page=${page - 1}`, {
    headers: { 'x-api-key': key },
  });
  if (!res.ok) throw new Error(`page ${page - 1}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { _links: { next?: { href: string } } })._links.next?.href;
}

/** Everything an operation needs to build its requests and its engine call. */
export interface OperationContext {
  readonly fixture: SeedFixture;
  readonly model: Model;
  readonly store: TenantStore;
  /** The search index the api searches, when this process can measure it (the engine ceiling). */
  readonly search?: SearchIndex;
  /**
   * Page 500 of {@link LIST} by keyset cursor: the api's `next` link of page 499 and the position of
   * that page's last row; absent when the list has no page 500 at this N.
   */
  readonly deepCursor?: { readonly path: string; readonly after: ListPosition };
  readonly accessControl: TenantAccessControl;
  /** The read filters of the member's and the viewer's accounts. */
  readonly filters: { readonly member: AccessFilter; readonly viewer: AccessFilter };
  /** A prefix unique to this run, for unique values of created objects. */
  readonly runId: string;
}

const params = (query: string) => new URLSearchParams(query);

export function operations(context: OperationContext): Operation[] {
  const { fixture, model, store, search, deepCursor, runId, accessControl, filters } = context;
  const t = `/data/${fixture.tenantId}`;
  const invoices = fixture.counts.invoices;
  const randomInvoice = () => fixture.invoiceId(Math.floor(Math.random() * invoices));
  const listPlan = (query: string): ListPlan => parseListQuery(model, 'crm.invoice', params(query));
  const firstPage = listPlan(LIST);
  const deepPage = listPlan(`${LIST}&page=500`);
  const companiesPage = parseListQuery(model, 'crm.company', params('sort=legalName'));
  const invoicesByNumber = listPlan('sort=invoiceNumber');
  const distinct = parseDistinctQuery(model, 'crm.invoice', params('distinct=status'));
  const aggregate = parseAggregateQuery(model, 'crm.invoice', params(`sum=amount&avg=amount&${TEN_PERCENT}`));
  const client = `${t}/companies/${fixture.companyId(0)}`;
  const newInvoice = (i: number, prefix: string) => ({
    invoiceNumber: `${prefix}-${runId}-${i}`,
    amount: 100 + (i % 50),
    invoiceDate: '2026-03-01',
    client,
  });
  const engineInvoice = (i: number): StoredObject => ({
    id: `${runId.slice(0, 8)}-0000-4000-9000-${i.toString(16).padStart(12, '0')}`,
    basicClass: 'crm.invoice',
    classes: ['crm.invoice'],
    name: `E-${runId}-${i}`,
    values: {
      invoiceNumber: `E-${runId}-${i}`,
      amount: 100,
      vatRate: 21,
      invoiceDate: '2026-03-01',
      status: 'draft',
    },
    links: { 'crm.invoice#client': [fixture.companyId(0)] },
    createdAt: '2026-03-01T00:00:00.000Z',
    modifiedAt: '2026-03-01T00:00:00.000Z',
  });
  let deleted = 0;
  const all: AccessFilter = UNRESTRICTED;
  const p50Under = (ms: number) => (http: LoadFigures) => ({
    description: `p50 < ${ms} ms`,
    met: http.p50Ms < ms,
  });

  return [
    {
      name: 'get one',
      caller: 'system',
      request: () => ({ path: `${t}/invoices/${randomInvoice()}` }),
      engine: () => store.get(randomInvoice(), all),
      target: (http, ceilings) => ({
        description: '>= 60% of express ceiling, p99 < 10 ms',
        met: http.requestsPerSecond >= 0.6 * ceilings.express.requestsPerSecond && http.p99Ms < 10,
      }),
    },
    {
      name: 'list: filter + sort, page of 20',
      caller: 'system',
      request: () => ({ path: `${t}/invoices?${LIST}` }),
      engine: () => store.list(firstPage, all),
      target: p50Under(5),
    },
    {
      name: 'list: deep page 500',
      caller: 'system',
      request: () => ({ path: `${t}/invoices?${LIST}&page=500` }),
      engine: () => store.list(deepPage, all),
      target: p50Under(20),
    },
    ...(deepCursor
      ? [
          {
            name: 'list: page 500 by after cursor (keyset)',
            caller: 'system' as const,
            request: () => ({ path: deepCursor.path }),
            engine: () => store.list({ ...deepPage, after: deepCursor.after }, all),
            target: p50Under(20),
          },
        ]
      : []),
    {
      name: 'list with q',
      caller: 'system',
      request: (i) => ({
        path: `${t}/companies?q=${encodeURIComponent(COMPANY_QUERIES[i % 4] ?? '')}`,
      }),
      ...(search
        ? {
            engine: (i: number) =>
              search.search({ text: COMPANY_QUERIES[i % 4] ?? '', classes: ['crm.company'], size: 20 }, all),
          }
        : {}),
      target: p50Under(10),
    },
    {
      name: 'global search',
      caller: 'system',
      request: (i) => ({ path: `${t}/search?q=${['amb', 'quartz', 'vis', 'person1'][i % 4]}` }),
      ...(search
        ? {
            engine: (i: number) =>
              search.search(
                {
                  text: ['amb', 'quartz', 'vis', 'person1'][i % 4] ?? '',
                  classes: ['crm.company', 'crm.person'],
                  size: 20,
                },
                all,
              ),
          }
        : {}),
      target: p50Under(10),
    },
    {
      name: 'distinct status',
      caller: 'system',
      request: () => ({ path: `${t}/invoices/distinct?distinct=status` }),
      engine: () => store.distinct(distinct, all),
    },
    {
      name: 'aggregations sum/avg over 10%',
      caller: 'system',
      request: () => ({ path: `${t}/invoices/aggregations?sum=amount&avg=amount&${TEN_PERCENT}` }),
      engine: () => store.aggregate(aggregate, all),
      target: p50Under(100),
    },
    {
      name: 'list as system: companies by name',
      caller: 'system',
      request: () => ({ path: `${t}/companies?sort=legalName` }),
      engine: () => store.list(companiesPage, all),
    },
    {
      name: 'list as member (record-level ACL): companies by name',
      caller: 'member',
      request: () => ({ path: `${t}/companies?sort=legalName` }),
      engine: () => store.list(companiesPage, filters.member),
      target: (http, _ceilings, others) => {
        const system = others.get('list as system: companies by name');
        return {
          description: 'p50 within 2x of the system account',
          met: system !== undefined && system.requests > 0 && http.p50Ms <= 2 * Math.max(system.p50Ms, 1),
        };
      },
    },
    {
      name: 'list as viewer (record-level ACL): invoices by number',
      caller: 'viewer',
      request: () => ({ path: `${t}/invoices?sort=invoiceNumber` }),
      engine: () => store.list(invoicesByNumber, filters.viewer),
    },
    {
      name: 'derive ACL rows and holdings for one create',
      caller: 'system',
      engine: (i) => accessControl.changesFor({ put: [engineInvoice(1_000_000 + i)] }),
    },
    {
      name: 'create invoice',
      caller: 'system',
      request: (i) => ({ method: 'POST', path: `${t}/invoices`, body: JSON.stringify(newInvoice(i, 'C')) }),
      engine: (i) => store.write({ put: [engineInvoice(i)] }),
      target: (http) => ({ description: '>= 2,000/s', met: http.requestsPerSecond >= 2000 }),
    },
    {
      name: 'patch invoice',
      caller: 'system',
      request: (i) => ({
        method: 'PATCH',
        path: `${t}/invoices/${randomInvoice()}`,
        body: JSON.stringify({ amount: 200 + (i % 100) }),
      }),
    },
    {
      name: 'delete invoice',
      caller: 'system',
      // Each request deletes another seeded invoice, the last first; at small N a fast run would
      // otherwise go on past the first one and measure 404s.
      maxRequests: invoices - 20,
      request: () => {
        deleted += 1;
        return { method: 'DELETE', path: `${t}/invoices/${fixture.invoiceId(invoices - deleted)}` };
      },
    },
  ];
}
