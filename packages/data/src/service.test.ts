import { ConflictError, NotFoundError, ValidationError } from '@odp/core';
import type { Account, ClassDef, RelationEnd } from '@odp/core';
import { isEligible, relatedEnd } from './classes.js';
import { readsThroughRelations, readsVia } from './compute.js';
import { SYSTEM, TENANT, crmFixture } from '../test/crm-fixture.js';
import type { CrmFixture } from '../test/crm-fixture.js';

let crm: CrmFixture;
beforeEach(async () => {
  crm = await crmFixture();
});
afterEach(async () => {
  await crm.close();
});

const idOf = (written: { id: string }) => written.id;
const href = (plural: string, id: string) => `/data/${TENANT}/${plural}/${id}`;
const ann: Account = {
  kind: 'user',
  tenantId: TENANT,
  profileId: 'p1',
  role: 'member',
  extraRoles: [],
  objectId: null,
  email: 'ann@example.test',
};

async function object(plural: string, id: string) {
  const result = await crm.data.getOne(SYSTEM, plural, id);
  if (!('object' in result)) throw new Error('redirected');
  return result.object;
}

const company = async (legalName: string) => idOf(await crm.data.create(SYSTEM, 'companies', { legalName }));
/** Creates an invoice billed to company `client`, with `values`; resolves its id. */
const billedInvoice = async (client: string, values: Record<string, unknown>) =>
  idOf(await crm.data.create(SYSTEM, 'invoices', { ...values, client: href('companies', client) }));

describe('default data', () => {
  it('creates every default object once, resolving references in any order', async () => {
    expect(await crm.data.objects.jobs.loadDefaultData(SYSTEM)).toEqual({ created: 11, skipped: 0 });
    expect(await crm.data.objects.jobs.loadDefaultData(SYSTEM)).toEqual({ created: 0, skipped: 11 });
  });

  it('is refused to a member', async () => {
    await expect(crm.data.objects.jobs.loadDefaultData(ann)).rejects.toThrow('may not');
  });
});

describe('recalculation', () => {
  it('recalculates an invoice when a line is created, changed and deleted', async () => {
    const client = await company('Acme');
    const invoice = await billedInvoice(client, { invoiceNumber: '1', amount: 5 });
    const line = idOf(
      await crm.data.create(SYSTEM, 'invoiceLines', {
        description: 'd',
        unitPrice: 7,
        invoice: href('invoices', invoice),
      }),
    );
    expect((await object('invoices', invoice))['linesTotal']).toBe(7);
    await crm.data.patch(SYSTEM, 'invoiceLines', line, { quantity: 3 });
    expect((await object('invoices', invoice))['linesTotal']).toBe(21);
    await crm.data.remove(SYSTEM, 'invoiceLines', line);
    expect((await object('invoices', invoice))['linesTotal']).toBe(0);
  });
});

describe('recalculation of neighbours', () => {
  async function invoiceOf(client: string) {
    return await billedInvoice(client, { invoiceNumber: 'N', amount: 1 });
  }
  const updatesAfter = async (cursor: string) =>
    (await crm.store.events.read(cursor, 100)).events
      .filter((event) => event.type === 'update')
      .map((event) => event.objectId);

  it.each<[string, Record<string, unknown>, boolean]>([
    ['a field the invoice formulas read (client.legalName)', { legalName: 'Renamed' }, true],
    ['a field no invoice formula reads', { phone: '123' }, false],
  ])('patching %s of a company recalculates its invoices: %p', async (_name, patch, recalculated) => {
    const client = await company('Acme');
    const invoice = await invoiceOf(client);
    const head = await crm.data.objects.eventLog.head();
    await crm.data.patch(SYSTEM, 'companies', client, patch);
    expect((await updatesAfter(head)).includes(invoice)).toBe(recalculated);
    expect((await object('invoices', invoice))['clientName']).toBe(recalculated ? 'Renamed' : 'Acme');
  });

  it('recalculates an object whose set of linked objects a patch changed', async () => {
    const [first, second] = [await company('First'), await company('Second')];
    const invoice = await invoiceOf(first);
    await crm.data.patch(SYSTEM, 'invoices', invoice, { client: href('companies', second) });
    expect((await object('invoices', invoice))['clientName']).toBe('Second');
  });

  it.each<[string, string, ReadonlySet<string> | 'all']>([
    ['crm.invoice', 'client', new Set(['legalName'])],
    ['crm.invoice', 'lines', new Set(['amount'])],
    ['crm.invoice', 'contact', new Set()],
    ['crm.company', 'invoices', new Set()],
  ])('%s reads through %s', (className, relation, expected) => {
    expect(readsVia(crm.model, crm.model.classes.get(className)?.ancestors ?? [], relation)).toEqual(
      expected,
    );
  });
});

describe('history', () => {
  it('records {value, validFrom, modifiedBy} newest first, naming the account', async () => {
    const client = await company('Acme');
    const invoice = await billedInvoice(client, { invoiceNumber: '1', amount: 5 });
    await crm.data.patch(ann, 'invoices', invoice, { status: 'sent' });
    await crm.data.patch(ann, 'invoices', invoice, { amount: 6 });
    expect((await object('invoices', invoice))['status']).toEqual({
      current: 'sent',
      history: [
        { value: 'sent', validFrom: expect.any(String), modifiedBy: 'ann@example.test' },
        { value: 'draft', validFrom: expect.any(String), modifiedBy: 'system' },
      ],
    });
  });
});

describe('merge redirects', () => {
  it('resolves chains to the final survivor and disappears when the survivor is deleted', async () => {
    const [a, b, c] = [await company('A'), await company('B'), await company('C')];
    await crm.data.merge(SYSTEM, 'companies', b, { loser: a });
    await crm.data.merge(SYSTEM, 'companies', c, { loser: b });
    expect(await crm.data.getOne(SYSTEM, 'companies', a)).toEqual({ redirect: href('companies', c) });
    expect(await crm.data.getOne(SYSTEM, 'organisations', b)).toEqual({ redirect: href('organisations', c) });
    await crm.data.remove(SYSTEM, 'companies', c);
    await expect(crm.data.getOne(SYSTEM, 'companies', a)).rejects.toThrow(NotFoundError);
  });
});

describe('event log', () => {
  it('reads the events after a cursor, with the cursor to continue from', async () => {
    const head = await crm.data.objects.eventLog.head();
    await company('E1');
    await company('E2');
    const { events, next } = await crm.data.objects.events.after(SYSTEM, head, 100);
    expect(events.map((event) => event.data.type)).toEqual(['create', 'create']);
    expect(events.at(-1)?.cursor).toBe(next);
    expect(next).toBe(await crm.data.objects.eventLog.head());
    expect(await crm.data.objects.events.after(SYSTEM, next, 100)).toEqual({ events: [], next });
  });
});

describe('changed fields of events', () => {
  /** The logged events after `cursor` as [type, object id, sorted changed names]. */
  const logged = async (cursor: string) =>
    (await crm.store.events.read(cursor, 100)).events.map((event) => [
      event.type,
      event.objectId,
      event.changed === undefined ? undefined : [...event.changed].sort(),
    ]);

  it('records the fields a create set (non-empty values), formulas and defaults included, and the relations it linked', async () => {
    const head = await crm.data.objects.eventLog.head();
    const client = await company('Acme');
    const invoice = await billedInvoice(client, { invoiceNumber: '1', amount: 10, dueDate: '' });
    expect(await logged(head)).toEqual([
      ['create', client, ['active', 'displayName', 'legalName']],
      [
        'create',
        invoice,
        [
          'amount',
          'client',
          'clientName',
          'dueDate',
          'invoiceDate',
          'invoiceNumber',
          'linesTotal',
          'status',
          'total',
          'vatAmount',
          'vatRate',
        ],
      ],
    ]);
  });

  it('records exactly the fields an update changed, recalculated formulas included, on every object it changed', async () => {
    const client = await company('Acme');
    const invoice = await billedInvoice(client, { invoiceNumber: '1', amount: 10 });
    let head = await crm.data.objects.eventLog.head();
    await crm.data.patch(SYSTEM, 'companies', client, { phone: '1', employeeCount: 5, legalName: 'Acme' });
    expect(await logged(head)).toEqual([['update', client, ['employeeCount', 'phone']]]);

    head = await crm.data.objects.eventLog.head();
    await crm.data.patch(SYSTEM, 'companies', client, { legalName: 'Renamed' });
    expect(await logged(head)).toEqual([
      ['update', client, ['displayName', 'legalName']],
      ['update', invoice, ['clientName']],
    ]);

    const other = await company('Other');
    head = await crm.data.objects.eventLog.head();
    await crm.data.patch(SYSTEM, 'invoices', invoice, { client: href('companies', other), phone: '1' });
    expect(await logged(head)).toEqual([['update', invoice, ['client', 'clientName']]]);

    head = await crm.data.objects.eventLog.head();
    await crm.data.patch(SYSTEM, 'companies', client, { phone: '1' });
    expect(await logged(head)).toEqual([['update', client, []]]);
  });

  it('records none for deletes and merges', async () => {
    const [a, b] = [await company('A'), await company('B')];
    const head = await crm.data.objects.eventLog.head();
    await crm.data.merge(SYSTEM, 'companies', a, { loser: b });
    await crm.data.remove(SYSTEM, 'companies', a);
    expect(await logged(head)).toEqual([
      ['merge', a, undefined],
      ['delete', b, undefined],
      ['delete', a, undefined],
    ]);
  });

  it('streams the changed fields the reader may see, and with values their Get one rendering', async () => {
    const client = await company('Acme');
    const invoice = await billedInvoice(client, { invoiceNumber: '1', amount: 10 });
    const head = await crm.data.objects.eventLog.head();
    await crm.data.patch(SYSTEM, 'companies', client, { legalName: 'Renamed', apiToken: 'secret-value' });
    await crm.data.patch(SYSTEM, 'invoices', invoice, {
      status: 'sent',
      internalNote: 'hidden',
      dueDate: null,
    });

    const plain = await crm.data.objects.events.after(SYSTEM, head, 100);
    expect(plain.events.map((event) => [event.data.href, event.data.changed?.sort()])).toEqual([
      [href('companies', client), ['legalName']],
      [href('invoices', invoice), ['clientName']],
      [href('invoices', invoice), ['dueDate', 'status']],
    ]);
    expect(plain.events.some((event) => 'values' in event.data)).toBe(false);

    const { events } = await crm.data.objects.events.after(SYSTEM, head, 100, { values: true });
    const [companyNow, invoiceNow] = [await object('companies', client), await object('invoices', invoice)];
    expect(events.map((event) => event.data.values)).toEqual([
      { legalName: companyNow['legalName'] },
      { clientName: 'Renamed' },
      { status: invoiceNow['status'], dueDate: null },
    ]);
    expect(invoiceNow['status']).toMatchObject({ current: 'sent', history: expect.any(Array) });
    expect(JSON.stringify(events)).not.toMatch(/secret-value|apiToken|internalNote|displayName/);
  });

  it('renders a changed relation as its _links entry, and values from the current state', async () => {
    const [first, second] = [await company('First'), await company('Second')];
    const head = await crm.data.objects.eventLog.head();
    const invoice = await billedInvoice(first, { invoiceNumber: '1', amount: 10 });
    await crm.data.patch(SYSTEM, 'invoices', invoice, { client: href('companies', second) });
    const { events } = await crm.data.objects.events.after(SYSTEM, head, 100, { values: true });
    const links = (await object('invoices', invoice))['_links'] as Record<string, unknown>;
    expect(links['client']).toMatchObject({ href: href('companies', second) });
    // Both events read the object as it is now: the create's client is the current one.
    expect(events.map((event) => event.data.values?.['client'])).toEqual([links['client'], links['client']]);
  });

  it('leaves changed and values out of events logged without the list, and values out once the object is gone', async () => {
    const client = await company('Acme');
    const head = await crm.data.objects.eventLog.head();
    await crm.store.write({
      events: [
        { type: 'update', objectId: client, classes: ['crm.company', 'crm.organisation'], at: 'then' },
      ],
    });
    await crm.data.patch(SYSTEM, 'companies', client, { phone: '2' });
    await crm.data.remove(SYSTEM, 'companies', client);
    const { events } = await crm.data.objects.events.after(SYSTEM, head, 100, { values: true });
    expect(events.map((event) => event.data)).toEqual([
      expect.not.objectContaining({ changed: expect.anything() }),
      expect.objectContaining({ type: 'update', changed: ['phone'] }),
      expect.objectContaining({ type: 'delete' }),
    ]);
    expect(events.some((event) => 'values' in event.data)).toBe(false);
    expect(events[0]?.data).toEqual({
      type: 'update',
      href: href('companies', client),
      classes: ['companies', 'organisations'],
      at: 'then',
    });
  });
});

describe('atomic writes with their events', () => {
  it.each<[string, () => Promise<unknown>, new (...args: never[]) => Error]>([
    [
      'a unique clash',
      async () => {
        await crm.data.create(SYSTEM, 'companies', { legalName: 'X', registrationNumber: 'R1' });
        return crm.data.create(SYSTEM, 'companies', { legalName: 'Y', registrationNumber: 'R1' });
      },
      ConflictError,
    ],
    ['a missing required value', () => crm.data.create(SYSTEM, 'invoices', { amount: 1 }), ValidationError],
    [
      'a delete blocked by a required link',
      async () => {
        const client = await company('Blocked');
        await crm.data.create(SYSTEM, 'invoices', {
          invoiceNumber: '9',
          amount: 1,
          client: href('companies', client),
        });
        return crm.data.remove(SYSTEM, 'companies', client);
      },
      ConflictError,
    ],
  ])('appends no event and changes nothing on %s', async (_name, failing, errorType) => {
    await expect(failing()).rejects.toBeInstanceOf(errorType);
    const { events } = await crm.store.events.read(null, 100);
    const objects = await crm.store.scan(null, 100);
    expect(events.filter((event) => event.type === 'create')).toHaveLength(objects.length);
    expect(events.filter((event) => event.type === 'delete')).toHaveLength(0);
  });
});

describe('SECRET fields', () => {
  it('are stored encrypted and never rendered', async () => {
    const id = idOf(await crm.data.create(SYSTEM, 'companies', { legalName: 'S', apiToken: 'plain-token' }));
    const stored = await crm.store.get(id, { kind: 'all' });
    expect(typeof stored?.values['apiToken']).toBe('string');
    expect(JSON.stringify(stored)).not.toContain('plain-token');
    expect(JSON.stringify(await object('companies', id))).not.toContain('apiToken');
  });
});

describe('class rules', () => {
  const cls = (name: string): ClassDef => {
    const found = crm.model.classes.get(name);
    if (!found) throw new Error(name);
    return found;
  };

  it.each<[string, string, string, boolean]>([
    ['a person under a role class attachable to persons', 'crm.person', 'crm.shareholder', true],
    ['a company under a role class attachable to companies', 'crm.company', 'crm.shareholder', true],
    ['an invoice under a role class not attachable to it', 'crm.invoice', 'crm.shareholder', false],
    ['a person under an unrelated concrete class', 'crm.person', 'crm.company', false],
  ])('structural eligibility: %s', (_name, basic, target, expected) => {
    expect(isEligible(crm.model, basic, cls(target))).toBe(expected);
  });

  it.each<[string, boolean]>([
    ['crm.invoice', true],
    ['crm.company', false],
    ['crm.person', false],
    ['crm.invoiceLine', false],
  ])('recalculation for neighbours: %s reads through relations: %p', (name, expected) => {
    expect(readsThroughRelations(crm.model, cls(name).ancestors)).toBe(expected);
  });

  it('names the relations to use when several connect the classes of a related path', () => {
    const company = cls('crm.company');
    const other = company.relations.get('employees') as RelationEnd;
    const twice: ClassDef = {
      ...company,
      relations: new Map([...company.relations, ['board', { ...other, name: 'board' }]]),
    };
    expect(() => relatedEnd(crm.model, twice, 'persons')).toThrow(/employees, board/);
    expect(relatedEnd(crm.model, twice, 'board').name).toBe('board');
  });
});
