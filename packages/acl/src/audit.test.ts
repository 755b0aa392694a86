import type { LinkedProfile, ProfileDirectory } from '@odp/core';
import { anchoredAcId, pathlessAcId } from './ids.js';
import { RebuildTracker } from './jobs.js';
import { TenantAccessControl } from './tenant-access-control.js';
import { TENANT, crmFixture } from '../test/crm-fixture.js';
import { CRM, buildModel } from '../test/model-builder.js';

/** Ann (member) and Carla (member + accountant) have profiles; Bob has none. */
const profiles: ProfileDirectory = {
  async profilesLinkedTo(objectId) {
    const known: Record<string, LinkedProfile> = {
      ann: { profileId: 'p-ann', role: 'member', extraRoles: [] },
      carla: { profileId: 'p-carla', role: 'viewer', extraRoles: ['accountant'] },
    };
    const profile = known[objectId];
    return profile ? [profile] : [];
  },
};

describe('per-record access report', () => {
  it('names each grant with its node, roles (roleGrants only when narrowing) and holders', async () => {
    const { acl } = await crmFixture();
    const report = await acl.recordAccess('inv1', profiles);
    expect(report.unresolved).toEqual([]);
    const team = report.grants.find((grant) => grant.definition === 'companyTeam');
    expect(team).toEqual({
      definition: 'companyTeam',
      acId: anchoredAcId(TENANT, 'companyTeam', 'acme'),
      nodeId: 'n-invoices',
      nodeClass: 'crm.invoice',
      objectAllows: ['READ', 'WRITE', 'CREATE', 'DELETE'],
      roles: [
        { role: 'member' },
        { role: 'viewer', roleGrants: ['READ'] },
        { role: 'accountant', roleGrants: ['READ', 'WRITE'] },
      ],
      holders: [
        {
          holderId: 'ann',
          holderName: 'ann',
          accountId: 'p-ann',
          stepPath: ['st-emp'],
          hasRole: true,
          roles: ['member'],
        },
        {
          holderId: 'bob',
          holderName: 'bob',
          accountId: null,
          stepPath: ['st-emp'],
          hasRole: false,
          roles: [],
        },
      ],
    });
    const pathless = report.grants.find((grant) => grant.definition === 'allInvoices');
    expect(pathless).toEqual({
      definition: 'allInvoices',
      acId: pathlessAcId(TENANT, 'allInvoices'),
      nodeId: 'n-all-invoices',
      nodeClass: 'crm.invoice',
      objectAllows: ['READ'],
      roles: [{ role: 'member' }, { role: 'accountant' }],
    });
    expect(report.grants.map((grant) => grant.definition).sort()).toEqual([
      'allInvoices',
      'companyTeam',
      'everything',
    ]);
  });

  it('a zero-hop holder is the anchor itself, with an empty step path', async () => {
    const { acl } = await crmFixture();
    const report = await acl.recordAccess('n1', profiles);
    const own = report.grants.find((grant) => grant.definition === 'ownData');
    expect(own?.holders).toEqual([
      {
        holderId: 'ann',
        holderName: 'ann',
        accountId: 'p-ann',
        stepPath: [],
        hasRole: true,
        roles: ['member'],
      },
    ]);
  });

  it('lists rows whose node left the model as unresolved, and a rebuild clears them', async () => {
    const { store } = await crmFixture();
    const reduced = buildModel({
      ...CRM,
      accessControl: CRM.accessControl
        .filter((definition) => definition.name !== 'ownData')
        .map((definition) =>
          definition.name === 'companyTeam'
            ? {
                ...definition,
                grantToUsers: [{ id: 'st-emp-2', relation: 'employees' }],
                nodes: definition.nodes.filter((node) => node.id !== 'n-invoices'),
              }
            : definition,
        ),
    });
    const acl = new TenantAccessControl(reduced, TENANT, store);
    const report = await acl.recordAccess('inv1', profiles);
    expect(report.unresolved).toEqual([
      { acId: anchoredAcId(TENANT, 'companyTeam', 'acme'), nodeId: 'n-invoices', definition: 'companyTeam' },
    ]);
    expect(report.grants.map((grant) => grant.nodeId).sort()).toEqual(['n-all-invoices', 'n-all-invoices']);

    const before = await acl.accessControlReport();
    expect(before.orphanedNodeIds).toEqual(['n-invoices', 'n-notes', 'n-self']);
    expect(before.orphanedStepIds).toEqual(['st-emp']);

    const tracker = new RebuildTracker();
    expect(acl.startRebuild(tracker).state).toBe('running');
    expect(() => acl.startRebuild(tracker)).toThrow('already running');
    await tracker.settled();
    expect(tracker.status()).toMatchObject({ state: 'done', kind: 'accessControl', processed: 13 });
    expect((await acl.recordAccess('inv1', profiles)).unresolved).toEqual([]);
    const after = await acl.accessControlReport();
    expect(after.orphanedNodeIds).toEqual([]);
    expect(after.orphanedStepIds).toEqual([]);
  });
});

describe('definition resolution report', () => {
  it('reports every node with its path, class, operations and the resolved relation pairs with link counts', async () => {
    const { acl } = await crmFixture();
    const report = await acl.accessControlReport();
    expect(report.orphanedNodeIds).toEqual([]);
    expect(report.orphanedStepIds).toEqual([]);
    const team = report.definitions.find((definition) => definition.name === 'companyTeam');
    expect(team?.anchor).toBe('crm.company');
    expect(team?.grantToUsers).toEqual([
      { id: 'st-emp', relation: 'employees', from: 'crm.company', to: 'crm.person', count: 3 },
    ]);
    expect(team?.nodes).toEqual([
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
          { relation: 'documents', from: 'crm.invoice', to: 'commons.document', count: 2 },
        ],
      },
    ]);
    const pathless = report.definitions.find((definition) => definition.name === 'allInvoices');
    expect(pathless).toEqual({
      name: 'allInvoices',
      anchor: null,
      grantToUsers: [],
      nodes: [{ id: 'n-all-invoices', class: 'crm.invoice', operations: ['READ'], relations: [] }],
    });
  });
});
