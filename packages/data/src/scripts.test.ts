import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '@odp/core';
import { loadModelRepository } from '@odp/model-loader';
import { openSqliteJobQueue, openSqliteTenantStore } from '@odp/store-sqlite';
import type { SqliteJobQueue } from '@odp/store-sqlite';
import { SYSTEM, TENANT, crmFixture } from '../test/crm-fixture.js';
import type { CrmFixture } from '../test/crm-fixture.js';
import { DataResources } from './resources/data-resources.js';
import { unrestrictedPolicy } from './unrestricted-policy.js';
import { relayOutbox } from './outbox.js';
import { unsealParameters } from './scripts.js';
import { SecretCipher } from './secret-cipher.js';
import { NamedObjects, systemSettingReader } from './system-settings.js';

let crm: CrmFixture;
let dir: string;
let queue: SqliteJobQueue;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'odp-scripts-'));
  queue = openSqliteJobQueue(path.join(dir, 'jobs.sqlite'));
  crm = await crmFixture(undefined, queue);
});
afterEach(async () => {
  await crm.close();
  await queue.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const idOf = (written: { id: string }) => written.id;
const href = (plural: string, id: string) => `/data/${TENANT}/${plural}/${id}`;

async function invoice(status = 'draft'): Promise<string> {
  const client = idOf(await crm.data.create(SYSTEM, 'companies', { legalName: 'Acme & Co' }));
  return idOf(
    await crm.data.create(SYSTEM, 'invoices', {
      invoiceNumber: 'INV-1',
      amount: 100,
      status,
      client: href('companies', client),
    }),
  );
}

const jobs = () => queue.list({ tenantId: TENANT, limit: 100 });

describe('CONSUMER_GATEWAY scripts', () => {
  beforeEach(async () => {
    await crm.system.create(SYSTEM, 'systemSettings', {
      name: 'accountantWebhookUrl',
      value: 'https://accountant.example.test/hook',
    });
  });

  it('queue a job with parameters by value when the condition holds on the trigger', async () => {
    const id = await invoice();
    expect(await jobs()).toEqual([]);
    await crm.data.patch(SYSTEM, 'invoices', id, { internalNote: 'still a draft' });
    expect(await jobs()).toEqual([]);
    await crm.data.patch(SYSTEM, 'invoices', id, { status: 'sent' });
    const [job, ...rest] = await jobs();
    expect(rest).toEqual([]);
    expect(job).toMatchObject({
      tenantId: TENANT,
      kind: 'gateway',
      objectId: id,
      status: 'pending',
      payload: {
        gateway: 'Webhook',
        script: 'notifyAccountant',
        className: 'crm.invoice',
        trigger: 'UPDATE',
        href: href('invoices', id),
        parameters: {
          url: 'https://accountant.example.test/hook',
          payload_invoice: href('invoices', id),
          payload_total: '121',
          payload_summary: 'Invoice INV-1 for Acme & Co: 121 (status sent)',
          'header.X-Source': 'odp',
        },
      },
    });
    expect(await crm.store.outbox(10)).toEqual([]);
  });

  it('keep the values of the moment of the write (relation paths through the pending state)', async () => {
    const id = await invoice();
    await crm.data.patch(SYSTEM, 'invoices', id, { status: 'sent' });
    await crm.data.patch(SYSTEM, 'invoices', id, { amount: 200 });
    const [second, first] = await jobs();
    expect(first?.payload['parameters']).toMatchObject({ payload_total: '121' });
    expect(second?.payload['parameters']).toMatchObject({ payload_total: '242' });
  });

  it('queue nothing for a refused write', async () => {
    const id = await invoice();
    await expect(
      crm.data.patch(SYSTEM, 'invoices', id, { status: 'sent', amount: 'not a number' }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      crm.data.patch(SYSTEM, 'invoices', id, { status: 'sent', amount: null }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(await jobs()).toEqual([]);
    expect(await crm.store.outbox(10)).toEqual([]);
  });

  it('leave jobs in the outbox when no queue is attached, for the relay', async () => {
    const detached = await crmFixture();
    try {
      await detached.system.create(SYSTEM, 'systemSettings', {
        name: 'accountantWebhookUrl',
        value: 'https://x.test',
      });
      const client = idOf(await detached.data.create(SYSTEM, 'companies', { legalName: 'B' }));
      const id = idOf(
        await detached.data.create(SYSTEM, 'invoices', {
          invoiceNumber: '9',
          amount: 1,
          client: href('companies', client),
        }),
      );
      await detached.data.patch(SYSTEM, 'invoices', id, { status: 'sent' });
      const waiting = await detached.store.outbox(10);
      expect(waiting).toHaveLength(1);
      expect(await relayOutbox(detached.store, queue)).toBe(1);
      expect(await relayOutbox(detached.store, queue)).toBe(0);
      expect((await jobs()).map((job) => job.id)).toEqual([waiting[0]!.id]);
    } finally {
      await detached.close();
    }
  });
});

describe('MANUAL scripts', () => {
  it('queue the script when its condition holds, and nothing otherwise', async () => {
    const id = await invoice();
    expect(await crm.data.runScript(SYSTEM, 'invoices', id, 'notifyAccountant')).toBeNull();
    await crm.data.patch(SYSTEM, 'invoices', id, { status: 'sent' });
    const job = await crm.data.runScript(SYSTEM, 'invoices', id, 'notifyAccountant');
    expect(job?.payload).toMatchObject({ trigger: 'MANUAL', parameters: { url: null } });
    expect((await jobs()).map((queued) => queued.id)).toContain(job?.id);
  });

  it('answer 404 for an unknown script, a non-gateway script and an unreadable object', async () => {
    const id = await invoice('sent');
    await expect(crm.data.runScript(SYSTEM, 'invoices', id, 'nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(crm.data.runScript(SYSTEM, 'invoices', id, 'setDueDate')).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(
      crm.data.runScript(SYSTEM, 'invoices', '00000000-0000-4000-8000-000000000000', 'notifyAccountant'),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(crm.data.runScript(SYSTEM, 'companies', id, 'notifyAccountant')).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('need record-level WRITE', async () => {
    const id = await invoice('sent');
    const policy = unrestrictedPolicy(crm.model);
    const readOnly = new DataResources({
      tenantId: TENANT,
      model: crm.model,
      store: crm.store,
      access: { ...policy, mayModify: async () => false },
      jobs: queue,
    });
    await expect(readOnly.runScript(SYSTEM, 'invoices', id, 'notifyAccountant')).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    expect(await jobs()).toEqual([]);
  });
});

describe('CREATE and DELETE triggers', () => {
  let dir2: string;
  let data: DataResources;
  let close: () => Promise<void>;

  beforeEach(async () => {
    // The example CRM with a gateway script on invoice lines for CREATE and DELETE.
    dir2 = fs.mkdtempSync(path.join(os.tmpdir(), 'odp-scripts-model-'));
    const repo = path.join(dir2, 'crm');
    fs.cpSync(path.resolve(__dirname, '../../../examples/models/crm'), repo, { recursive: true });
    const file = path.join(repo, 'classes/crm/invoiceLine.json');
    const definition = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    definition['scripts'] = [
      {
        name: 'lineAudit',
        type: 'CONSUMER_GATEWAY',
        gateway: 'Webhook',
        scope: 'OBJECT',
        trigger: ['CREATE', 'DELETE'],
        parameters: [
          { name: 'url', value: 'https://audit.example.test/' },
          { name: 'payload_invoice', formula: 'invoice.invoiceNumber' },
          { name: 'payload_amount', formula: 'amount' },
        ],
      },
      {
        name: 'lineMail',
        type: 'CONSUMER_GATEWAY',
        gateway: 'Mail',
        scope: 'OBJECT',
        trigger: ['CREATE'],
        condition: "description == 'A & <B>'",
        parameters: [
          { name: 'to', value: 'ann@example.test' },
          { name: 'subject', templateFile: 'templates/line-subject.hbs' },
          { name: 'body', templateFile: 'templates/line-body.hbs' },
        ],
      },
    ];
    fs.writeFileSync(file, JSON.stringify(definition));
    fs.writeFileSync(path.join(repo, 'templates/line-subject.hbs'), 'Line {{description}}');
    fs.writeFileSync(path.join(repo, 'templates/line-body.hbs'), '<p>Line {{description}}</p>');
    const { model } = await loadModelRepository(repo);
    if (!model) throw new Error('model refused');
    const store = openSqliteTenantStore({ file: path.join(dir2, 'documents.sqlite') });
    await store.applyModel(model);
    data = new DataResources({
      tenantId: TENANT,
      model,
      store,
      access: unrestrictedPolicy(model),
      jobs: queue,
    });
    close = () => store.close();
  });
  afterEach(async () => {
    await close();
    fs.rmSync(dir2, { recursive: true, force: true });
  });

  const parametersOf = async () =>
    (await jobs())
      .reverse()
      .filter((job) => job.payload['script'] === 'lineAudit')
      .map((job) => [
        job.payload['trigger'],
        (job.payload['parameters'] as Record<string, unknown>)['payload_invoice'],
        (job.payload['parameters'] as Record<string, unknown>)['payload_amount'],
      ]);

  it('fire on create (relation paths through the pending links) and on delete, cascades included', async () => {
    const client = idOf(await data.create(SYSTEM, 'companies', { legalName: 'Acme' }));
    const invoiceId = idOf(
      await data.create(SYSTEM, 'invoices', {
        invoiceNumber: 'INV-7',
        amount: 10,
        client: href('companies', client),
      }),
    );
    const line = idOf(
      await data.create(SYSTEM, 'invoiceLines', {
        description: 'work',
        quantity: 2,
        unitPrice: 5,
        invoice: href('invoices', invoiceId),
      }),
    );
    await data.patch(SYSTEM, 'invoiceLines', line, { quantity: 3 });
    expect(await parametersOf()).toEqual([['CREATE', 'INV-7', '10']]);
    await data.remove(SYSTEM, 'invoices', invoiceId);
    expect(await parametersOf()).toEqual([
      ['CREATE', 'INV-7', '10'],
      ['DELETE', 'INV-7', '15'],
    ]);
    const [deleted] = await jobs();
    expect(deleted).toMatchObject({ objectId: line, payload: { href: href('invoiceLines', line) } });
  });

  it('render templates as text, HTML-escaping values only in HTML templates of the Mail gateway', async () => {
    const client = idOf(await data.create(SYSTEM, 'companies', { legalName: 'Acme' }));
    const invoiceId = idOf(
      await data.create(SYSTEM, 'invoices', {
        invoiceNumber: 'I',
        amount: 1,
        client: href('companies', client),
      }),
    );
    await data.create(SYSTEM, 'invoiceLines', {
      description: 'A & <B>',
      unitPrice: 1,
      invoice: href('invoices', invoiceId),
    });
    const mail = (await jobs()).find((job) => job.payload['script'] === 'lineMail');
    expect(mail?.payload['parameters']).toEqual({
      to: 'ann@example.test',
      subject: 'Line A & <B>',
      body: '<p>Line A &amp; &lt;B&gt;</p>',
    });
    // The body is HTML because its template is: the job says so, decided before any value went in.
    expect(mail?.payload['htmlBody']).toBe(true);
  });

  it('queue nothing when the delete is refused', async () => {
    const client = idOf(await data.create(SYSTEM, 'companies', { legalName: 'Acme' }));
    const invoiceId = idOf(
      await data.create(SYSTEM, 'invoices', {
        invoiceNumber: 'INV-8',
        amount: 10,
        client: href('companies', client),
      }),
    );
    await data.create(SYSTEM, 'invoiceLines', {
      description: 'w',
      unitPrice: 1,
      invoice: href('invoices', invoiceId),
    });
    const before = (await jobs()).length;
    // The invoice's required relation to the company blocks deleting the company (409).
    await expect(data.remove(SYSTEM, 'companies', client)).rejects.toBeInstanceOf(ConflictError);
    expect(await jobs()).toHaveLength(before);
  });
});

describe('secret values', () => {
  const SECRET_URL = 'https://accountant.example.test/hook?token=s3cr3t-token';

  it('are stored encrypted, replaced by name, and never rendered', async () => {
    expect(
      await crm.system.storeSecretValue({ name: 'accountantWebhookUrl', secretValue: 'first-s3cr3t' }),
    ).toEqual({
      name: 'accountantWebhookUrl',
      created: true,
      href: expect.stringMatching(/^\/system\/.+\/secretValues\/[0-9a-f-]{36}$/),
    });
    expect(
      await crm.system.storeSecretValue({ name: 'accountantWebhookUrl', secretValue: SECRET_URL }),
    ).toEqual({
      name: 'accountantWebhookUrl',
      created: false,
      href: expect.stringMatching(/^\/system\/.+\/secretValues\/[0-9a-f-]{36}$/),
    });
    const rows = await crm.store.scan(null, 1000);
    const secrets = rows.filter((row) => row.basicClass === 'system.secretValue');
    expect(secrets).toHaveLength(1);
    expect(String(secrets[0]?.values['secretValue'])).toMatch(/^v1\./);
    expect(JSON.stringify(rows)).not.toContain('s3cr3t');
    const page = await crm.system.list(SYSTEM, { typeName: 'secretValues' }, new URLSearchParams());
    expect(JSON.stringify(page)).not.toContain('s3cr3t');
    expect(JSON.stringify(page)).toContain('accountantWebhookUrl');
  });

  it.each([
    [{ name: '', secretValue: 'x' }, 'name'],
    [{ name: 'a', secretValue: '' }, 'secretValue'],
    [{ name: 'a', secretValue: 42 }, 'secretValue'],
    [{ secretValue: 'hidden-s3cr3t' }, 'name'],
    ['not an object', 'name'],
  ])('refuse %j with a 400 that does not repeat the value', async (body, field) => {
    const error = await crm.system.storeSecretValue(body).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).fieldErrors.map((entry) => entry.field)).toContain(field);
    expect(JSON.stringify(error) + String(error)).not.toContain('s3cr3t');
  });

  it('resolve in gateway parameters only, which are then sealed in the job', async () => {
    await crm.system.storeSecretValue({ name: 'accountantWebhookUrl', secretValue: SECRET_URL });
    expect(await systemSettingReader(new NamedObjects(crm.store))('accountantWebhookUrl')).toBeNull();
    const id = await invoice();
    await crm.data.patch(SYSTEM, 'invoices', id, { status: 'sent' });
    const [job] = await jobs();
    expect(job?.payload['parameters']).toBeUndefined();
    expect(JSON.stringify(job)).not.toContain('s3cr3t');
    expect(
      unsealParameters(job!.payload, new SecretCipher('test-secret-key-of-at-least-32-characters')),
    ).toMatchObject({
      url: SECRET_URL,
      payload_invoice: href('invoices', id),
    });
    expect(
      unsealParameters(job!.payload, new SecretCipher('another-key-of-at-least-32-characters!')),
    ).toBeNull();
  });

  it('prefer a plain setting of the same name, and leave parameters plain without a secret', async () => {
    await crm.system.create(SYSTEM, 'systemSettings', {
      name: 'accountantWebhookUrl',
      value: 'https://plain.test/',
    });
    await crm.system.storeSecretValue({ name: 'accountantWebhookUrl', secretValue: SECRET_URL });
    const id = await invoice();
    await crm.data.patch(SYSTEM, 'invoices', id, { status: 'sent' });
    const [job] = await jobs();
    expect(job?.payload['parameters']).toMatchObject({ url: 'https://plain.test/' });
    expect(job?.payload['sealedParameters']).toBeUndefined();
  });
});
