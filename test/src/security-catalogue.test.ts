/**
 * The security catalogue, black-box over HTTP on the demo tenant (examples/models/crm):
 *
 * 1. The authorization matrix: every account kind x every operation x every kind of target, with
 *    the expected status of each cell written out below (derived from the interface spec, the
 *    decisions and docs/access-control.md), and the effect checked with the system key: a refused
 *    write changed nothing, an allowed one happened.
 * 2. A member trying to grant itself access (joining a company it cannot read, moving its invoice
 *    to such a company, merging such a company into its own) is refused and gains nothing.
 */
import path from 'node:path';
import { DEMO, idOf, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';
import { createAccounts } from './support/accounts.js';
import { REPO_ROOT } from './support/server.js';

let api: DataApi;
/** API keys by account name. */
const keys = new Map<AccountName, string>();
/** The person each account is linked to (its "owned" data); unlinked accounts use the holder's. */
const linked = new Map<AccountName, string>();
let nina: string;

type AccountName = 'admin' | 'member' | 'viewer' | 'holder' | 'non-holder' | 'other tenant' | 'system key';
type TargetKind = 'owned' | 'reachable by path' | 'unreachable';
type Operation = 'get' | 'list' | 'create' | 'patch' | 'delete' | 'merge';
/** A status, or for `list` whether the target is in the 200 page. */
type Outcome = number | 'listed' | 'absent';

const OPERATIONS: readonly Operation[] = ['get', 'list', 'create', 'patch', 'delete', 'merge'];

/**
 * The accounts (rows):
 * - admin: role admin, no linked person; the model grants admins the path-less `everything`.
 * - member: role member, no linked person: only path-less grants apply (`allInvoices`: READ).
 * - viewer: role viewer, linked to Bob (an employee of Acme): READ through `companyTeam`/`ownData`;
 *   the role refuses every write (403) before any data is reached.
 * - holder: role member, linked to Ann (an employee of Acme): holds Acme's `companyTeam` grant.
 * - non-holder: role member, linked to Nina (employee of no company): holds no company's grant.
 * - other tenant: the system key of another tenant on this tenant's paths: 401 (spec, API keys 1).
 * - system key: no role, no record-level access control (decision 5).
 *
 * The targets (columns), fresh objects made by the system key for every cell:
 * - owned: a note of the account's linked person (`ownData`: READ, WRITE, CREATE; no DELETE);
 *   create = `POST /persons/{person}/notes`. Unlinked accounts get a note of Ann.
 * - reachable by path: an invoice of Acme (`companyTeam` node `invoices`: READ, WRITE, CREATE,
 *   DELETE for Acme's employees); create = `POST /companies/{acme}/invoices`.
 * - unreachable: a company whose only employee is Carla (its root node grants Carla alone);
 *   create = `POST /companies/{company}/invoices`.
 *
 * Cells (get, list, create, patch, delete, merge). Merge needs WRITE on the winner and DELETE on
 * the loser (a second fresh object of the same kind); an object the account cannot read is 404
 * for every operation, also as the anchor of a create.
 */
const EXPECTED: Record<AccountName, Record<TargetKind, readonly Outcome[]>> = {
  admin: {
    owned: [200, 'listed', 201, 204, 200, 204],
    'reachable by path': [200, 'listed', 201, 204, 200, 204],
    unreachable: [200, 'listed', 201, 204, 200, 204],
  },
  member: {
    owned: [404, 'absent', 404, 404, 404, 404],
    'reachable by path': [200, 'listed', 404, 403, 403, 403],
    unreachable: [404, 'absent', 404, 404, 404, 404],
  },
  viewer: {
    owned: [200, 'listed', 403, 403, 403, 403],
    'reachable by path': [200, 'listed', 403, 403, 403, 403],
    unreachable: [404, 'absent', 403, 403, 403, 403],
  },
  holder: {
    owned: [200, 'listed', 201, 204, 403, 403],
    'reachable by path': [200, 'listed', 201, 204, 200, 204],
    unreachable: [404, 'absent', 404, 404, 404, 404],
  },
  'non-holder': {
    owned: [200, 'listed', 201, 204, 403, 403],
    'reachable by path': [200, 'listed', 404, 403, 403, 403],
    unreachable: [404, 'absent', 404, 404, 404, 404],
  },
  'other tenant': {
    owned: [401, 401, 401, 401, 401, 401],
    'reachable by path': [401, 401, 401, 401, 401, 401],
    unreachable: [401, 401, 401, 401, 401, 401],
  },
  'system key': {
    owned: [200, 'listed', 201, 204, 200, 204],
    'reachable by path': [200, 'listed', 201, 204, 200, 204],
    unreachable: [200, 'listed', 201, 204, 200, 204],
  },
};

beforeAll(async () => {
  api = await startDataServer();
  nina = await api.create('persons', { firstName: 'Nina', lastName: 'Nobody' });
  const accounts = await createAccounts(api, [
    { name: 'admin', role: 'admin' },
    { name: 'member', role: 'member' },
    { name: 'viewer', role: 'viewer', objectId: DEMO.bob },
    { name: 'holder', role: 'member', objectId: DEMO.ann },
    { name: 'non-holder', role: 'member', objectId: nina },
  ]);
  for (const [name, account] of accounts) keys.set(name as AccountName, account.key);
  keys.set('system key', api.systemKey);
  const other = await api.server.odp([
    'tenant',
    'create',
    '--name',
    'Other',
    '--model',
    path.join(REPO_ROOT, 'examples/models/crm'),
  ]);
  const otherKey = await api.server.odp(['key', 'create', '--tenant', String(other['id'])]);
  keys.set('other tenant', String(otherKey['key']));
  linked.set('viewer', DEMO.bob);
  linked.set('holder', DEMO.ann);
  linked.set('non-holder', nina);
}, 180_000);
afterAll(async () => {
  await api?.server.stop();
});

let serial = 0;
const unique = (prefix: string) => `${prefix}-${++serial}`;

/** A fresh target of a kind, made with the system key; `label` is its unique filterable value. */
interface Target {
  readonly plural: string;
  readonly id: string;
  /** `field=value` selecting exactly this object in a list. */
  readonly filter: string;
  /** A patch body, and how the system key sees whether it was applied. */
  readonly patch: Json;
  readonly patched: (object: Json) => boolean;
  /** The create route of this kind and a body, and the filter finding what it created. */
  readonly createRoute: string;
  readonly createBody: Json;
  readonly created: string;
}

async function makeTarget(kind: TargetKind, account: AccountName): Promise<Target> {
  switch (kind) {
    case 'owned': {
      const person = linked.get(account) ?? DEMO.ann;
      const subject = unique('note');
      const id = await api.create('notes', { subject, persons: [api.href('persons', person)] });
      const created = unique('new-note');
      return {
        plural: 'notes',
        id,
        filter: `subject=${subject}`,
        patch: { subject: `${subject}-patched` },
        patched: (object) => object['subject'] === `${subject}-patched`,
        createRoute: `/persons/${person}/notes`,
        createBody: { subject: created },
        created: `subject=${created}`,
      };
    }
    case 'reachable by path':
    case 'unreachable': {
      const created = unique('NEW');
      const invoiceBody = { invoiceNumber: created, invoiceDate: '2026-05-01', amount: 10, vatRate: 21 };
      if (kind === 'reachable by path') {
        const number = unique('INV');
        const id = await api.create('invoices', {
          ...invoiceBody,
          invoiceNumber: number,
          client: api.href('companies', DEMO.acme),
        });
        return {
          plural: 'invoices',
          id,
          filter: `invoiceNumber=${number}`,
          patch: { amount: 77 },
          patched: (object) => object['amount'] === 77,
          createRoute: `/companies/${DEMO.acme}/invoices`,
          createBody: invoiceBody,
          created: `invoiceNumber=${created}`,
        };
      }
      const legalName = unique('Closed Company');
      const id = await api.create('companies', {
        legalName,
        active: true,
        employees: [api.href('persons', DEMO.carla)],
      });
      return {
        plural: 'companies',
        id,
        filter: `legalName=${encodeURIComponent(legalName)}`,
        patch: { employeeCount: 77 },
        patched: (object) => object['employeeCount'] === 77,
        createRoute: `/companies/${id}/invoices`,
        createBody: invoiceBody,
        created: `invoiceNumber=${created}`,
      };
    }
  }
}

/** Whether the system key finds the object. */
async function exists(plural: string, id: string): Promise<boolean> {
  return (await api.call('GET', `/${plural}/${id}`)).status === 200;
}

/** Runs one cell; returns the outcome, after checking its effect (or its absence) with the system key. */
async function runCell(account: AccountName, kind: TargetKind, operation: Operation): Promise<Outcome> {
  const key = keys.get(account) ?? null;
  const target = await makeTarget(kind, account);
  const route = `/${target.plural}/${target.id}`;
  switch (operation) {
    case 'get':
      return (await api.call('GET', route, { key })).status;
    case 'list': {
      const res = await api.call('GET', `/${target.plural}?${target.filter}`, { key });
      if (res.status !== 200) return res.status;
      const page = (await res.json()) as { _embedded: Record<string, Json[]> };
      const ids = Object.values(page._embedded).flat().map(idOf);
      return ids.includes(target.id) ? 'listed' : 'absent';
    }
    case 'create': {
      const invoice = target.createRoute.endsWith('/invoices');
      const status = (await api.call('POST', target.createRoute, { key, body: target.createBody })).status;
      const found = await api.rows(`/${invoice ? 'invoices' : 'notes'}?${target.created}`);
      expect(found.length).toBe(status === 201 ? 1 : 0);
      return status;
    }
    case 'patch': {
      const status = (await api.call('PATCH', route, { key, body: target.patch })).status;
      expect(target.patched(await api.get(route))).toBe(status === 204);
      return status;
    }
    case 'delete': {
      const status = (await api.call('DELETE', route, { key })).status;
      expect(await exists(target.plural, target.id)).toBe(status !== 200);
      return status;
    }
    case 'merge': {
      const loser = await makeTarget(kind, account);
      const status = (await api.call('POST', `${route}/merge`, { key, body: { loser: loser.id } })).status;
      expect(await exists(loser.plural, loser.id)).toBe(status !== 204);
      expect(await exists(target.plural, target.id)).toBe(true);
      return status;
    }
  }
}

const cells = (Object.keys(EXPECTED) as AccountName[]).flatMap((account) =>
  (Object.keys(EXPECTED[account]) as TargetKind[]).flatMap((kind) =>
    OPERATIONS.map((operation, index) => ({
      account,
      kind,
      operation,
      expected: EXPECTED[account][kind][index] as Outcome,
    })),
  ),
);

describe('authorization matrix: account x operation x target', () => {
  it('covers every cell of 7 accounts x 6 operations x 3 targets', () => {
    expect(cells).toHaveLength(7 * 6 * 3);
  });

  it.each(cells)('$account attempts $operation on an $kind object: $expected', async (cell) => {
    expect(await runCell(cell.account, cell.kind, cell.operation)).toBe(cell.expected);
  });
});

describe('a member trying to grant itself access is refused', () => {
  const ann = () => keys.get('holder') ?? '';
  const globexEmployees = async () =>
    (
      (await api.get(`/companies/${DEMO.globex}`))['_links'] as { employees: { values?: { href: string }[] } }
    ).employees.values?.map((value) => value.href.slice(-36)) ?? [];

  afterEach(async () => {
    // Whatever the attempt, Ann still cannot read Globex, and Globex still has Carla alone.
    expect((await api.call('GET', `/companies/${DEMO.globex}`, { key: ann() })).status).toBe(404);
    expect(await globexEmployees()).toEqual([DEMO.carla]);
  });

  it('adding itself as an employee of a company it cannot read: 404', async () => {
    const res = await api.call('PATCH', `/companies/${DEMO.globex}`, {
      key: ann(),
      body: { employees: [api.href('persons', DEMO.carla), api.href('persons', DEMO.ann)] },
    });
    expect(res.status).toBe(404);
  });

  it('naming the company on its own person through the read-only inverse side: ignored, no link made', async () => {
    const res = await api.call('PATCH', `/persons/${DEMO.ann}`, {
      key: ann(),
      body: { employers: [api.href('companies', DEMO.globex)] },
    });
    // Create and Patch rule 1: keys that are not settable (an inverse side is read-only) are ignored.
    expect(res.status).toBe(204);
  });

  it('moving its invoice to a company it cannot read: 404, the invoice stays with Acme', async () => {
    const res = await api.call('PATCH', `/invoices/${DEMO.invoice1}`, {
      key: ann(),
      body: { client: api.href('companies', DEMO.globex) },
    });
    expect(res.status).toBe(404);
    const invoice = await api.get(`/invoices/${DEMO.invoice1}`);
    expect((invoice['_links'] as { client: { href: string } }).client.href).toBe(
      api.href('companies', DEMO.acme),
    );
  });

  it('creating an invoice for a company it cannot read: 403 (no CREATE of invoices at the root, decided before any link), nothing created', async () => {
    const res = await api.call('POST', '/invoices', {
      key: ann(),
      body: {
        invoiceNumber: 'SELF-GRANT-1',
        invoiceDate: '2026-05-01',
        amount: 1,
        vatRate: 21,
        client: api.href('companies', DEMO.globex),
      },
    });
    expect(res.status).toBe(403);
    expect(await api.rows('/invoices?invoiceNumber=SELF-GRANT-1')).toEqual([]);
  });

  it('creating an invoice under its own company but naming the other one as client: the path wins', async () => {
    const res = await api.call('POST', `/companies/${DEMO.acme}/invoices`, {
      key: ann(),
      body: {
        invoiceNumber: 'SELF-GRANT-2',
        invoiceDate: '2026-05-01',
        amount: 1,
        vatRate: 21,
        client: api.href('companies', DEMO.globex),
      },
    });
    expect(res.status).toBe(201);
    const [created] = await api.rows('/invoices?invoiceNumber=SELF-GRANT-2');
    expect((created?.['_links'] as { client: { href: string } }).client.href).toBe(
      api.href('companies', DEMO.acme),
    );
  });

  it('merging a company it cannot read into its own (to inherit its invoices): 404', async () => {
    const res = await api.call('POST', `/companies/${DEMO.acme}/merge`, {
      key: ann(),
      body: { loser: DEMO.globex },
    });
    expect(res.status).toBe(404);
    expect(await exists('companies', DEMO.globex)).toBe(true);
    const invoice3 = await api.get(`/invoices/${DEMO.invoice3}`);
    expect((invoice3['_links'] as { client: { href: string } }).client.href).toBe(
      api.href('companies', DEMO.globex),
    );
  });

  it("making itself the contact of another company's invoice it may only read: 403", async () => {
    const res = await api.call('PATCH', `/invoices/${DEMO.invoice3}`, {
      key: ann(),
      body: { contact: api.href('persons', DEMO.ann) },
    });
    expect(res.status).toBe(403);
    const invoice3 = await api.get(`/invoices/${DEMO.invoice3}`);
    expect((invoice3['_links'] as { contact: { href: string } }).contact.href).toBe(
      api.href('persons', DEMO.carla),
    );
  });

  it('creating a new company with itself as employee (no CREATE on companies): 403', async () => {
    const res = await api.call('POST', '/companies', {
      key: ann(),
      body: { legalName: 'Self Granted BV', active: true, employees: [api.href('persons', DEMO.ann)] },
    });
    expect(res.status).toBe(403);
    expect(await api.rows(`/companies?legalName=${encodeURIComponent('Self Granted BV')}`)).toEqual([]);
  });
});

describe('the log', () => {
  it('holds no error for any request of this suite (client mistakes are 4xx, never 500)', () => {
    expect(api.server.output()).not.toContain('"level":"error"');
    expect(api.server.output()).not.toContain('"status":500');
  });
});
