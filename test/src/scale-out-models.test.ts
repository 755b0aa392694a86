/**
 * Model versions across two api processes that share nothing but the engines: each has its own
 * empty ODP_DATA_DIR, the platform registry and tenant stores are on MongoDB, the announcements on
 * Redis. The tenant's repository is read once (its first version); the other instance serves that
 * version without the directory; a reload through one instance, and `odp model push` with the
 * other's configuration, are served by both within seconds; a refused model changes nothing.
 */
import { cpSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { describeWithEngine } from '@odp/testkit';
import { addCompanyField } from './support/model-repository.js';
import { REPO_ROOT, runOdp, startServer } from './support/server.js';
import type { TestServer } from './support/server.js';

/** The MongoDB address naming `database` (both instances' registry and tenant stores). */
function urlWithDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** How long an instance may take to serve a version made current elsewhere ("within seconds"). */
const SWITCH_MS = 5000;

describeWithEngine(
  'model versions on two share-nothing api instances',
  'ODP_TEST_MONGODB_URL',
  (mongoUrl) => {
    describeWithEngine('and Redis', 'ODP_TEST_REDIS_URL', (redisUrl) => {
      const database = `odp_test_models_${process.pid}_${randomBytes(4).toString('hex')}`;
      const env = {
        ODP_STORE: 'mongodb',
        ODP_MONGODB_URL: urlWithDatabase(mongoUrl, database),
        ODP_REDIS_URL: redisUrl,
        ODP_SECRET_KEY: randomBytes(32).toString('hex'),
      };
      let root: string;
      let repository: string;
      let a: TestServer;
      let b: TestServer;
      let tenant: string;
      let key: string;

      const odp = async (server: TestServer, args: readonly string[]) => {
        const result = await runOdp(server.env, [...args, '--json']);
        if (result.code !== 0) throw new Error(`odp ${args.join(' ')}: ${result.stderr}`);
        return JSON.parse(result.stdout) as Record<string, unknown>;
      };
      const call = (server: TestServer, route: string, method = 'GET') =>
        fetch(`${server.baseUrl}${route}`, { method, headers: { 'X-API-Key': key } });
      const statusOn = async (server: TestServer) =>
        (await (await call(server, `/admin/${tenant}/modelStatus`)).json()) as Record<string, unknown>;
      /** The status `server` answers once it names `version`, or the last one after SWITCH_MS. */
      const servingOn = async (server: TestServer, version: unknown) => {
        const until = Date.now() + SWITCH_MS;
        let status = await statusOn(server);
        while (status['version'] !== version && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          status = await statusOn(server);
        }
        return status;
      };
      const companyFields = async (server: TestServer) => {
        const res = await call(server, `/metadata/${tenant}/form?classes=companies`);
        return JSON.stringify(await res.json());
      };
      beforeAll(async () => {
        root = mkdtempSync(path.join(os.tmpdir(), 'odp-scale-out-models-'));
        repository = path.join(root, 'crm');
        cpSync(path.join(REPO_ROOT, 'examples/models/crm'), repository, { recursive: true });
        // Each instance on its own empty data directory: nothing is shared but the engines.
        a = await startServer({ entry: 'api', env });
        b = await startServer({ entry: 'api', env });
        expect(a.dataDir).not.toBe(b.dataDir);
        tenant = String(
          (await odp(a, ['tenant', 'create', '--name', 'Models', '--model', repository]))['id'],
        );
        key = String((await odp(a, ['key', 'create', '--tenant', tenant]))['key']);
      }, 60_000);
      afterAll(async () => {
        await b?.stop();
        await a?.stop();
        rmSync(root, { recursive: true, force: true });
      });

      it('stores the repository as version 1 on first use; the other instance serves it without the directory', async () => {
        expect(await statusOn(a)).toMatchObject({ state: 'LOADED', version: 1 });
        const hidden = `${repository}-away`;
        renameSync(repository, hidden);
        try {
          expect(await statusOn(b)).toMatchObject({ state: 'LOADED', version: 1 });
          expect((await call(b, `/data/${tenant}/companies`)).status).toBe(200);
        } finally {
          renameSync(hidden, repository);
        }
      });

      it('serves a reload through A on B within seconds', async () => {
        addCompanyField(repository, 'reloadedField');
        const reloaded = await call(a, `/admin/${tenant}/reloadModel`, 'POST');
        if (reloaded.status !== 200) {
          throw new Error(
            `reloadModel answered ${reloaded.status}; the instance logged:\n${a.output().slice(-4000)}`,
          );
        }
        const status = (await reloaded.json()) as Record<string, unknown>;
        expect(status).toMatchObject({ state: 'LOADED', version: 2 });
        expect(await servingOn(b, 2)).toMatchObject({ state: 'LOADED', version: 2 });
        expect(await companyFields(b)).toContain('reloadedField');
      });

      it('serves on A within seconds a version pushed with odp on B’s configuration', async () => {
        const pushed = path.join(root, 'pushed');
        cpSync(repository, pushed, { recursive: true });
        addCompanyField(pushed, 'pushedField');
        const status = await odp(b, ['model', 'push', '--tenant', tenant, pushed]);
        expect(status).toMatchObject({ state: 'LOADED', version: 3 });
        expect(await servingOn(a, 3)).toMatchObject({ state: 'LOADED', version: 3 });
        expect(await servingOn(b, 3)).toMatchObject({ state: 'LOADED', version: 3 });
        expect(await companyFields(a)).toContain('pushedField');
      });

      it('leaves the current version serving on both when a reload is refused', async () => {
        writeFileSync(path.join(repository, 'classes/crm/company.json'), '{ not json');
        const refused = await call(b, `/admin/${tenant}/reloadModel`, 'POST');
        expect(refused.status).toBe(422);
        expect(await refused.json()).toMatchObject({ state: 'REFUSED', version: 3 });
        await new Promise((resolve) => setTimeout(resolve, 1000));
        expect(await statusOn(a)).toMatchObject({ state: 'LOADED', version: 3 });
        expect(await companyFields(a)).toContain('pushedField');
        expect((await call(b, `/data/${tenant}/companies`)).status).toBe(200);
      });
    });
  },
);
