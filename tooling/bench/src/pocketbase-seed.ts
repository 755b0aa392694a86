/**
 * The bench's invoice workload in PocketBase, set up as a competent PocketBase user would: one
 * collection per class with typed fields, the indexes the measured queries need (the composite
 * (status, invoiceNumber) of the filtered, sorted list among them), the model's unique fields as
 * unique indexes, and API rules equivalent to the example model's `viewer` role. The records are the
 * seed's generated objects (seed.ts), written through PocketBase's batch API (one transaction per
 * batch), with ids derived from the platform's so both systems hold the same data.
 */
import type { StoredObject } from '@odp/core';
import type { PocketBase } from './pocketbase.js';
import { benchBatches } from './seed.js';

/** A field of a planned collection; a relation names its target collection, resolved to its id. */
type PlannedField = Record<string, unknown> & { name: string; type: string; collection?: string };

interface PlannedCollection {
  readonly name: string;
  /** The platform class whose objects become this collection's records. */
  readonly className: string;
  readonly fields: readonly PlannedField[];
  readonly indexes: readonly string[];
  readonly listRule: string | null;
}

/**
 * The record-level rule of the model's `viewer` role (roles.json: `companyTeam`, READ): a user reads
 * the companies they are an employee of and those companies' invoices. The user's auth record links
 * to their person (`person`), as the platform's profile links to its person object.
 */
const VIEWER_RULE = {
  companies: '@request.auth.id != "" && employees.id ?= @request.auth.person',
  invoices: '@request.auth.id != "" && client.employees.id ?= @request.auth.person',
};

/** The collections, in creation order (a relation's target first); documented in docs/performance.md. */
export const POCKETBASE_COLLECTIONS: readonly PlannedCollection[] = [
  {
    name: 'persons',
    className: 'crm.person',
    fields: [
      { name: 'firstName', type: 'text' },
      { name: 'lastName', type: 'text' },
      { name: 'email', type: 'email' },
      { name: 'initials', type: 'text' },
    ],
    indexes: [],
    listRule: null,
  },
  {
    name: 'companies',
    className: 'crm.company',
    fields: [
      { name: 'legalName', type: 'text', required: true },
      { name: 'registrationNumber', type: 'text' },
      { name: 'companyType', type: 'select', values: ['bv', 'nv', 'vof', 'eenmanszaak'], maxSelect: 1 },
      { name: 'employeeCount', type: 'number' },
      { name: 'revenue', type: 'number' },
      { name: 'active', type: 'bool' },
      { name: 'displayName', type: 'text' },
      { name: 'employees', type: 'relation', collection: 'persons', maxSelect: 100 },
    ],
    indexes: [
      'CREATE INDEX idx_companies_legalName ON companies (legalName)',
      'CREATE UNIQUE INDEX idx_companies_registrationNumber ON companies (registrationNumber)',
    ],
    listRule: VIEWER_RULE.companies,
  },
  {
    name: 'invoices',
    className: 'crm.invoice',
    fields: [
      { name: 'invoiceNumber', type: 'text', required: true },
      { name: 'invoiceDate', type: 'date', required: true },
      { name: 'amount', type: 'number', required: true },
      { name: 'vatRate', type: 'number' },
      { name: 'vatAmount', type: 'number' },
      { name: 'total', type: 'number' },
      { name: 'clientName', type: 'text' },
      { name: 'status', type: 'select', values: ['draft', 'sent', 'paid', 'cancelled'], maxSelect: 1 },
      { name: 'client', type: 'relation', collection: 'companies', maxSelect: 1, required: true },
    ],
    indexes: [
      'CREATE UNIQUE INDEX idx_invoices_invoiceNumber ON invoices (invoiceNumber)',
      'CREATE INDEX idx_invoices_status_invoiceNumber ON invoices (status, invoiceNumber)',
      'CREATE INDEX idx_invoices_client ON invoices (client)',
    ],
    listRule: VIEWER_RULE.invoices,
  },
];

/** Records per batch request (each batch one transaction); the batch API's limit is raised to it. */
const BATCH_SIZE = 1000;

/**
 * PocketBase's id of a seeded object: 15 characters of [a-z0-9] (its id pattern), made of the
 * seed's kind digit and index, so ids map one to one.
 */
export function pocketbaseId(seedId: string): string {
  const kind = Number.parseInt(seedId.slice(0, 8), 16);
  const index = Number.parseInt(seedId.slice(-12), 16);
  return `${kind}${index.toString(36).padStart(14, '0')}`;
}

/** A date of the seed (`YYYY-MM-DD`) as PocketBase stores dates. */
const pocketbaseDate = (value: unknown) => `${String(value)} 00:00:00.000Z`;

function recordOf(collection: PlannedCollection, object: StoredObject): Record<string, unknown> {
  const record: Record<string, unknown> = { id: pocketbaseId(object.id) };
  for (const field of collection.fields) {
    if (field.type === 'relation') {
      const ids = (object.links[`${collection.className}#${field.name}`] ?? []).map(pocketbaseId);
      record[field.name] = field['maxSelect'] === 1 ? (ids[0] ?? '') : ids;
    } else if (object.values[field.name] !== undefined) {
      const value = object.values[field.name];
      record[field.name] = field.type === 'date' ? pocketbaseDate(value) : value;
    }
  }
  return record;
}

/** The collections, the batch API enabled for the seed, and the viewer's link to their person. */
async function createSchema(pocketbase: PocketBase): Promise<void> {
  await pocketbase.call('PATCH', '/api/settings', {
    batch: { enabled: true, maxRequests: BATCH_SIZE, timeout: 60, maxBodySize: 0 },
  });
  const ids = new Map<string, string>();
  for (const planned of POCKETBASE_COLLECTIONS) {
    const fields = planned.fields.map(({ collection, ...field }) =>
      collection === undefined ? field : { ...field, collectionId: ids.get(collection) },
    );
    const created = (await pocketbase.call('POST', '/api/collections', {
      name: planned.name,
      type: 'base',
      fields,
      indexes: planned.indexes,
      listRule: planned.listRule,
      viewRule: planned.listRule,
    })) as { id: string };
    ids.set(planned.name, created.id);
  }
  const users = (await pocketbase.call('GET', '/api/collections/users')) as { fields: unknown[] };
  await pocketbase.call('PATCH', '/api/collections/users', {
    fields: [
      ...users.fields,
      { name: 'person', type: 'relation', collectionId: ids.get('persons'), maxSelect: 1 },
    ],
  });
}

export interface PocketBaseFixture {
  /** The viewer's auth token (a regular `users` record linked to the platform viewer's person). */
  readonly viewerToken: string;
  readonly seconds: number;
}

/**
 * Creates the collections and writes the seed of N objects through `/api/batch`, then a regular
 * user linked to the person the platform's viewer profile is linked to.
 */
export async function seedPocketBase(
  pocketbase: PocketBase,
  objects: number,
  viewerPersonId: string,
  log: (line: string) => void,
): Promise<PocketBaseFixture> {
  await createSchema(pocketbase);
  const byClass = new Map(POCKETBASE_COLLECTIONS.map((planned) => [planned.className, planned]));
  const started = Date.now();
  let written = 0;
  for (const batch of benchBatches(objects, BATCH_SIZE)) {
    const requests = batch.map((object) => {
      const planned = byClass.get(object.basicClass);
      if (planned === undefined) throw new Error(`No PocketBase collection for ${object.basicClass}.`);
      return {
        method: 'POST',
        url: `/api/collections/${planned.name}/records`,
        body: recordOf(planned, object),
      };
    });
    await pocketbase.call('POST', '/api/batch', { requests });
    written += batch.length;
    if (Math.floor(written / 100_000) > Math.floor((written - batch.length) / 100_000))
      log(`  PocketBase: seeded ${written} records`);
  }
  const seconds = (Date.now() - started) / 1000;
  const viewer = { email: 'viewer@example.test', password: 'bench-viewer-password' };
  await pocketbase.call('POST', '/api/collections/users/records', {
    ...viewer,
    passwordConfirm: viewer.password,
    person: pocketbaseId(viewerPersonId),
  });
  const auth = (await pocketbase.call('POST', '/api/collections/users/auth-with-password', {
    identity: viewer.email,
    password: viewer.password,
  })) as { token: string };
  return { viewerToken: auth.token, seconds };
}
