import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { ConflictError, createInProcessCoordination, NotFoundError, sharedRegistry } from '@odp/core';
import type { Coordination } from '@odp/core';
import { loadConfig, platformDatabasePath } from '@odp/config';
import { openSqlitePlatformRegistry } from '@odp/store-sqlite';
import type { SqlitePlatformRegistry } from '@odp/store-sqlite';
import { openTenantStores } from './tenant-stores.js';
import { createLogger } from './log.js';
import { openSearchEngine } from './search-engine.js';
import { createTenantRuntimes } from './tenant-runtime.js';
import type { RuntimeContext, TenantRuntime, TenantRuntimes } from './tenant-runtime.js';

describe('TenantRuntimes', () => {
  let dir: string;
  let registry: SqlitePlatformRegistry;
  let runtimes: TenantRuntimes;
  let coordination: Coordination;
  /** The runtimes of a second instance over the same registry and coordination. */
  let other: TenantRuntimes;
  let context: RuntimeContext;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'odp-runtime-'));
    const config = loadConfig({ ODP_DATA_DIR: dir });
    registry = openSqlitePlatformRegistry(platformDatabasePath(config));
    coordination = createInProcessCoordination();
    const log = createLogger(new PassThrough());
    context = {
      config,
      registry,
      log,
      coordination,
      stores: await openTenantStores(config),
      search: await openSearchEngine(config, log),
    };
    runtimes = createTenantRuntimes(context);
    other = createTenantRuntimes(context);
  });
  afterEach(async () => {
    await runtimes.closeAll();
    await other.closeAll();
    await coordination.close();
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens a runtime once per tenant, with its data directory', async () => {
    const tenant = await registry.createTenant({ name: 'T', modelSource: null });
    const [a, b] = await Promise.all([runtimes.get(tenant.id), runtimes.get(tenant.id)]);
    expect(a).toBe(b);
    expect(a.tenant).toEqual(tenant);
    expect(a.dataDir).toBe(path.join(dir, 'tenants', tenant.id));
    expect(statSync(a.dataDir).isDirectory()).toBe(true);
    expect(await runtimes.get(tenant.id)).toBe(a);
  });

  it('reopens after evict', async () => {
    const tenant = await registry.createTenant({ name: 'T', modelSource: null });
    const first = await runtimes.get(tenant.id);
    await runtimes.evict(tenant.id);
    expect(await runtimes.get(tenant.id)).not.toBe(first);
  });

  it('keeps a tenant closed while work runs: a get meanwhile waits and then opens it again', async () => {
    const tenant = await registry.createTenant({ name: 'T', modelSource: null });
    const first = await runtimes.get(tenant.id);
    const order: string[] = [];
    let finish = (): void => undefined;
    const work = runtimes.closedWhile(tenant.id, async () => {
      order.push('work started');
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      order.push('work done');
      return 42;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const reopened = runtimes.get(tenant.id).then((runtime) => {
      order.push('opened');
      return runtime;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual(['work started']);
    finish();
    expect(await work).toBe(42);
    expect(await reopened).not.toBe(first);
    expect(order).toEqual(['work started', 'work done', 'opened']);
  });

  it('a get while a deletion runs finds the tenant gone', async () => {
    const tenant = await registry.createTenant({ name: 'T', modelSource: null });
    await runtimes.get(tenant.id);
    const deleting = runtimes.closedWhile(tenant.id, () => registry.deleteTenant(tenant.id));
    const get = runtimes.get(tenant.id);
    expect(await deleting).toBe(true);
    await expect(get).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses an unknown tenant with NotFoundError and does not cache the failure', async () => {
    await expect(runtimes.get('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(NotFoundError);
    await expect(runtimes.get('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('evicts a runtime when a tenant change is announced', async () => {
    const tenant = await registry.createTenant({ name: 'T', modelSource: null });
    const first = await runtimes.get(tenant.id);
    await runtimes.apply({ kind: 'tenant', tenantId: tenant.id });
    expect(await runtimes.get(tenant.id)).not.toBe(first);
  });

  it('wakes the event streams of every instance when one announces a change', async () => {
    const tenant = await registry.createTenant({ name: 'T', modelSource: null });
    const [here, there] = [await runtimes.get(tenant.id), await other.get(tenant.id)];
    const woken: string[] = [];
    here.changes.subscribe(() => woken.push('here'));
    there.changes.subscribe(() => woken.push('there'));
    await coordination.changes.publish(tenant.id, '1');
    expect(woken.sort()).toEqual(['here', 'there']);
  });

  describe('rebuild lease', () => {
    /** Starts a job on the runtime's tracker that runs until `finish` is called. */
    const holdingJob = () => {
      let finish = () => undefined as void;
      const done = new Promise<void>((resolve) => (finish = resolve));
      return {
        finish,
        start: (tracker: TenantRuntime['rebuilds']) => () => tracker.start('test', () => done),
      };
    };

    it('lets one instance run a tenant rebuild at a time and frees the lease when the job ends', async () => {
      const tenant = await registry.createTenant({ name: 'T', modelSource: null });
      const [here, there] = [await runtimes.get(tenant.id), await other.get(tenant.id)];
      const job = holdingJob();
      expect((await here.startExclusive(job.start(here.rebuilds))).state).toBe('running');
      const refused = there.startExclusive(holdingJob().start(there.rebuilds));
      await expect(refused).rejects.toBeInstanceOf(ConflictError);
      await expect(refused).rejects.toThrow('running on another instance');
      await expect(here.startExclusive(holdingJob().start(here.rebuilds))).rejects.toThrow('already running');
      job.finish();
      await here.rebuilds.settled();
      await new Promise((resolve) => setImmediate(resolve));
      const next = holdingJob();
      expect((await there.startExclusive(next.start(there.rebuilds))).state).toBe('running');
      next.finish();
      await there.rebuilds.settled();
    });

    it('releases the lease when the job does not start', async () => {
      const tenant = await registry.createTenant({ name: 'T', modelSource: null });
      const [here, there] = [await runtimes.get(tenant.id), await other.get(tenant.id)];
      await expect(
        here.startExclusive(() => {
          throw new ConflictError('refused');
        }),
      ).rejects.toThrow('refused');
      const job = holdingJob();
      expect((await there.startExclusive(job.start(there.rebuilds))).state).toBe('running');
      job.finish();
      await there.rebuilds.settled();
    });
  });

  it('stops a running class job when the runtime closes, before its stores close', async () => {
    const repository = path.join(dir, 'model');
    cpSync(path.resolve(__dirname, '../../../examples/models/crm'), repository, { recursive: true });
    const tenant = await registry.createTenant({ name: 'T', modelSource: repository });
    const runtime = await runtimes.get(tenant.id);
    await runtime.data().objects.jobs.loadDefaultData({ kind: 'system', tenantId: tenant.id });
    const errors: unknown[] = [];
    expect((await runtime.startClassJob('sync', 'persons', (error) => errors.push(error))).state).toBe(
      'running',
    );
    await runtimes.evict(tenant.id);
    expect(runtime.classJobs.sync.status()).toMatchObject({ state: 'failed', processed: 0 });
    expect(String(errors[0])).toContain('being changed');
    expect(() => runtime.data()).toThrow('being changed');
  });

  /** Adds `reloadedField` to crm.company in the tenant's repository. */
  const changeRepository = (repository: string) => {
    const file = path.join(repository, 'classes/crm/company.json');
    const definition = JSON.parse(readFileSync(file, 'utf8')) as { fields: object[] };
    definition.fields.push({ name: 'reloadedField', type: 'TEXT' });
    writeFileSync(file, JSON.stringify(definition));
  };
  const fieldsOf = (runtime: TenantRuntime) => [
    ...runtime.model.model!.classes.get('crm.company')!.fields.keys(),
  ];
  const crmTenant = async () => {
    const repository = path.join(dir, 'model');
    cpSync(path.resolve(__dirname, '../../../examples/models/crm'), repository, { recursive: true });
    return { repository, tenant: await registry.createTenant({ name: 'T', modelSource: repository }) };
  };

  it('switches every instance to the version a reload through one stored, announced; once on the one that reloaded', async () => {
    // Instances coordinated as with Redis: the registry's writes are announced (sharedRegistry).
    const announcing = { ...context, registry: sharedRegistry(registry, coordination.invalidations) };
    const [first, second] = [createTenantRuntimes(announcing), createTenantRuntimes(announcing)];
    try {
      const { repository, tenant } = await crmTenant();
      for (const instance of [first, second]) {
        await coordination.invalidations.subscribe((message) => void instance.apply(message));
      }
      const [here, there] = [await first.get(tenant.id), await second.get(tenant.id)];
      expect(fieldsOf(there)).not.toContain('reloadedField');
      // The repository read on first open is stored as version 1 (data from before model versions).
      expect([here.model.status.version, there.model.status.version]).toEqual([1, 1]);
      changeRepository(repository);
      const checkedBefore = here.model.status.checkedAt;
      expect(await here.reloadModel()).toMatchObject({ state: 'LOADED', version: 2 });
      const checkedByReload = here.model.status.checkedAt;
      expect(checkedByReload).not.toBe(checkedBefore);
      expect(fieldsOf(here)).toContain('reloadedField');
      for (let i = 0; i < 100 && !fieldsOf(there).includes('reloadedField'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(fieldsOf(there)).toContain('reloadedField');
      expect(there.model.status.version).toBe(2);
      expect(here.model.status.checkedAt).toBe(checkedByReload);
      expect((await registry.modelVersions.current(tenant.id))?.version).toBe(2);
    } finally {
      await first.closeAll();
      await second.closeAll();
    }
  });

  it('switches an instance that heard no announcement when it follows the current versions (the poll)', async () => {
    const { repository, tenant } = await crmTenant();
    const [here, there] = [await runtimes.get(tenant.id), await other.get(tenant.id)];
    changeRepository(repository);
    expect((await here.reloadModel()).version).toBe(2);
    expect(fieldsOf(there)).not.toContain('reloadedField');
    await other.followModelVersions(await registry.modelVersions.currentOfAll());
    expect(fieldsOf(there)).toContain('reloadedField');
    expect(there.model.status).toMatchObject({ state: 'LOADED', version: 2 });
  });

  it('never makes a refused model a version: the current one keeps serving everywhere', async () => {
    const { repository, tenant } = await crmTenant();
    const [here, there] = [await runtimes.get(tenant.id), await other.get(tenant.id)];
    writeFileSync(path.join(repository, 'classes/crm/company.json'), '{ not json');
    const refused = await here.reloadModel();
    expect(refused).toMatchObject({ state: 'REFUSED', version: 1 });
    expect(refused.errors.length).toBeGreaterThan(0);
    expect((await registry.modelVersions.list(tenant.id)).map((v) => v.version)).toEqual([1]);
    await other.followModelVersions(await registry.modelVersions.currentOfAll());
    expect(there.model.status).toMatchObject({ state: 'LOADED', version: 1 });
    expect(here.data()).toBeDefined();
  });
});
