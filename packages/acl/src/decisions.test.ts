import type { Account, CreateParent, StoredObject } from '@odp/core';
import { anchoredAcId, pathlessAcId } from './ids.js';
import { SYSTEM, TENANT, crmFixture, user } from '../test/crm-fixture.js';
import { TenantAccessControl } from './tenant-access-control.js';
import { CRM, buildModel } from '../test/model-builder.js';

const ann = user('member', 'ann');
const bob = user('viewer', 'bob');
const carla = user('member', 'carla', ['accountant']);
const dave = user('member', null);
const admin = user('admin', null);

type Decision = 'read' | 'modify' | 'delete';

/** The example CRM with a `member` role that grants nothing, so the extra role `accountant` decides alone. */
function accountantOnlyModel() {
  return buildModel({
    ...CRM,
    roles: [{ name: 'member', grants: [] }, ...CRM.roles.filter((role) => role.name === 'accountant')],
  });
}

describe('READ / WRITE / DELETE decisions on the example CRM (model-format 10)', () => {
  const table: [string, Account, string, Decision, boolean][] = [
    ['employee reads own company', ann, 'acme', 'read', true],
    ['employee reads an invoice of own company', ann, 'inv1', 'read', true],
    ['employee reads a line two hops away', ann, 'l1', 'read', true],
    ['employee reads a document through a READ-only node', ann, 'd1', 'read', true],
    ['employee does not read another company', ann, 'globex', 'read', false],
    ['member reads every invoice through the path-less allInvoices', ann, 'inv3', 'read', true],
    ['member does not read lines of another company', ann, 'l3', 'read', false],
    ['zero-hop: a person reads self', ann, 'ann', 'read', true],
    ['zero-hop: a person does not read a colleague', ann, 'bob', 'read', false],
    ['zero-hop node path: a person reads own notes', ann, 'n1', 'read', true],
    ['employee writes own company (n-company has WRITE)', ann, 'acme', 'modify', true],
    ['employee may not delete own company (n-company lacks DELETE)', ann, 'acme', 'delete', false],
    ['employee deletes an invoice of own company', ann, 'inv1', 'delete', true],
    ['employee may not write a document (READ-only node)', ann, 'd1', 'modify', false],
    ['allInvoices grants READ only: no write on another company invoice', ann, 'inv3', 'modify', false],
    ['viewer holder reads', bob, 'inv1', 'read', true],
    ['viewer never writes', bob, 'inv1', 'modify', false],
    ['viewer never deletes', bob, 'bob', 'delete', false],
    ['narrowed role grant: accountant writes own company invoice', carla, 'inv3', 'modify', true],
    [
      'narrowed role grant: no DELETE although the node allows it',
      user('viewer', 'carla', ['accountant']),
      'inv3',
      'delete',
      false,
    ],
    ['member without linked object reads invoices (path-less)', dave, 'inv2', 'read', true],
    ['member without linked object reads no company', dave, 'acme', 'read', false],
    ['admin role does not lift access control; its model role does', admin, 'l3', 'modify', true],
    ['system account bypasses everything', SYSTEM, 'l3', 'delete', true],
  ];
  it.each(table)('%s', async (_, account, id, decision, expected) => {
    const { acl, object } = await crmFixture();
    const policy = acl.policy;
    const target = object(id);
    const answer =
      decision === 'read'
        ? await policy.mayRead(account, target)
        : decision === 'modify'
          ? await policy.mayModify(account, target)
          : await policy.mayDelete(account, target);
    expect(answer).toBe(expected);
  });

  it('a narrowed role grant (accountant: READ, WRITE) writes but never deletes, though the node allows DELETE', async () => {
    const { acl, object } = await crmFixture(accountantOnlyModel());
    const accountant = user('member', 'carla', ['accountant']);
    expect(await acl.policy.mayModify(accountant, object('inv3'))).toBe(true);
    expect(await acl.policy.mayDelete(accountant, object('inv3'))).toBe(false);
    expect(await acl.policy.mayDelete(user('member', 'carla'), object('inv3'))).toBe(false);
  });

  it('a holder without a role referencing the definition gets READ only', async () => {
    const model = buildModel({
      ...CRM,
      roles: [{ name: 'member', grants: [{ definition: 'allInvoices' }] }],
    });
    const { acl, object } = await crmFixture(model);
    expect(await acl.policy.mayRead(ann, object('inv1'))).toBe(true);
    expect(await acl.policy.mayRead(ann, object('acme'))).toBe(true);
    expect(await acl.policy.mayModify(ann, object('acme'))).toBe(false);
    expect(await acl.policy.mayDelete(ann, object('inv1'))).toBe(false);
  });

  it('unprotected classes are governed by the tenant role alone', async () => {
    const model = buildModel({
      ...CRM,
      accessControl: CRM.accessControl.filter((d) => d.name === 'allInvoices'),
    });
    const { acl, object } = await crmFixture(model);
    expect(await acl.policy.mayRead(dave, object('acme'))).toBe(true);
    expect(await acl.policy.mayDelete(dave, object('acme'))).toBe(true);
    expect(await acl.policy.mayDelete(bob, object('acme'))).toBe(false);
  });

  it('rows whose node left the model grant READ but never WRITE', async () => {
    const { store } = await crmFixture();
    const reduced = buildModel({
      ...CRM,
      accessControl: CRM.accessControl.map((definition) =>
        definition.name === 'companyTeam'
          ? { ...definition, nodes: definition.nodes.filter((node) => node.id !== 'n-invoices') }
          : definition,
      ),
    });
    const acl = new TenantAccessControl(reduced, TENANT, store);
    const inv1 = store.objects.get('inv1');
    if (!inv1) throw new Error('fixture');
    expect(await acl.policy.mayRead(ann, inv1)).toBe(true);
    expect(await acl.policy.mayModify(ann, inv1)).toBe(false);
  });
});

describe('the read filter', () => {
  it('is unrestricted for the system account', async () => {
    const { acl } = await crmFixture();
    expect(await acl.policy.accessFilter(SYSTEM)).toEqual({ kind: 'all' });
  });

  it('lists protected classes and the acIds held through holdings and role-granted path-less definitions', async () => {
    const { acl } = await crmFixture();
    const filter = await acl.policy.accessFilter(carla);
    if (filter.kind !== 'acl') throw new Error('expected an acl filter');
    expect([...filter.acIds].sort()).toEqual(
      [
        anchoredAcId(TENANT, 'companyTeam', 'globex'),
        anchoredAcId(TENANT, 'ownData', 'carla'),
        pathlessAcId(TENANT, 'allInvoices'),
      ].sort(),
    );
    expect(filter.protectedClasses).toEqual(
      expect.arrayContaining(['crm.company', 'crm.person', 'crm.shareholder']),
    );
  });

  it('leaves out the classes a held path-less definition lets the account read in full', async () => {
    const { acl } = await crmFixture();
    const member = await acl.policy.accessFilter(carla);
    const viewer = await acl.policy.accessFilter(bob);
    if (member.kind !== 'acl' || viewer.kind !== 'acl') throw new Error('expected acl filters');
    // allInvoices (held by members) applies to every invoice: no ACL row needs checking for them.
    expect(member.protectedClasses).not.toContain('crm.invoice');
    expect(member.protectedClasses).toContain('crm.company');
    // A viewer holds no path-less definition: invoices stay protected.
    expect(viewer.protectedClasses).toContain('crm.invoice');
  });

  it('a revoked link takes effect on the very next decision (no stale cached grant)', async () => {
    const { acl, object } = await crmFixture();
    expect(await acl.policy.mayRead(bob, object('acme'))).toBe(true);
    await acl.write({ put: [{ ...object('acme'), links: { 'crm.company#employees': ['ann'] } }] });
    expect(await acl.policy.mayRead(bob, object('acme'))).toBe(false);
    const filter = await acl.policy.accessFilter(bob);
    expect(filter.kind === 'acl' && filter.acIds.includes(anchoredAcId(TENANT, 'companyTeam', 'acme'))).toBe(
      false,
    );
    await acl.write({ put: [{ ...object('acme'), links: { 'crm.company#employees': ['ann', 'bob'] } }] });
    expect(await acl.policy.mayRead(bob, object('acme'))).toBe(true);
  });

  it('roles come from the account of each request, so a revoked role takes effect on the very next decision', async () => {
    const { acl, object } = await crmFixture();
    expect(await acl.policy.mayRead(user('member', null, ['accountant']), object('inv3'))).toBe(true);
    expect(await acl.policy.mayRead(user('viewer', null, []), object('inv3'))).toBe(false);
  });
});

describe('CREATE decisions with allowedClasses', () => {
  /** The parent of a create: an object of the example CRM's `className`, through its relation `relation`. */
  const parentVia = (className: string, relation: string) => {
    const end = buildModel(CRM).classes.get(className)?.relations.get(relation);
    if (!end) throw new Error('fixture');
    return (object: StoredObject): CreateParent => ({ object, relation: end });
  };
  const invoicesOf = parentVia('crm.company', 'invoices');
  const notesOf = parentVia('crm.person', 'notes');

  it('at the root a member may not create an invoice (no root node allows it)', async () => {
    const { acl } = await crmFixture();
    expect(await acl.policy.mayCreate(ann, 'crm.invoice')).toEqual({ mayCreate: false, allowedClasses: [] });
  });

  it('under own company a member may create an invoice (n-invoices allows CREATE)', async () => {
    const { acl, object } = await crmFixture();
    expect(await acl.policy.mayCreate(ann, 'crm.invoice', invoicesOf(object('acme')))).toEqual({
      mayCreate: true,
      allowedClasses: ['crm.invoice'],
    });
  });

  it('under another company a member may not', async () => {
    const { acl, object } = await crmFixture();
    expect((await acl.policy.mayCreate(ann, 'crm.invoice', invoicesOf(object('globex')))).mayCreate).toBe(
      false,
    );
  });

  it('a narrowed role without CREATE may not create under its own company', async () => {
    const { acl, object } = await crmFixture(accountantOnlyModel());
    const accountantOnly = user('member', 'carla', ['accountant']);
    expect(
      (await acl.policy.mayCreate(accountantOnly, 'crm.invoice', invoicesOf(object('globex')))).mayCreate,
    ).toBe(false);
  });

  it('zero-hop: a person may create notes under self, not under a colleague', async () => {
    const { acl, object } = await crmFixture();
    expect((await acl.policy.mayCreate(ann, 'crm.note', notesOf(object('ann')))).mayCreate).toBe(true);
    expect((await acl.policy.mayCreate(ann, 'crm.note', notesOf(object('bob')))).mayCreate).toBe(false);
  });

  it('allowedClasses lists concrete subclasses only (the abstract organisation is never created)', async () => {
    const { acl } = await crmFixture();
    expect(await acl.policy.mayCreate(admin, 'crm.organisation')).toEqual({
      mayCreate: true,
      allowedClasses: ['crm.company'],
    });
    expect(await acl.policy.mayCreate(ann, 'crm.organisation')).toEqual({
      mayCreate: false,
      allowedClasses: [],
    });
  });

  it('a viewer may create nothing; the system account anything', async () => {
    const { acl } = await crmFixture();
    expect(await acl.policy.mayCreate(user('viewer', null, ['accountant']), 'crm.invoice')).toEqual({
      mayCreate: false,
      allowedClasses: [],
    });
    expect(await acl.policy.mayCreate(SYSTEM, 'crm.invoice')).toEqual({
      mayCreate: true,
      allowedClasses: ['crm.invoice'],
    });
  });

  it('a root node of a definition anchored on the class allows CREATE at the root', async () => {
    const model = buildModel({
      ...CRM,
      accessControl: [
        {
          name: 'ownCompany',
          anchor: 'crm.company',
          grantToUsers: [{ id: 'st', relation: 'employees' }],
          nodes: [{ id: 'n-root', path: [], operations: ['READ', 'CREATE'] }],
        },
      ],
      roles: [{ name: 'member', grants: [{ definition: 'ownCompany' }] }],
    });
    const { acl } = await crmFixture(model);
    expect(await acl.policy.mayCreate(dave, 'crm.company')).toEqual({
      mayCreate: true,
      allowedClasses: ['crm.company'],
    });
  });
});
