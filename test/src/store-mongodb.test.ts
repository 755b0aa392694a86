/**
 * The api on `ODP_STORE=mongodb`: it refuses to start when no server answers (one line naming the
 * variable and the hosts, never the credentials), and with a server (FerretDB here, from
 * tooling/engines) it keeps the tenants' objects and the platform registry there, not in the data
 * directory, and `odp tenant delete` drops them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeWithEngine } from '@odp/testkit';
import { connectMongo, tenantDatabaseName } from '@odp/store-mongodb';
import { freePort, REPO_ROOT, startServer } from './support/server.js';
import type { TestServer } from './support/server.js';

describe('ODP_STORE=mongodb without a server', () => {
  it.each(['apps/api/src/main.ts', 'apps/api/src/embedded.ts'])(
    '%s stops with one line naming ODP_MONGODB_URL and its host',
    async (entry) => {
      const port = await freePort();
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-mongodb-down-'));
      try {
        const result = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@odp/source', entry], {
          cwd: REPO_ROOT,
          env: {
            ...process.env,
            PORT: String(await freePort()),
            ODP_DATA_DIR: dataDir,
            ODP_STORE: 'mongodb',
            ODP_MONGODB_URL: `mongodb://odp:hunter2@127.0.0.1:${port}/odp`,
          },
          encoding: 'utf8',
          timeout: 30_000,
        });
        expect(result.stderr).toBe(
          `odp: configuration error: ODP_MONGODB_URL: no MongoDB server answered at 127.0.0.1:${port}\n`,
        );
        expect(result.status).toBe(2);
        expect(result.stdout).not.toContain('hunter2');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});

describeWithEngine('ODP_STORE=mongodb with a server', 'ODP_TEST_MONGODB_URL', (url) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ env: { ODP_STORE: 'mongodb', ODP_MONGODB_URL: url } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('keeps the demo tenant objects in MongoDB and serves them', async () => {
    const headers = { 'X-API-Key': String(server.systemKey) };
    const base = `${server.baseUrl}/data/${server.tenantId}`;
    const created = await fetch(`${base}/companies`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ legalName: 'Mongo Test BV' }),
    });
    expect(created.status).toBe(201);
    const list = await fetch(`${base}/companies?legalName=mongo test bv`, { headers });
    expect(list.status).toBe(200);
    const body = (await list.json()) as { _embedded: { companies: { legalName: string }[] } };
    expect(body._embedded.companies.map((company) => company.legalName)).toEqual(['Mongo Test BV']);
    const tenantDir = path.join(server.dataDir, 'tenants', String(server.tenantId));
    expect(existsSync(path.join(tenantDir, 'documents.sqlite'))).toBe(false);
  });

  it('keeps the platform registry in the database the address names, not in the data directory', async () => {
    expect(existsSync(path.join(server.dataDir, 'platform.sqlite'))).toBe(false);
    const client = await connectMongo(server.env['ODP_MONGODB_URL'] ?? '');
    try {
      const tenants = await client.db().collection('tenants').find().toArray();
      expect(tenants.map((tenant) => tenant['_id'])).toEqual([server.tenantId]);
      const keys = await client.db().collection('apiKeys').find().toArray();
      expect(keys.length).toBeGreaterThan(0);
      expect(JSON.stringify(keys)).not.toContain(String(server.systemKey));
    } finally {
      await client.close();
    }
  });

  it('drops the tenant database on odp tenant delete', async () => {
    const client = await connectMongo(url);
    try {
      const names = async () =>
        (await client.db().admin().listDatabases()).databases.map((database) => database.name);
      const database = tenantDatabaseName(String(server.tenantId));
      expect(await names()).toContain(database);
      await server.odp(['tenant', 'delete', '--id', String(server.tenantId)]);
      expect(await names()).not.toContain(database);
    } finally {
      await client.close();
    }
  });
});
