/**
 * The example CRM's default data as a graph (readable ids), stored with ACL state maintained by
 * TenantAccessControl, and the accounts the decision tests use.
 */
import type { Account, Model, StoredObject } from '@odp/core';
import { TenantAccessControl } from '../src/tenant-access-control.js';
import type { AclStore } from '../src/tenant-access-control.js';
import { CRM, buildModel } from './model-builder.js';
import { MemoryAclStore, storedObject } from './memory-store.js';

export const TENANT = '00000000-0000-4000-8000-00000000t001';

export interface CrmFixture<S extends AclStore = MemoryAclStore> {
  readonly model: Model;
  readonly store: S;
  readonly acl: TenantAccessControl;
  object(id: string): StoredObject;
}

export function crmObjects(model: Model): StoredObject[] {
  const o = (id: string, cls: string, links: Record<string, readonly string[]> = {}, gained: string[] = []) =>
    storedObject(model, id, cls, links, gained);
  return [
    o('ann', 'crm.person'),
    o('bob', 'crm.person'),
    o('carla', 'crm.person', {}, ['crm.shareholder']),
    o('acme', 'crm.company', {
      'crm.company#employees': ['ann', 'bob'],
      'crm.company#shareholders': ['carla'],
    }),
    o('globex', 'crm.company', { 'crm.company#employees': ['carla'] }),
    o('inv1', 'crm.invoice', { 'crm.invoice#client': ['acme'], 'crm.invoice#contact': ['ann'] }),
    o('inv2', 'crm.invoice', { 'crm.invoice#client': ['acme'] }),
    o('inv3', 'crm.invoice', { 'crm.invoice#client': ['globex'] }),
    o('l1', 'crm.invoiceLine', { 'crm.invoiceLine#invoice': ['inv1'] }),
    o('l2', 'crm.invoiceLine', { 'crm.invoiceLine#invoice': ['inv1'] }),
    o('l3', 'crm.invoiceLine', { 'crm.invoiceLine#invoice': ['inv3'] }),
    o('d1', 'commons.document', { 'commons.document#invoices': ['inv1', 'inv3'] }),
    o('n1', 'crm.note', { 'crm.note#persons': ['ann'] }),
  ];
}

/** The CRM graph written through access control, one object per write (as creates arrive). */
export function crmFixture(model?: Model): Promise<CrmFixture>;
export function crmFixture<S extends AclStore>(model: Model, store: S): Promise<CrmFixture<S>>;
export async function crmFixture(
  model: Model = buildModel(CRM),
  store: AclStore = new MemoryAclStore(),
): Promise<CrmFixture<AclStore>> {
  const acl = new TenantAccessControl(model, TENANT, store);
  const objects = new Map(crmObjects(model).map((object) => [object.id, object]));
  for (const object of objects.values()) await acl.write({ put: [object] });
  return {
    model,
    store,
    acl,
    object(id) {
      const found = objects.get(id);
      if (!found) throw new Error(`no object ${id}`);
      return found;
    },
  };
}

export function user(
  role: 'admin' | 'member' | 'viewer',
  objectId: string | null,
  extraRoles: readonly string[] = [],
): Account {
  return {
    kind: 'user',
    tenantId: TENANT,
    profileId: `profile-${objectId ?? role}`,
    role,
    extraRoles,
    objectId,
    email: `${objectId ?? role}@example.test`,
  };
}

export const SYSTEM: Account = { kind: 'system', tenantId: TENANT };
