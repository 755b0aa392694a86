/**
 * Tenant deletion on the scale-out backends (docs/admin.md): `DELETE /admin/{tenant}` and
 * `odp tenant delete` leave nothing of the tenant in any configured backend - its MongoDB
 * database, its Elasticsearch indexes, its blobs on S3 (MinIO) - and leave another tenant's alone.
 */
import { describeWithEngine } from '@odp/testkit';
import type { BlobStore } from '@odp/core';
import { openS3BlobStore } from '@odp/blobs-s3';
import { connectMongo, tenantDatabaseName } from '@odp/store-mongodb';
import { DataApi, DEMO } from './data-api.js';
import { REPO_ROOT, startServer } from './support/server.js';
import type { TestServer } from './support/server.js';

const BUCKET = 'odp-admin-deletion';

describeWithEngine('tenant deletion on MongoDB', 'ODP_TEST_MONGODB_URL', (mongoUrl) => {
  describeWithEngine('and Elasticsearch', 'ODP_TEST_ELASTICSEARCH_URL', (esUrl) => {
    describeWithEngine('and S3', 'ODP_TEST_S3_ENDPOINT', (s3Endpoint) => {
      let server: TestServer;
      let blobs: BlobStore;
      const s3 = {
        endpoint: s3Endpoint,
        bucket: BUCKET,
        accessKey: process.env['ODP_TEST_S3_ACCESS_KEY'] ?? null,
        secretKey: process.env['ODP_TEST_S3_SECRET_KEY'] ?? null,
        region: 'us-east-1',
      };

      beforeAll(async () => {
        server = await startServer({
          env: {
            ODP_STORE: 'mongodb',
            ODP_MONGODB_URL: mongoUrl,
            ODP_SEARCH: 'elasticsearch',
            ODP_ELASTICSEARCH_URL: esUrl,
            ODP_BLOBS: 's3',
            ODP_S3_ENDPOINT: s3Endpoint,
            ODP_S3_BUCKET: BUCKET,
            ODP_S3_ACCESS_KEY: s3.accessKey ?? '',
            ODP_S3_SECRET_KEY: s3.secretKey ?? '',
          },
        });
        blobs = await openS3BlobStore(s3);
      }, 120_000);
      afterAll(async () => {
        await blobs?.close();
        await server?.stop();
      });

      /** A tenant with the CRM model and data, a search run (its index exists) and stored files. */
      async function populatedTenant(name: string): Promise<{ api: DataApi; reportUrl: string }> {
        const model = `${REPO_ROOT}/examples/models/crm`;
        const tenant = String(
          (await server.odp(['tenant', 'create', '--name', name, '--model', model]))['id'],
        );
        const key = String((await server.odp(['key', 'create', '--tenant', tenant]))['key']);
        const api = new DataApi(server, tenant, key);
        expect((await api.call('POST', '/loadDefaultData')).status).toBe(200);
        expect((await api.call('GET', '/companies?q=acme')).status).toBe(200);
        const uploadUrl = (await (await api.call('GET', '/upload')).json()) as string;
        const form = new FormData();
        form.append('file', new Blob([Buffer.from('hello')], { type: 'text/plain' }), 'a.txt');
        expect((await fetch(uploadUrl, { method: 'POST', body: form })).status).toBe(200);
        const report = await api.call('GET', `/invoices/${DEMO.invoice1}/reports/invoice`);
        const reportUrl = (await report.json()) as string;
        return { api, reportUrl };
      }

      async function backends(
        tenantId: string,
      ): Promise<{ database: boolean; indexes: string[]; blobs: number }> {
        const client = await connectMongo(mongoUrl);
        try {
          const names = (await client.db().admin().listDatabases()).databases.map((db) => db.name);
          const res = await fetch(`${esUrl}/_cat/indices/odp-${tenantId}*?format=json`);
          const indexes = ((await res.json()) as { index: string }[]).map((entry) => entry.index);
          let count = 0;
          for (const prefix of [`files/${tenantId}/`, `uploads/${tenantId}/`, `generated/${tenantId}/`]) {
            for await (const info of blobs.list(prefix)) if (info.key.startsWith(prefix)) count += 1;
          }
          return { database: names.includes(tenantDatabaseName(tenantId)), indexes, blobs: count };
        } finally {
          await client.close();
        }
      }

      it('DELETE /admin/{tenant}?deleteTenant=true empties every backend of that tenant only', async () => {
        const doomed = await populatedTenant('Doomed Scale');
        const kept = await populatedTenant('Kept Scale');
        const before = await backends(doomed.api.tenant);
        expect(before.database).toBe(true);
        expect(before.indexes.length).toBeGreaterThan(0);
        expect(before.blobs).toBe(4); // the upload's bytes and record, the report's bytes and generated mark

        const res = await fetch(
          `${server.baseUrl}/admin/${doomed.api.tenant}?name=Doomed%20Scale&deleteTenant=true`,
          { method: 'DELETE', headers: { 'X-API-Key': doomed.api.systemKey } },
        );
        expect(res.status).toBe(200);
        expect(await backends(doomed.api.tenant)).toEqual({ database: false, indexes: [], blobs: 0 });
        expect((await fetch(doomed.reportUrl)).status).toBe(404);

        const other = await backends(kept.api.tenant);
        expect(other.database).toBe(true);
        expect(other.indexes.length).toBeGreaterThan(0);
        expect((await fetch(kept.reportUrl)).status).toBe(200);
        expect((await kept.api.rows('/invoices')).length).toBe(3);
      }, 120_000);

      it('odp tenant delete empties every backend too (search index and blobs included)', async () => {
        const doomed = await populatedTenant('Odp Doomed Scale');
        expect((await backends(doomed.api.tenant)).indexes.length).toBeGreaterThan(0);
        await server.odp(['tenant', 'delete', '--id', doomed.api.tenant]);
        expect(await backends(doomed.api.tenant)).toEqual({ database: false, indexes: [], blobs: 0 });
        expect((await doomed.api.call('GET', '/invoices')).status).toBe(401);
      }, 120_000);
    });
  });
});
