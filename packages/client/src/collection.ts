/**
 * A list address, `/data/{tenant}/{typeName}` or the related list
 * `/data/{tenant}/{relatedTypeName}/{relatedId}/{typeName}`, and what the api serves under it: the
 * list with its filters, sort and paging, distinct values, field values, aggregations, create, the
 * create capability and the Excel export (docs/data-api.md).
 */
import type {
  Aggregations,
  ClassTypes,
  CreateCapabilities,
  DistinctValues,
  FieldValues,
  ListOptions,
  Page,
  PageLinks,
  SortOf,
} from './schema.js';
import { queryString } from './transport.js';
import type { Transport, WriteOptions } from './transport.js';

/** Create options: the class of a subclass to create (`?class=`) and the write headers. */
export interface CreateOptions extends WriteOptions {
  readonly class?: string;
}

/** An object written: its id and address, and the object as Get one renders it (null when unreadable). */
export interface Written<T> {
  readonly id: string;
  readonly href: string;
  readonly object: T | null;
}

export type Filter<C extends ClassTypes> = C['filter'];

/** What to aggregate: comma-joined field names per function. */
export interface AggregationRequest {
  readonly sum?: readonly string[];
  readonly avg?: readonly string[];
  readonly count?: readonly string[];
}

/** `C`: the listed class; `Create`: the body of a create here (on a related list, without the relation the path supplies). */
export class Collection<C extends ClassTypes, Create = C['create']> {
  constructor(
    private readonly transport: Transport,
    /** The list's path, e.g. `/data/t/invoices`. */
    readonly path: string,
  ) {}

  /** One page of the list. */
  async list(filter?: Filter<C>, options: ListOptions<SortOf<C>> = {}): Promise<Page<C['read']>> {
    const { classes, ...paging } = options;
    return fetchPage<C['read']>(
      this.transport,
      this.path + listQuery(filter, { ...paging, _class: classes }),
    );
  }

  /** Every object of the list, following `next` (keyset cursors: none is skipped or repeated). */
  async *all(filter?: Filter<C>, options: ListOptions<SortOf<C>> = {}): AsyncGenerator<C['read']> {
    let page: Page<C['read']> | null = await this.list(filter, options);
    while (page !== null) {
      yield* page.items;
      page = await page.next();
    }
  }

  /** Distinct values of an indexed field or relation; `sort` `count`, `count,asc` or `count,desc`. */
  distinct(
    name: string,
    filter?: Filter<C>,
    sort?: 'count' | 'count,asc' | 'count,desc',
  ): Promise<DistinctValues> {
    return this.transport.json(`${this.path}/distinct${listQuery(filter, { distinct: name, sort })}`);
  }

  /** The values of one field, one entry per object that has one. */
  values(field: string, filter?: Filter<C>): Promise<FieldValues> {
    return this.transport.json(`${this.path}/values/${encodeURIComponent(field)}${listQuery(filter, {})}`);
  }

  /** `total` of the matching objects, and the sums, averages and counts asked for. */
  aggregations(request: AggregationRequest = {}, filter?: Filter<C>): Promise<Aggregations> {
    return this.transport.json(`${this.path}/aggregations${listQuery(filter, { ...request })}`);
  }

  /** Creates an object (under the related object, on a related list) and answers it as read. */
  async create(body: Create, options: CreateOptions = {}): Promise<Written<C['read']>> {
    const path = this.path + queryString({ class: options.class });
    const response = await this.transport.send('POST', path, {
      ...options,
      body,
      headers: { Prefer: 'return=representation' },
    });
    return written<C['read']>(response);
  }

  /** Whether the account may create here, and which classes. */
  capabilities(className?: string): Promise<CreateCapabilities> {
    return this.transport.json(`${this.path}/capabilities${queryString({ class: className })}`);
  }

  /** A signed URL (2 minutes) of the list as an `.xlsx` workbook, with the filters and sort. */
  excel(filter?: Filter<C>, sort?: SortOf<C>): Promise<string> {
    const prefix = `/data/${encodeURIComponent(this.transport.tenant)}`;
    const excelPath = `${prefix}/excel${this.path.slice(prefix.length)}`;
    return this.transport.json<string>(excelPath + listQuery(filter, { sort }));
  }
}

/** The query string of filters and reserved parameters (a reserved name wins over a filter). */
function listQuery(filter: object | undefined, reserved: Readonly<Record<string, unknown>>): string {
  return queryString({ ...(filter as Record<string, unknown> | undefined), ...reserved });
}

/** A page at `path`, its `next` following the link the api wrote. */
export async function fetchPage<T>(transport: Transport, path: string): Promise<Page<T>> {
  const body = await transport.json<{ _embedded?: Record<string, T[]>; _links: PageLinks }>(path);
  const items = Object.values(body._embedded ?? {})[0] ?? [];
  const nextHref = body._links.next?.href;
  return {
    items,
    links: body._links,
    next: () => (nextHref === undefined ? Promise.resolve(null) : fetchPage<T>(transport, nextHref)),
  };
}

/** The result of a write answered with `Location` and, when readable, the object. */
export async function written<T>(response: Response): Promise<Written<T>> {
  const href = new URL(response.headers.get('location') ?? '', 'http://x').pathname;
  const text = await response.text();
  return { id: href.slice(-36), href, object: text === '' ? null : (JSON.parse(text) as T) };
}
