import type { Model, StoredObject, WriteBatch } from '@odp/core';
import { rebuildAccessControl } from './rebuild.js';
import { storeGraph } from './graph.js';
import { TenantAccessControl } from './tenant-access-control.js';
import { TENANT, crmFixture, crmObjects } from '../test/crm-fixture.js';
import { CRM, buildModel } from '../test/model-builder.js';
import { MemoryAclStore, storedObject } from '../test/memory-store.js';

/** The ACL state a full rebuild derives for the objects of `store`. */
async function rebuilt(
  model: Model,
  objects: Iterable<StoredObject>,
): Promise<ReturnType<MemoryAclStore['snapshot']>> {
  const fresh = new MemoryAclStore();
  await fresh.write({ put: [...objects] });
  const acl = new TenantAccessControl(model, TENANT, fresh);
  await rebuildAccessControl(acl.derivation, fresh, storeGraph(fresh), { batchSize: 3 });
  return fresh.snapshot();
}

function withLinks(object: StoredObject, key: string, ids: readonly string[]): StoredObject {
  return { ...object, links: { ...object.links, [key]: ids } };
}

describe('incremental maintenance of ACL rows and holdings', () => {
  const model = buildModel(CRM);
  const scenarios: [string, (objects: Map<string, StoredObject>) => WriteBatch][] = [
    [
      'moving an invoice to another client moves its lines and documents',
      (o) => ({
        put: [withLinks(o.get('inv1') as StoredObject, 'crm.invoice#client', ['globex'])],
      }),
    ],
    [
      'removing an employee revokes their holding',
      (o) => ({
        put: [withLinks(o.get('acme') as StoredObject, 'crm.company#employees', ['ann'])],
      }),
    ],
    [
      'adding an employee grants a holding',
      (o) => ({
        put: [withLinks(o.get('globex') as StoredObject, 'crm.company#employees', ['carla', 'bob'])],
      }),
    ],
    ['deleting a company drops its anchored rows downstream', () => ({ delete: ['acme'] })],
    ['deleting an invoice drops the rows it carried to its lines', () => ({ delete: ['inv1'] })],
    ['deleting a holder drops its holdings', () => ({ delete: ['bob'] })],
    [
      'detaching a document from an invoice',
      (o) => ({
        put: [withLinks(o.get('d1') as StoredObject, 'commons.document#invoices', ['inv3'])],
      }),
    ],
    [
      'creating a line under an invoice',
      () => ({
        put: [storedObject(model, 'l9', 'crm.invoiceLine', { 'crm.invoiceLine#invoice': ['inv2'] })],
      }),
    ],
    [
      'an intermediate object losing the class a node path needs',
      (o) => ({
        put: [{ ...(o.get('inv1') as StoredObject), classes: ['crm.note'] }],
      }),
    ],
    [
      'a person gaining a class through a link',
      (o) => ({
        put: [
          withLinks(o.get('globex') as StoredObject, 'crm.company#shareholders', ['ann']),
          {
            ...(o.get('ann') as StoredObject),
            classes: [...(o.get('ann') as StoredObject).classes, 'crm.shareholder'],
          },
        ],
      }),
    ],
  ];
  it.each(scenarios)('%s, exactly as a rebuild would derive it', async (_, change) => {
    const { store, acl } = await crmFixture(model);
    const before = store.snapshot();
    const batch = change(store.objects);
    await acl.write(batch);
    const after = store.snapshot();
    expect(after).toEqual(await rebuilt(model, store.objects.values()));
    expect(after).not.toEqual(before);
  });

  it('agrees with a rebuild after every step of a random sequence of writes (seeded)', async () => {
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const { store, acl } = await crmFixture(model);
    const pick = (cls: string): StoredObject | undefined => {
      const candidates = [...store.objects.values()].filter((object) => object.classes.includes(cls));
      return candidates[random(Math.max(candidates.length, 1))];
    };
    const relations: [string, string, string][] = [
      ['crm.company', 'crm.company#employees', 'crm.person'],
      ['crm.invoice', 'crm.invoice#client', 'crm.company'],
      ['crm.invoiceLine', 'crm.invoiceLine#invoice', 'crm.invoice'],
      ['commons.document', 'commons.document#invoices', 'crm.invoice'],
      ['crm.note', 'crm.note#persons', 'crm.person'],
    ];
    for (let step = 0; step < 120; step += 1) {
      const kind = random(10);
      const [sourceClass, key, targetClass] = relations[random(relations.length)] ?? relations[0]!;
      const source = pick(sourceClass);
      const target = pick(targetClass);
      let batch: WriteBatch;
      if (kind < 2) {
        batch = { put: [storedObject(model, `x${step}`, sourceClass, target ? { [key]: [target.id] } : {})] };
      } else if (kind === 9 && source) {
        // A write of values alone (a patch of an amount): nothing to derive, the state stays a rebuild's.
        batch = { put: [{ ...source, values: { ...source.values, note: `step ${step}` } }] };
      } else if (kind < 3 && target) {
        batch = { delete: [target.id] };
      } else if (source && target) {
        const current = source.links[key] ?? [];
        const next = current.includes(target.id)
          ? current.filter((id) => id !== target.id)
          : [...current, target.id];
        batch = { put: [withLinks(source, key, next)] };
      } else {
        continue;
      }
      await acl.write(batch);
      expect({ step, state: store.snapshot() }).toEqual({
        step,
        state: await rebuilt(model, store.objects.values()),
      });
    }
  });
});

describe('termination on cyclic graphs and wide fan-outs', () => {
  const chainModel = buildModel({
    classes: [
      {
        name: 'hr.person',
        plural: 'persons',
        relations: [{ name: 'manager', target: 'hr.person', inverse: 'reports' }],
      },
    ],
    accessControl: [
      {
        name: 'chain',
        anchor: 'hr.person',
        grantToUsers: [
          { id: 'g1', relation: 'manager' },
          { id: 'g2', relation: 'manager' },
          { id: 'g3', relation: 'manager' },
        ],
        nodes: [
          { id: 'n0', path: [], operations: ['READ'] },
          { id: 'n4', path: ['reports', 'reports', 'reports', 'reports'], operations: ['READ'] },
        ],
      },
    ],
    roles: [{ name: 'member', grants: [{ definition: 'chain' }] }],
  });

  it('a management cycle a -> b -> c -> a terminates and matches a rebuild', async () => {
    const store = new MemoryAclStore();
    const acl = new TenantAccessControl(chainModel, TENANT, store);
    const person = (id: string, manager: string): StoredObject =>
      storedObject(chainModel, id, 'hr.person', { 'hr.person#manager': [manager] });
    for (const object of [person('a', 'b'), person('b', 'c'), person('c', 'a')])
      await acl.write({ put: [object] });
    const state = store.snapshot();
    expect(state).toEqual(await rebuilt(chainModel, store.objects.values()));
    expect(state.holdings).toContain('chain/a/a/g1.g2.g3');
    expect(state.rows['a']).toHaveLength(2);

    for (const id of ['b', 'a', 'c']) {
      await acl.write({ put: [{ ...(store.objects.get(id) as StoredObject), links: {} }] });
      expect(store.snapshot()).toEqual(await rebuilt(chainModel, store.objects.values()));
    }
    expect(store.snapshot().holdings).toEqual([]);
  });

  it('a write of values alone, or of the same links in another order, derives nothing', async () => {
    const model = buildModel(CRM);
    const { store, acl } = await crmFixture(model);
    const acme = store.objects.get('acme') as StoredObject;
    const invoice = store.objects.get('inv1') as StoredObject;
    expect(acl.derivation.isAnchor(acme)).toBe(true);
    const employees = acme.links['crm.company#employees'] ?? [];
    expect(employees.length).toBeGreaterThan(1);
    const parts = await acl.changesFor({
      put: [
        { ...invoice, values: { ...invoice.values, amount: 12 } },
        { ...acme, values: { ...acme.values, legalName: 'Acme 2' } },
      ],
    });
    expect(parts).toEqual({ aclRows: [], holdings: [] });
    const reordered = await acl.changesFor({
      put: [withLinks(acme, 'crm.company#employees', [...employees].reverse())],
    });
    expect(reordered).toEqual({ aclRows: [], holdings: [] });
    // A class sync asks for every put object to be re-derived, as it is stored.
    const synced = await acl.changesFor({ put: [invoice, acme] }, { rederivePuts: true });
    expect(synced.aclRows.map((entry) => entry.objectId).sort()).toEqual(['acme', 'inv1']);
    expect(synced.holdings.map((entry) => entry.anchorId)).toContain('acme');
    // One more employee re-derives the company's rows and its holdings.
    const grown = await acl.changesFor({
      put: [withLinks(acme, 'crm.company#employees', [...employees, 'carla'])],
    });
    expect(grown.aclRows.map((entry) => entry.objectId)).toContain('acme');
    expect(grown.holdings.map((entry) => entry.anchorId)).toContain('acme');
  });

  it('a company with 3000 invoices: one more invoice is derived without re-deriving the others', async () => {
    const model = buildModel(CRM);
    const store = new MemoryAclStore();
    const invoices = Array.from({ length: 3000 }, (_, index) =>
      storedObject(model, `inv-${index}`, 'crm.invoice', { 'crm.invoice#client': ['acme'] }),
    );
    await store.write({ put: [...crmObjects(model), ...invoices] });
    const acl = new TenantAccessControl(model, TENANT, store);
    await rebuildAccessControl(acl.derivation, store, storeGraph(store));
    const parts = await acl.changesFor({
      put: [storedObject(model, 'inv-new', 'crm.invoice', { 'crm.invoice#client': ['acme'] })],
    });
    expect(parts.aclRows.map((entry) => entry.objectId)).toEqual(['inv-new']);
    expect(parts.holdings).toEqual([]);
  });
});
