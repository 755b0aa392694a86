/**
 * The operations of `pnpm bench --peers`: each the same work asked of this platform's Data API and
 * of PocketBase's Web API (skipTotal=1: this platform never counts), with the account each runs as.
 */
import type { LoadRequest } from './load.js';
import { COMPANY_QUERIES, LIST } from './operations.js';
import { pocketbaseId } from './pocketbase-seed.js';
import type { SeedFixture } from './seed.js';

/** Who a side's requests run as: the all-seeing account, or the viewer under record-level access. */
export type PeerCaller = 'system' | 'viewer';

export interface PeerOperation {
  readonly name: string;
  readonly caller: PeerCaller;
  readonly platform: (i: number) => LoadRequest;
  readonly pocketbase: (i: number) => LoadRequest;
  /** A list both systems must answer with the same invoices in the same order (checked before timing). */
  readonly sameRows?: true;
}

/** Text queries of the search over invoices: fragments of invoice numbers (and dates, amounts). */
export const INVOICE_QUERIES = ['4711', '815', '2024', '99'] as const;

const PAGE = 'perPage=20&skipTotal=1';
const records = (collection: string) => `/api/collections/${collection}/records`;
const filter = (expression: string) => `filter=${encodeURIComponent(expression)}`;
/** PocketBase's filter of the platform's `status=paid`, with its sort (the list of {@link LIST}). */
const PAID = "status='paid'";
const BY_NUMBER = 'sort=invoiceNumber';

/**
 * A text query as a PocketBase filter over `fields`: every term (as the platform splits them) in at
 * least one field (`~`: contains, case-insensitive), as a PocketBase user writes a search box.
 */
export function containsFilter(text: string, fields: readonly string[]): string {
  const terms = text.match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  return terms.map((term) => `(${fields.map((field) => `${field}~'${term}'`).join(' || ')})`).join(' && ');
}

export interface PeerContext {
  readonly fixture: SeedFixture;
  /**
   * The deep page of {@link LIST} as the platform numbers pages (from 0): 500, or the last full page
   * when a small N has fewer. PocketBase numbers pages from 1: its page `deepPage + 1`.
   */
  readonly deepPage: number;
  /** The deep page by the platform's keyset cursor (its `next` link of the page before). */
  readonly deepCursorPath: string;
  /** The invoice number of the last row of the page before, PocketBase's keyset. */
  readonly deepAfter: string;
  /** Unique values of created invoices. */
  readonly runId: string;
}

export function peerOperations(context: PeerContext): PeerOperation[] {
  const { fixture, deepPage, deepCursorPath, deepAfter, runId } = context;
  const t = `/data/${fixture.tenantId}`;
  const randomInvoice = () => fixture.invoiceId(Math.floor(Math.random() * fixture.counts.invoices));
  const client = fixture.companyId(0);
  const json = (method: 'POST' | 'PATCH', path: string, body: unknown): LoadRequest => ({
    method,
    path,
    body: JSON.stringify(body),
  });
  return [
    {
      name: 'get one',
      caller: 'system',
      platform: () => ({ path: `${t}/invoices/${randomInvoice()}` }),
      pocketbase: () => ({ path: `${records('invoices')}/${pocketbaseId(randomInvoice())}` }),
    },
    {
      name: 'filtered, sorted page of 20',
      caller: 'system',
      sameRows: true,
      platform: () => ({ path: `${t}/invoices?${LIST}` }),
      pocketbase: () => ({ path: `${records('invoices')}?${filter(PAID)}&${BY_NUMBER}&${PAGE}` }),
    },
    {
      name: `page ${deepPage} by page number`,
      caller: 'system',
      sameRows: true,
      platform: () => ({ path: `${t}/invoices?${LIST}&page=${deepPage}` }),
      pocketbase: () => ({
        path: `${records('invoices')}?${filter(PAID)}&${BY_NUMBER}&${PAGE}&page=${deepPage + 1}`,
      }),
    },
    {
      name: `page ${deepPage} by keyset cursor`,
      caller: 'system',
      sameRows: true,
      platform: () => ({ path: deepCursorPath }),
      pocketbase: () => ({
        path: `${records('invoices')}?${filter(`${PAID} && invoiceNumber>'${deepAfter}'`)}&${BY_NUMBER}&${PAGE}`,
      }),
    },
    {
      name: `small-class text search (${fixture.counts.companies.toLocaleString('en')} companies)`,
      caller: 'system',
      platform: (i) => ({ path: `${t}/companies?q=${encodeURIComponent(COMPANY_QUERIES[i % 4] ?? '')}` }),
      pocketbase: (i) => ({
        path: `${records('companies')}?${filter(containsFilter(COMPANY_QUERIES[i % 4] ?? '', ['legalName', 'registrationNumber']))}&${PAGE}`,
      }),
    },
    {
      name: `large-class text search (${fixture.counts.invoices.toLocaleString('en')} invoices)`,
      caller: 'system',
      platform: (i) => ({ path: `${t}/invoices?q=${INVOICE_QUERIES[i % 4] ?? ''}` }),
      pocketbase: (i) => ({
        path: `${records('invoices')}?${filter(containsFilter(INVOICE_QUERIES[i % 4] ?? '', ['invoiceNumber']))}&${PAGE}`,
      }),
    },
    {
      name: "viewer's list under record-level access",
      caller: 'viewer',
      sameRows: true,
      platform: () => ({ path: `${t}/invoices?sort=invoiceNumber` }),
      pocketbase: () => ({ path: `${records('invoices')}?${BY_NUMBER}&${PAGE}` }),
    },
    {
      name: 'patch',
      caller: 'system',
      platform: (i) => json('PATCH', `${t}/invoices/${randomInvoice()}`, { amount: 200 + (i % 100) }),
      pocketbase: (i) =>
        json('PATCH', `${records('invoices')}/${pocketbaseId(randomInvoice())}`, { amount: 200 + (i % 100) }),
    },
    {
      name: 'create',
      caller: 'system',
      platform: (i) =>
        json('POST', `${t}/invoices`, {
          invoiceNumber: `C-${runId}-${i}`,
          amount: 100 + (i % 50),
          invoiceDate: '2026-03-01',
          client: `${t}/companies/${client}`,
        }),
      // The values the platform derives (VAT, total, default status) a PocketBase client sends.
      pocketbase: (i) => {
        const amount = 100 + (i % 50);
        return json('POST', records('invoices'), {
          invoiceNumber: `P-${runId}-${i}`,
          amount,
          vatRate: 21,
          vatAmount: Math.round(amount * 21) / 100,
          total: Math.round(amount * 121) / 100,
          status: 'draft',
          invoiceDate: '2026-03-01 00:00:00.000Z',
          client: pocketbaseId(client),
        });
      },
    },
  ];
}
