/**
 * Seeds a benchmark platform: a data directory with a tenant of the example CRM model holding N
 * objects, written through the store's bulk path, then the ACL derived by the same rebuild the
 * admin route runs. Shape (as in the access-control figures of the benchmark issue):
 * N/100 companies (anchors of `companyTeam`), N/1000 persons (employees, each with a profile and a
 * user-bound key), and invoices for the rest, each billed to a random company.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DOCUMENTS_FILE } from '@odp/platform';
import { tenantDataDir, platformDatabasePath } from '@odp/config';
import type { StoredObject, TenantStore } from '@odp/core';
import { generateApiKey } from '@odp/auth';
import { TenantAccessControl } from '@odp/acl';
import { loadModelRepository } from '@odp/model-loader';
import { openSqlitePlatformRegistry, openSqliteTenantStore } from '@odp/store-sqlite';

const STATUSES = ['draft', 'sent', 'paid', 'cancelled'] as const;
const COMPANY_TYPES = ['bv', 'nv', 'vof', 'eenmanszaak'] as const;
const WORDS = ['north', 'delta', 'harbor', 'maple', 'quartz', 'summit', 'lumen', 'cobalt', 'amber', 'vista'];
/** Invoice dates spread evenly over ten years, so one year's range selects 10% of invoices. */
const FIRST_YEAR = 2016;

/** A tenant's document store as the seed fills it. */
export interface SeedStore {
  readonly store: TenantStore;
  /** Stores a batch of new objects (the adapter's fastest path). */
  put(objects: StoredObject[]): Promise<void>;
  /** After the last write (planner statistics, a merged full-text index, closing). */
  finish(): Promise<void>;
}

/** Opens the document store of a new tenant: the embedded SQLite file unless told otherwise. */
export type OpenSeedStore = (tenantId: string, tenantDir: string) => Promise<SeedStore>;

const embeddedStore: OpenSeedStore = async (_tenantId, tenantDir) => {
  const store = openSqliteTenantStore({ file: path.join(tenantDir, DOCUMENTS_FILE) });
  return {
    store,
    put: async (objects) => store.bulkWrite(objects),
    finish: async () => {
      store.analyze();
      await store.compactSearchIndex();
      await store.close();
    },
  };
};

export interface SeedFixture {
  readonly dataDir: string;
  readonly tenantId: string;
  readonly systemKey: string;
  /** A user-bound key of a `member` profile linked to an employee person. */
  readonly memberKey: string;
  /** A user-bound key of a `viewer` profile linked to an employee person. */
  readonly viewerKey: string;
  readonly counts: { readonly companies: number; readonly persons: number; readonly invoices: number };
  readonly invoiceId: (index: number) => string;
  readonly companyId: (index: number) => string;
  /** The persons the member's and the viewer's profiles are linked to. */
  readonly memberPersonId: string;
  readonly viewerPersonId: string;
  /** Seconds spent writing objects and deriving the ACL. */
  readonly seconds: { readonly objects: number; readonly accessControl: number };
  /** Peak resident memory of this process while the ACL was derived, in MiB. */
  readonly rebuildPeakRssMiB: number;
}

/** Deterministic ids: a kind prefix and an index, in UUID shape. */
function uuid(kind: number, index: number): string {
  return `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
}

/**
 * A small deterministic generator, so every run seeds the same data: a 32-bit linear congruential
 * generator in exact integer arithmetic, scaled from its high bits: its low bits cycle with short
 * periods, so `state % bound` would never draw whole residues (persons never employed, companies
 * never billed).
 */
function generator(seed: number): (bound: number) => number {
  let state = seed >>> 0;
  return (bound) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return Math.floor((state / 4294967296) * bound);
  };
}

const at = '2026-01-01T00:00:00.000Z';
const stored = (
  id: string,
  basicClass: string,
  classes: string[],
  name: string,
  values: Record<string, unknown>,
  links: Record<string, string[]> = {},
): StoredObject => ({ id, basicClass, classes, name, values, links, createdAt: at, modifiedAt: at });

/** Objects per write of the seed. */
const SEED_BATCH = 10_000;

/** How many objects of each class a seed of N objects holds, and their deterministic ids. */
export interface BenchShape {
  readonly counts: { readonly companies: number; readonly persons: number; readonly invoices: number };
  readonly personId: (index: number) => string;
  readonly companyId: (index: number) => string;
  readonly invoiceId: (index: number) => string;
}

export function benchShape(objects: number): BenchShape {
  const companies = Math.max(10, Math.round(objects / 100));
  const persons = Math.max(10, Math.round(objects / 1000));
  return {
    counts: { companies, persons, invoices: Math.max(0, objects - companies - persons) },
    personId: (index) => uuid(1, index),
    companyId: (index) => uuid(2, index),
    invoiceId: (index) => uuid(3, index),
  };
}

/**
 * The generated objects of a seed of N, in write order (persons, companies, then invoices, each
 * billed to an earlier company), in batches of at most `size`: the same data on every run, for
 * this platform and for the peers it is measured beside (peers.ts).
 */
export function* benchBatches(objects: number, size: number): Generator<StoredObject[]> {
  const { counts, personId, companyId, invoiceId } = benchShape(objects);
  const { companies, persons, invoices } = counts;
  const random = generator(42);
  let batch: StoredObject[] = [];
  const full = () => batch.length >= size;
  const take = () => {
    const taken = batch;
    batch = [];
    return taken;
  };
  for (let index = 0; index < persons; index += 1) {
    const first = WORDS[index % WORDS.length] ?? 'x';
    batch.push(
      stored(personId(index), 'crm.person', ['crm.person'], `${first} Person${index}`, {
        firstName: first,
        lastName: `Person${index}`,
        email: `person${index}@example.test`,
        initials: `${first.toUpperCase()}.`,
      }),
    );
    if (full()) yield take();
  }
  const companyNames: string[] = [];
  for (let index = 0; index < companies; index += 1) {
    const legalName = `${WORDS[random(WORDS.length)]} ${WORDS[random(WORDS.length)]} ${index}`;
    companyNames.push(legalName);
    const employees = new Set([personId(random(persons)), personId(random(persons))]);
    batch.push(
      stored(
        companyId(index),
        'crm.company',
        ['crm.company', 'crm.organisation'],
        legalName,
        {
          legalName,
          registrationNumber: `REG-${index}`,
          companyType: COMPANY_TYPES[index % COMPANY_TYPES.length],
          employeeCount: random(1000),
          revenue: random(10_000_000),
          active: true,
          displayName: legalName.toUpperCase(),
        },
        { 'crm.company#employees': [...employees] },
      ),
    );
    if (full()) yield take();
  }
  // Invoices start a batch of their own, so the companies they are billed to are written before.
  if (batch.length > 0) yield take();
  for (let index = 0; index < invoices; index += 1) {
    const client = random(companies);
    const amount = 10 + random(100_000) / 100;
    const year = FIRST_YEAR + Math.floor((index * 10) / Math.max(1, invoices));
    const invoiceDate = `${year}-${String(1 + (index % 12)).padStart(2, '0')}-${String(1 + (index % 28)).padStart(2, '0')}`;
    batch.push(
      stored(
        invoiceId(index),
        'crm.invoice',
        ['crm.invoice'],
        `INV-${index}`,
        {
          invoiceNumber: `INV-${index}`,
          invoiceDate,
          amount,
          vatRate: 21,
          vatAmount: Math.round(amount * 21) / 100,
          total: Math.round(amount * 121) / 100,
          clientName: companyNames[client],
          status: STATUSES[index % STATUSES.length],
        },
        { 'crm.invoice#client': [companyId(client)] },
      ),
    );
    if (full()) yield take();
  }
  if (batch.length > 0) yield take();
}

export async function seedPlatform(options: {
  dataDir: string;
  objects: number;
  modelDir: string;
  log?: (line: string) => void;
  /** Where the objects go (default: the embedded SQLite store in the tenant's data directory). */
  openStore?: OpenSeedStore;
}): Promise<SeedFixture> {
  const log = options.log ?? (() => undefined);
  const loaded = await loadModelRepository(options.modelDir);
  if (!loaded.model) throw new Error('The example model was refused; see its model status.');
  const model = loaded.model;

  const registry = openSqlitePlatformRegistry(platformDatabasePath({ dataDir: options.dataDir }));
  const tenant = await registry.createTenant({ name: 'Benchmark CRM', modelSource: options.modelDir });
  const system = generateApiKey();
  await registry.createApiKey({
    tenantId: tenant.id,
    profileId: null,
    expiresAt: null,
    keyHash: system.hash,
  });

  const { counts, personId, companyId, invoiceId } = benchShape(options.objects);

  const tenantDir = tenantDataDir(options, tenant.id);
  mkdirSync(tenantDir, { recursive: true });
  const seeded = await (options.openStore ?? embeddedStore)(tenant.id, tenantDir);
  const store = seeded.store;
  await store.applyModel(model);
  const objectsStarted = Date.now();
  let written = 0;
  for (const batch of benchBatches(options.objects, SEED_BATCH)) {
    await seeded.put(batch);
    written += batch.length;
    if (Math.floor(written / 100_000) > Math.floor((written - batch.length) / 100_000)) {
      log(`  seeded ${written} objects`);
    }
  }
  const objectsSeconds = (Date.now() - objectsStarted) / 1000;

  const aclStarted = Date.now();
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  await new TenantAccessControl(model, tenant.id, store).rebuild();
  clearInterval(sampler);
  await seeded.finish();
  const aclSeconds = (Date.now() - aclStarted) / 1000;

  const userKey = async (role: 'member' | 'viewer', index: number): Promise<string> => {
    const profile = await registry.createProfile({
      tenantId: tenant.id,
      issuer: null,
      subject: null,
      email: `person${index}@example.test`,
      role,
      objectId: personId(index),
    });
    const key = generateApiKey();
    await registry.createApiKey({
      tenantId: tenant.id,
      profileId: profile.id,
      expiresAt: null,
      keyHash: key.hash,
    });
    return key.key;
  };
  const memberKey = await userKey('member', 0);
  const viewerKey = await userKey('viewer', 1);
  await registry.close();
  return {
    dataDir: options.dataDir,
    tenantId: tenant.id,
    systemKey: system.key,
    memberKey,
    viewerKey,
    counts,
    invoiceId,
    companyId,
    memberPersonId: personId(0),
    viewerPersonId: personId(1),
    seconds: { objects: objectsSeconds, accessControl: aclSeconds },
    rebuildPeakRssMiB: Math.round(peakRss / 1048576),
  };
}
