/**
 * A small client for the object data API suites (`data*.test.ts`): a real server with the demo
 * tenant (examples/models/crm) and its default data loaded, and helpers that speak the API with the
 * demo tenant's system key unless told otherwise.
 */
import path from 'node:path';
import { REPO_ROOT, startServer } from './support/server.js';
import type { ServerOptions, TestServer } from './support/server.js';

/** Ids of the demo tenant's default data (examples/models/crm/data/crm.json). */
export const DEMO = {
  ann: '5a0e8f4e-7c1b-4d6a-9b1e-0000000a0001',
  bob: '5a0e8f4e-7c1b-4d6a-9b1e-0000000a0002',
  carla: '5a0e8f4e-7c1b-4d6a-9b1e-0000000a0003',
  acme: '3c9d2b71-0f4e-4a8b-8c2d-0000000c0001',
  globex: '3c9d2b71-0f4e-4a8b-8c2d-0000000c0002',
  invoice1: '9e7b4c10-2a3d-4f5e-8a6b-0000000f0001',
  invoice2: '9e7b4c10-2a3d-4f5e-8a6b-0000000f0002',
  invoice3: '9e7b4c10-2a3d-4f5e-8a6b-0000000f0003',
  line1: '6d2f8a93-5b7c-4e1d-9f0a-00000001a001',
  line2: '6d2f8a93-5b7c-4e1d-9f0a-00000001a002',
  line3: '6d2f8a93-5b7c-4e1d-9f0a-00000001a003',
} as const;

export type Json = Record<string, unknown>;

export interface CallOptions {
  readonly body?: unknown;
  /** An API key; the system key when absent, none when null. */
  readonly key?: string | null;
  readonly headers?: Record<string, string>;
}

export class DataApi {
  constructor(
    readonly server: TestServer,
    readonly tenant: string,
    readonly systemKey: string,
  ) {}

  /** `/data/{tenant}` + `route`. */
  path(route: string): string {
    return `/data/${this.tenant}${route}`;
  }

  href(plural: string, id: string): string {
    return this.path(`/${plural}/${id}`);
  }

  call(method: string, route: string, options: CallOptions = {}): Promise<Response> {
    const headers = new Headers(options.headers);
    const key = options.key === undefined ? this.systemKey : options.key;
    if (key !== null) headers.set('X-API-Key', key);
    let body: string | undefined;
    if (options.body !== undefined) {
      headers.set('Content-Type', 'application/json');
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    return fetch(`${this.server.baseUrl}${this.path(route)}`, { method, headers, body, redirect: 'manual' });
  }

  /** GET that must answer 200; the parsed body. */
  async get<T = Json>(route: string, key?: string | null): Promise<T> {
    const res = await this.call('GET', route, { key });
    if (res.status !== 200) throw new Error(`GET ${route}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  /** Create that must answer 201; the new object's id. */
  async create(plural: string, body: Json, route = `/${plural}`): Promise<string> {
    const res = await this.call('POST', route, { body });
    if (res.status !== 201) throw new Error(`POST ${route}: ${res.status} ${await res.text()}`);
    return (res.headers.get('location') ?? '').slice(-36);
  }

  /** Rows of a list response under its plural. */
  async rows(route: string, key?: string | null): Promise<Json[]> {
    const page = await this.get<{ _embedded: Record<string, Json[]> }>(route, key);
    return Object.values(page._embedded)[0] ?? [];
  }

  /** The ids of a list response, in order. */
  async ids(route: string): Promise<string[]> {
    return (await this.rows(route)).map(idOf);
  }
}

export function idOf(object: Json): string {
  const links = object['_links'] as { _self: { href: string } };
  return links._self.href.slice(-36);
}

/** Starts a server with the demo tenant and loads its default data. */
export async function startDataServer(options: ServerOptions = {}): Promise<DataApi> {
  const server = await startServer(options);
  const api = new DataApi(server, server.tenantId ?? '', server.systemKey ?? '');
  const res = await api.call('POST', '/loadDefaultData');
  if (res.status !== 200) {
    const output = server.output();
    await server.stop();
    throw new Error(`loadDefaultData: ${res.status} ${await res.text()}\n${output}`);
  }
  return api;
}

/**
 * A second tenant on the same server, from the demo model (examples/models/crm) with its default
 * data loaded, and a key of it: the neighbour of the flood suites.
 */
export async function createNeighbour(api: DataApi, name: string): Promise<{ tenant: string; key: string }> {
  const model = path.join(REPO_ROOT, 'examples/models/crm');
  const tenant = String((await api.server.odp(['tenant', 'create', '--name', name, '--model', model]))['id']);
  const key = String((await api.server.odp(['key', 'create', '--tenant', tenant]))['key']);
  const loaded = await fetch(`${api.server.baseUrl}/data/${tenant}/loadDefaultData`, {
    method: 'POST',
    headers: { 'X-API-Key': key },
  });
  if (loaded.status !== 200) throw new Error(`loadDefaultData: ${loaded.status}`);
  return { tenant, key };
}
