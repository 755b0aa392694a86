/**
 * The client of one tenant's data API. `createClient<Schema>()` with the declarations `odp types`
 * writes checks class names, fields, list keys and sort keys at compile time; `createClient()`
 * without them reads and writes plain records.
 *
 *   const odp = createClient<Schema>({ baseUrl, tenant, apiKey });
 *   const paid = await odp.list('invoices', { status: 'paid' }, { sort: 'amount,desc' });
 */
import { BatchOperations } from './batch.js';
import type { BatchOperation, BatchResult } from './batch.js';
import { Collection, fetchPage, written } from './collection.js';
import type { CreateOptions, Filter, Written } from './collection.js';
import { changeEvents, streamToken } from './events.js';
import type { ChangeEvent, EventStreamOptions, StreamToken } from './events.js';
import type {
  DataObject,
  ListOptions,
  ObjectCapabilities,
  Page,
  RelatedClass,
  RelatedCreate,
  Schema,
  SortOf,
  UploadDescriptor,
  Untyped,
} from './schema.js';
import { queryString, Transport } from './transport.js';
import type { ClientOptions, WriteOptions } from './transport.js';

/** A spreadsheet import (docs/excel.md, "Import"). */
export interface ImportTask {
  readonly file: UploadDescriptor;
  readonly typeName: string;
  readonly mode?: 'create' | 'update' | 'upsert';
  readonly matchBy?: string;
  readonly mapping?: Readonly<Record<string, string | null>>;
  readonly relations?: Readonly<Record<string, 'name' | 'id'>>;
  readonly sheet?: string;
}

/** The state of an import; `errors` holds the first row errors. */
export interface ImportStatus {
  readonly id: string;
  readonly state: 'running' | 'completed' | 'failed' | 'interrupted';
  readonly processed: number;
  readonly created: number;
  readonly updated: number;
  readonly failed: number;
  readonly errors: readonly { readonly row: number; readonly message: string }[];
  readonly [member: string]: unknown;
}

export interface SearchOptions {
  /** The classes searched (plural names); the tenant's `generalSearchClasses` when absent. */
  readonly classes?: readonly string[];
  readonly size?: number;
}

type Key<S> = keyof S & string;

/** The bytes of an upload. */
export type FileData = Blob | Uint8Array<ArrayBuffer> | string;

export class OdpClient<S extends Schema<S> = Untyped> {
  private readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
  }

  /** The list of a class. */
  collection<K extends Key<S>>(typeName: K): Collection<S[K]> {
    return new Collection<S[K]>(this.transport, this.transport.dataPath(typeName));
  }

  /** The related list `relation` of the object `typeName/id`. */
  related<K extends Key<S>, R extends keyof S[K]['related'] & string>(
    typeName: K,
    id: string,
    relation: R,
  ): Collection<S[RelatedClass<S, K, R>], RelatedCreate<S, K, R>> {
    return new Collection(this.transport, this.transport.dataPath(typeName, id, relation));
  }

  list<K extends Key<S>>(
    typeName: K,
    filter?: Filter<S[K]>,
    options?: ListOptions<SortOf<S[K]>>,
  ): Promise<Page<S[K]['read']>> {
    return this.collection(typeName).list(filter, options);
  }

  /** Every object of a list, following `next`. */
  all<K extends Key<S>>(
    typeName: K,
    filter?: Filter<S[K]>,
    options?: ListOptions<SortOf<S[K]>>,
  ): AsyncGenerator<S[K]['read']> {
    return this.collection(typeName).all(filter, options);
  }

  create<K extends Key<S>>(
    typeName: K,
    body: S[K]['create'],
    options?: CreateOptions,
  ): Promise<Written<S[K]['read']>> {
    return this.collection(typeName).create(body, options);
  }

  /** Get one (a merged-away id follows the redirect to the surviving object). */
  get<K extends Key<S>>(typeName: K, id: string): Promise<S[K]['read']> {
    return this.transport.json(this.transport.dataPath(typeName, id));
  }

  /**
   * The object as it is now: `object` itself when it has not changed since it was read (the api
   * answers 304 to its version in `If-None-Match`), else the object read again.
   */
  async refresh<K extends Key<S>>(typeName: K, object: S[K]['read']): Promise<S[K]['read']> {
    const id = object._links._self.href.slice(-36);
    const response = await this.transport.send('GET', this.transport.dataPath(typeName, id), {
      headers: { 'If-None-Match': versionOf(object) },
    });
    return response.status === 304 ? object : ((await response.json()) as S[K]['read']);
  }

  /**
   * Writes all the operations or none (`POST /data/{tenant}/batch`); a refused operation rejects
   * with its problem, `operation` naming its index. `ops` builds operations typed like the single calls.
   */
  async batch(
    operations: (ops: BatchOperations<S>) => readonly BatchOperation[],
  ): Promise<readonly BatchResult[]> {
    const body = { operations: operations(new BatchOperations<S>()) };
    const response = await this.transport.send('POST', this.transport.dataPath('batch'), { body });
    return ((await response.json()) as { results: BatchResult[] }).results;
  }

  /** The object the caller's profile links to. */
  getOwn<K extends Key<S>>(typeName: K): Promise<S[K]['read']> {
    return this.transport.json(this.transport.dataPath(typeName, 'own'));
  }

  /** Patches an object and answers it as read. */
  async patch<K extends Key<S>>(
    typeName: K,
    id: string,
    body: S[K]['patch'],
    options: WriteOptions = {},
  ): Promise<Written<S[K]['read']>> {
    const response = await this.transport.send('PATCH', this.transport.dataPath(typeName, id), {
      ...options,
      body,
      headers: { Prefer: 'return=representation' },
    });
    return written(response);
  }

  async delete<K extends Key<S>>(typeName: K, id: string, options: WriteOptions = {}): Promise<void> {
    await (
      await this.transport.send('DELETE', this.transport.dataPath(typeName, id), options)
    ).body?.cancel();
  }

  /** Merges `loser` (id or URI) into the winner `typeName/id`, applying `patch` to the winner first. */
  async merge<K extends Key<S>>(
    typeName: K,
    id: string,
    loser: string,
    patch?: S[K]['patch'],
    options: WriteOptions = {},
  ): Promise<Written<S[K]['read']>> {
    const response = await this.transport.send('POST', this.transport.dataPath(typeName, id, 'merge'), {
      ...options,
      body: patch === undefined ? { loser } : { loser, patch },
      headers: { Prefer: 'return=representation' },
    });
    return written(response);
  }

  /** What the account may do with one object. */
  capabilities<K extends Key<S>>(typeName: K, id: string): Promise<ObjectCapabilities> {
    return this.transport.json(this.transport.dataPath(typeName, id, 'capabilities'));
  }

  /** Global search across classes; follow `next` for more. */
  search(q: string, options: SearchOptions = {}): Promise<Page<DataObject>> {
    return fetchPage(this.transport, this.transport.dataPath('search') + queryString({ q, ...options }));
  }

  /**
   * Uploads bytes (a signed upload URL, then the bytes to it without credential) and answers the
   * descriptor to put, unchanged, into a FILE or IMAGE field.
   */
  async upload(data: FileData, fileName: string): Promise<UploadDescriptor> {
    const url = await this.transport.json<string>(this.transport.dataPath('upload'));
    const form = new FormData();
    form.append('file', data instanceof Blob ? data : new Blob([data]), fileName);
    const [descriptor] = (await (
      await this.transport.signed(url, { method: 'POST', body: form })
    ).json()) as UploadDescriptor[];
    if (descriptor === undefined) throw new TypeError('The upload answered no descriptor.');
    return descriptor;
  }

  /**
   * The three upload steps in one: upload the bytes and store them in `field` of the object. For a
   * multiple field give `{ append: true }`: the field keeps its files (their `href`s) and gains this one.
   */
  async attach<K extends Key<S>>(
    typeName: K,
    id: string,
    field: string,
    file: { readonly data: FileData; readonly fileName: string },
    options: { readonly append?: boolean } = {},
  ): Promise<Written<S[K]['read']>> {
    const descriptor = await this.upload(file.data, file.fileName);
    let value: unknown = descriptor;
    if (options.append === true) {
      const held = ((await this.get(typeName, id)) as unknown as Readonly<Record<string, unknown>>)[field];
      const hrefs = Array.isArray(held) ? held.map((entry: { href: string }) => entry.href) : [];
      value = [...hrefs, descriptor];
    }
    return this.patch(typeName, id, { [field]: value } as S[K]['patch']);
  }

  /** A signed URL (2 minutes) of a file; `href` is the file value's `href` (its download route). */
  downloadUrl(href: string): Promise<string> {
    return this.transport.json<string>(href);
  }

  /** The bytes of a file value, fetched from its signed URL. */
  async download(href: string): Promise<Response> {
    return this.transport.signed(await this.downloadUrl(href));
  }

  /** A signed URL (2 minutes) of a report document of an object. */
  report<K extends Key<S>>(typeName: K, id: string, reportName: string, language?: string): Promise<string> {
    return this.transport.json(
      this.transport.dataPath(typeName, id, 'reports', reportName) + queryString({ language }),
    );
  }

  /** Starts a spreadsheet import of an uploaded `.xlsx` or `.csv` file. */
  async import(task: ImportTask): Promise<ImportStatus> {
    return (
      await this.transport.send('POST', this.transport.dataPath('import'), { body: task })
    ).json() as Promise<ImportStatus>;
  }

  importStatus(id: string): Promise<ImportStatus> {
    return this.transport.json(this.transport.dataPath('import', id));
  }

  /** The tenant's change events, reconnecting from the last one received; `break` ends the stream. */
  events(options?: EventStreamOptions): AsyncGenerator<ChangeEvent> {
    return changeEvents(this.transport, options);
  }

  /** A stream token and its URL, for a browser's `EventSource` (`new EventSource(client.url(href))`). */
  streamToken(values = false): Promise<StreamToken> {
    return streamToken(this.transport, values);
  }

  /** The absolute URL of an api path or href. */
  url(href: string): string {
    return this.transport.url(href);
  }
}

/** The version of an object as read (its `ETag`, built from `_modificationDate`), for `ifMatch`. */
export function versionOf(object: { readonly _modificationDate: string }): string {
  return `"${object._modificationDate}"`;
}

/** A client of one tenant; `S` is the `Schema` that `odp types` generated (optional). */
export function createClient<S extends Schema<S> = Untyped>(options: ClientOptions): OdpClient<S> {
  return new OdpClient<S>(options);
}
