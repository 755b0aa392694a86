/**
 * The audit branch and the access-control rebuild through the real server: the per-record report
 * and the definition resolution report exactly as the interface spec's Audit response shapes, the
 * same 404 as a plain read (the admin role does not lift it), and unresolved rows and orphaned ids
 * after a model change, which a rebuild clears.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataApi, DEMO } from './data-api.js';
import type { Json } from './data-api.js';
import { createAccount } from './support/accounts.js';
import type { TestAccount } from './support/accounts.js';
import { REPO_ROOT, startServer } from './support/server.js';
import type { TestServer } from './support/server.js';

let dataDir: string;
let modelDir: string;
let server: TestServer;
let demo: DataApi;
let ann: TestAccount;
let carla: TestAccount;

async function send(
  method: string,
  route: string,
  key: string,
): Promise<{ status: number; body: Json | null; location: string | null }> {
  const res = await fetch(`${server.baseUrl}${route}`, { method, headers: { 'X-API-Key': key } });
  const body = res.headers.get('content-type')?.includes('json') ? ((await res.json()) as Json) : null;
  return { status: res.status, body, location: res.headers.get('location') };
}

async function loadDefaultData(api: DataApi): Promise<void> {
  const res = await api.call('POST', '/loadDefaultData');
  if (res.status !== 200) throw new Error(`loadDefaultData: ${res.status}`);
}

/** Polls the tenant's rebuild status until it is no longer running. */
async function rebuildSettled(tenant: string, key: string): Promise<Json> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const { body } = await send('GET', `/admin/${tenant}/rebuild`, key);
    if (body?.['state'] !== 'running') return body ?? {};
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('rebuild did not finish');
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-audit-'));
  modelDir = mkdtempSync(path.join(os.tmpdir(), 'odp-audit-model-'));
  cpSync(path.join(REPO_ROOT, 'examples/models/crm'), modelDir, { recursive: true });
  server = await startServer({ dataDir });
  demo = new DataApi(server, server.tenantId ?? '', server.systemKey ?? '');
  await loadDefaultData(demo);
  ann = await createAccount(demo, { name: 'ann', role: 'member', objectId: DEMO.ann });
  carla = await createAccount(demo, {
    name: 'carla',
    role: 'member',
    extraRoles: ['accountant'],
    objectId: DEMO.carla,
  });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(modelDir, { recursive: true, force: true });
});

describe('GET /audit/{tenant}/{typePluralName}/{id}/access', () => {
  it('reports one grant per ACL row, with roles and the holders of anchored grants', async () => {
    const { status, body } = await send(
      'GET',
      `/audit/${demo.tenant}/invoices/${DEMO.invoice1}/access`,
      demo.systemKey,
    );
    expect(status).toBe(200);
    const grants = (body?.['grants'] ?? []) as Json[];
    expect(body?.['unresolved']).toEqual([]);
    expect(grants.map((grant) => `${grant['definition']}/${grant['nodeId']}`).sort()).toEqual([
      'allInvoices/n-all-invoices',
      'companyTeam/n-invoices',
      'everything/n-all-invoices',
    ]);
    const team = grants.find((grant) => grant['definition'] === 'companyTeam');
    expect(team).toEqual({
      definition: 'companyTeam',
      acId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      nodeId: 'n-invoices',
      nodeClass: 'crm.invoice',
      objectAllows: ['READ', 'WRITE', 'CREATE', 'DELETE'],
      roles: [
        { role: 'member' },
        { role: 'viewer', roleGrants: ['READ'] },
        { role: 'accountant', roleGrants: ['READ', 'WRITE'] },
      ],
      holders: expect.arrayContaining([
        {
          holderId: DEMO.ann,
          holderName: 'Ann de Vries',
          accountId: ann.profileId,
          stepPath: ['st-emp'],
          hasRole: true,
          roles: ['member'],
        },
        {
          holderId: DEMO.bob,
          holderName: 'Bob Jansen',
          accountId: null,
          stepPath: ['st-emp'],
          hasRole: false,
          roles: [],
        },
      ]),
    });
    expect(team?.['holders']).toHaveLength(2);
    const pathless = grants.find((grant) => grant['definition'] === 'allInvoices');
    expect(pathless).toEqual({
      definition: 'allInvoices',
      acId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      nodeId: 'n-all-invoices',
      nodeClass: 'crm.invoice',
      objectAllows: ['READ'],
      roles: [{ role: 'member' }, { role: 'accountant' }],
    });
  });

  it('a holder with a narrowed role lists it; a zero-hop holder is the anchor itself', async () => {
    const globexInvoice = await send(
      'GET',
      `/audit/${demo.tenant}/invoices/${DEMO.invoice3}/access`,
      demo.systemKey,
    );
    const team = ((globexInvoice.body?.['grants'] ?? []) as Json[]).find(
      (grant) => grant['definition'] === 'companyTeam',
    );
    expect(team?.['holders']).toEqual([
      {
        holderId: DEMO.carla,
        holderName: 'Carla Smit',
        accountId: carla.profileId,
        stepPath: ['st-emp'],
        hasRole: true,
        roles: ['member', 'accountant'],
      },
    ]);
    const self = await send('GET', `/audit/${demo.tenant}/persons/${DEMO.ann}/access`, demo.systemKey);
    const own = ((self.body?.['grants'] ?? []) as Json[]).find((grant) => grant['definition'] === 'ownData');
    expect(own).toMatchObject({ nodeId: 'n-self', nodeClass: 'crm.person', objectAllows: ['READ', 'WRITE'] });
    expect(own?.['holders']).toEqual([
      {
        holderId: DEMO.ann,
        holderName: 'Ann de Vries',
        accountId: ann.profileId,
        stepPath: [],
        hasRole: true,
        roles: ['member'],
      },
    ]);
  });

  it.each<[string, string]>([
    ['an unknown id', `/invoices/00000000-0000-4000-8000-000000000999`],
    ['a malformed id', '/invoices/nope'],
    ['an object under a plural it does not have', `/companies/${DEMO.invoice1}`],
    ['an unknown plural', `/widgets/${DEMO.invoice1}`],
  ])('is 404 for %s', async (_name, route) => {
    expect((await send('GET', `/audit/${demo.tenant}${route}/access`, demo.systemKey)).status).toBe(404);
  });

  it('is 403 for a member (the audit branch is admin only)', async () => {
    expect(
      (await send('GET', `/audit/${demo.tenant}/invoices/${DEMO.invoice1}/access`, ann.key)).status,
    ).toBe(403);
    expect((await send('GET', `/audit/${demo.tenant}/access-control`, ann.key)).status).toBe(403);
    expect((await send('POST', `/admin/${demo.tenant}/rebuildAccessControl`, ann.key)).status).toBe(403);
  });
});

describe('GET /audit/{tenant}/access-control', () => {
  it('reports every definition and node with path, class or relatedClass, operations and relation pairs with counts', async () => {
    const { status, body } = await send('GET', `/audit/${demo.tenant}/access-control`, demo.systemKey);
    expect(status).toBe(200);
    expect(body?.['orphanedNodeIds']).toEqual([]);
    expect(body?.['orphanedStepIds']).toEqual([]);
    const definitions = (body?.['definitions'] ?? []) as Json[];
    expect(definitions.map((definition) => definition['name']).sort()).toEqual([
      'allInvoices',
      'companyTeam',
      'everything',
      'ownData',
    ]);
    const team = definitions.find((definition) => definition['name'] === 'companyTeam');
    expect(team?.['anchor']).toBe('crm.company');
    expect(team?.['grantToUsers']).toEqual([
      { id: 'st-emp', relation: 'employees', from: 'crm.company', to: 'crm.person', count: 3 },
    ]);
    expect(team?.['nodes']).toEqual([
      {
        id: 'n-company',
        path: [],
        relatedClass: 'crm.company',
        operations: ['READ', 'WRITE'],
        relations: [],
      },
      {
        id: 'n-invoices',
        path: ['invoices'],
        relatedClass: 'crm.invoice',
        operations: ['READ', 'WRITE', 'CREATE', 'DELETE'],
        relations: [{ relation: 'invoices', from: 'crm.company', to: 'crm.invoice', count: 3 }],
      },
      {
        id: 'n-lines',
        path: ['invoices', 'lines'],
        relatedClass: 'crm.invoiceLine',
        operations: ['READ', 'WRITE', 'CREATE', 'DELETE'],
        relations: [
          { relation: 'invoices', from: 'crm.company', to: 'crm.invoice', count: 3 },
          { relation: 'lines', from: 'crm.invoice', to: 'crm.invoiceLine', count: 3 },
        ],
      },
      {
        id: 'n-docs',
        path: ['invoices', 'documents'],
        relatedClass: 'commons.document',
        operations: ['READ'],
        relations: [
          { relation: 'invoices', from: 'crm.company', to: 'crm.invoice', count: 3 },
          { relation: 'documents', from: 'crm.invoice', to: 'commons.document', count: 0 },
        ],
      },
    ]);
    const own = definitions.find((definition) => definition['name'] === 'ownData');
    expect(own).toMatchObject({ anchor: 'crm.person', grantToUsers: [] });
    expect(definitions.find((definition) => definition['name'] === 'allInvoices')).toEqual({
      name: 'allInvoices',
      anchor: null,
      grantToUsers: [],
      nodes: [{ id: 'n-all-invoices', class: 'crm.invoice', operations: ['READ'], relations: [] }],
    });
  });
});

describe('POST /admin/{tenant}/rebuildAccessControl', () => {
  it('answers 202 with the job status, and progress is read at GET /admin/{tenant}/rebuild', async () => {
    const started = await send('POST', `/admin/${demo.tenant}/rebuildAccessControl`, demo.systemKey);
    expect(started.status).toBe(202);
    expect(started.location).toBe(`/admin/${demo.tenant}/rebuild`);
    expect(started.body).toMatchObject({ state: 'running', kind: 'accessControl', processed: 0 });
    expect(await rebuildSettled(demo.tenant, demo.systemKey)).toMatchObject({
      state: 'done',
      kind: 'accessControl',
      processed: 11,
      error: null,
    });
  });
});

describe('a tenant whose admin role grants no data, and a model change that orphans stored ids', () => {
  let api: DataApi;
  let admin: TestAccount;
  let member: TestAccount;

  const editModel = (file: string, edit: (value: Json) => Json): void => {
    const full = path.join(modelDir, file);
    writeFileSync(full, JSON.stringify(edit(JSON.parse(readFileSync(full, 'utf8')) as Json), null, 2));
  };

  beforeAll(async () => {
    editModel('roles.json', (roles) => ({
      ...roles,
      roles: (roles['roles'] as Json[]).map((role) =>
        role['name'] === 'admin' ? { name: 'admin', grants: [] } : role,
      ),
    }));
    const tenant = String(
      (await server.odp(['tenant', 'create', '--name', 'Audit', '--model', modelDir]))['id'],
    );
    const key = String((await server.odp(['key', 'create', '--tenant', tenant]))['key']);
    api = new DataApi(server, tenant, key);
    await loadDefaultData(api);
    admin = await createAccount(api, { name: 'audit-admin', role: 'admin' });
    member = await createAccount(api, { name: 'audit-ann', role: 'member', objectId: DEMO.ann });
  }, 60_000);

  it('the admin role does not lift record-level access: the audit answers the same 404 as a plain read', async () => {
    expect((await api.call('GET', `/invoices/${DEMO.invoice1}`, { key: admin.key })).status).toBe(404);
    expect(
      (await send('GET', `/audit/${api.tenant}/invoices/${DEMO.invoice1}/access`, admin.key)).status,
    ).toBe(404);
    expect(
      (await send('GET', `/audit/${api.tenant}/invoices/${DEMO.invoice1}/access`, api.systemKey)).status,
    ).toBe(200);
    expect((await send('GET', `/audit/${api.tenant}/access-control`, admin.key)).status).toBe(200);
  });

  it('after a node and a step leave the model: unresolved rows grant READ only, orphans are named, a rebuild clears both', async () => {
    editModel('accessControl/companyTeam.json', (definition) => ({
      ...definition,
      grantToUsers: [{ id: 'st-staff', relation: 'employees' }],
      nodes: (definition['nodes'] as Json[]).filter((node) => node['id'] !== 'n-lines'),
    }));
    // The edited repository becomes the tenant's current model version; a restart serves it.
    const reload = await send('POST', `/admin/${api.tenant}/reloadModel`, api.systemKey);
    expect(reload.body).toMatchObject({ state: 'LOADED' });
    await server.stop();
    server = await startServer({ dataDir });
    api = new DataApi(server, api.tenant, api.systemKey);

    const report = await send('GET', `/audit/${api.tenant}/invoiceLines/${DEMO.line1}/access`, api.systemKey);
    expect(report.body?.['unresolved']).toEqual([
      { acId: expect.stringMatching(/^[0-9a-f-]{36}$/), nodeId: 'n-lines', definition: 'companyTeam' },
    ]);
    const before = await send('GET', `/audit/${api.tenant}/access-control`, api.systemKey);
    expect(before.body?.['orphanedNodeIds']).toEqual(['n-lines']);
    expect(before.body?.['orphanedStepIds']).toEqual(['st-emp']);
    expect((await api.call('GET', `/invoiceLines/${DEMO.line1}`, { key: member.key })).status).toBe(200);
    expect(
      (await api.call('PATCH', `/invoiceLines/${DEMO.line1}`, { key: member.key, body: {} })).status,
    ).toBe(403);

    expect((await send('POST', `/admin/${api.tenant}/rebuildAccessControl`, api.systemKey)).status).toBe(202);
    expect(await rebuildSettled(api.tenant, api.systemKey)).toMatchObject({ state: 'done' });
    const after = await send('GET', `/audit/${api.tenant}/access-control`, api.systemKey);
    expect(after.body?.['orphanedNodeIds']).toEqual([]);
    expect(after.body?.['orphanedStepIds']).toEqual([]);
    expect(
      (await send('GET', `/audit/${api.tenant}/invoiceLines/${DEMO.line1}/access`, api.systemKey)).body?.[
        'unresolved'
      ],
    ).toEqual([]);
    expect((await api.call('GET', `/invoiceLines/${DEMO.line1}`, { key: member.key })).status).toBe(404);
    expect((await api.call('GET', `/invoices/${DEMO.invoice1}`, { key: member.key })).status).toBe(200);
  }, 60_000);
});
