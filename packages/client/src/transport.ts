/**
 * One request to the api: the base URL, the credential (an API key, or a function that returns a
 * current access token, asked before every request so a refreshed token is used at once), JSON
 * bodies, and a refused answer turned into an `OdpProblem`. Signed URLs (`/binaries/...`) are
 * fetched without any credential: the api refuses one there, so a key never reaches a shared URL.
 */
import { problemOf } from './problem.js';

export interface ClientOptions {
  /** Where the api is served, e.g. `https://odp.example.com` (no trailing path needed). */
  readonly baseUrl: string;
  /** The tenant id. */
  readonly tenant: string;
  /** An API key (`X-API-Key`), for servers and scripts. */
  readonly apiKey?: string;
  /** The current access token of a signed-in person (`Authorization: Bearer`), asked per request. */
  readonly accessToken?: () => string | Promise<string>;
  /** The fetch to use (the global one by default). */
  readonly fetch?: typeof fetch;
}

/** Headers of a write that the api reads when it supports them, and ignores before. */
export interface WriteOptions {
  /** `If-Match`: the write applies only while the object has this entity tag (its version). */
  readonly ifMatch?: string;
  /** `Idempotency-Key`: a retried create with the same key and body creates nothing twice. */
  readonly idempotencyKey?: string;
}

export interface RequestOptions extends WriteOptions {
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

export class Transport {
  readonly baseUrl: string;
  readonly tenant: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    if (options.apiKey !== undefined && options.accessToken !== undefined) {
      throw new TypeError('Give apiKey or accessToken, not both: the api accepts exactly one credential.');
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.tenant = options.tenant;
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** An absolute URL of an api path or href (hrefs in answers are paths; signed URLs are absolute). */
  url(pathOrUrl: string): string {
    return /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : `${this.baseUrl}${pathOrUrl}`;
  }

  /** `/data/{tenant}` followed by the segments, each encoded. */
  dataPath(...segments: readonly string[]): string {
    return ['', 'data', this.tenant, ...segments].map(encodeURIComponent).join('/');
  }

  /** The credential header of this client. */
  async credentialHeaders(): Promise<Record<string, string>> {
    if (this.options.apiKey !== undefined) return { 'X-API-Key': this.options.apiKey };
    if (this.options.accessToken !== undefined) {
      return { Authorization: `Bearer ${await this.options.accessToken()}` };
    }
    return {};
  }

  /** A request with the credential; resolves the response when ok, rejects with the problem otherwise. */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...(await this.credentialHeaders()), ...options.headers };
    if (options.ifMatch !== undefined) headers['If-Match'] = options.ifMatch;
    if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const init: RequestInit = { method, headers, body, signal: options.signal };
    return ok(await this.fetch(this.url(path), init));
  }

  /** A GET answering JSON. */
  async json<T>(path: string, options: RequestOptions = {}): Promise<T> {
    return (await (await this.send('GET', path, options)).json()) as T;
  }

  /** A fetch of a signed URL (the token in it is the credential): no credential header. */
  async signed(url: string, init: RequestInit = {}): Promise<Response> {
    return ok(await this.fetch(this.url(url), init));
  }

  /** A fetch with the credential that leaves the status to the caller (the event stream). */
  async raw(url: string, init: RequestInit & { credential: boolean }): Promise<Response> {
    const headers = {
      ...(init.credential ? await this.credentialHeaders() : {}),
      ...(init.headers as Record<string, string>),
    };
    return this.fetch(this.url(url), { ...init, headers });
  }
}

async function ok(response: Response): Promise<Response> {
  if (response.ok || response.status === 304) return response;
  throw await problemOf(response);
}

/** A query string (with its `?`) of the given parameters; undefined values are left out. */
export function queryString(params: Readonly<Record<string, unknown>>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (value === null) search.append(name, '');
    else if (Array.isArray(value)) search.append(name, value.join(','));
    else search.append(name, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
