/**
 * The process's MongoDB client, connected before the api accepts requests: an unreachable server
 * is reported once at startup, not as failing requests later.
 */
import { MongoClient } from 'mongodb';

/** No server answered at the configured address. The message names the hosts, never credentials. */
export class MongoUnreachableError extends Error {
  constructor(readonly hosts: string) {
    super(`no MongoDB server answered at ${hosts}`);
    this.name = 'MongoUnreachableError';
  }
}

/** The host list of a `mongodb://` or `mongodb+srv://` address, without user, password, path or options. */
export function hostsOf(url: string): string {
  const rest = url.replace(/^[a-z+]+:\/\//i, '');
  const authority = rest.split(/[/?]/, 1)[0] ?? '';
  return authority.slice(authority.lastIndexOf('@') + 1);
}

/** The database named in the address's path (`mongodb://host/<database>?...`), or null when none is. */
export function databaseOf(url: string): string | null {
  const rest = url.replace(/^[a-z+]+:\/\//i, '');
  const slash = rest.indexOf('/');
  if (slash < 0) return null;
  const name = decodeURIComponent(rest.slice(slash + 1).split('?', 1)[0] ?? '');
  return name === '' ? null : name;
}

/** Connects and pings; MongoUnreachableError when no server answers within `timeoutMs` (default 5 s). */
export async function connectMongo(url: string, timeoutMs = 5000): Promise<MongoClient> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs });
  try {
    await client.connect();
    await client.db('admin').command({ ping: 1 });
    return client;
  } catch {
    await client.close().catch(() => undefined);
    throw new MongoUnreachableError(hostsOf(url));
  }
}

/** The database of one tenant: `odp_` and the tenant id's letters and digits (ids are UUIDs). */
export function tenantDatabaseName(tenantId: string): string {
  return `odp_${tenantId.replace(/[^A-Za-z0-9]/g, '')}`;
}
