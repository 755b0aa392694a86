import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import JSZip from 'jszip';
import { REPO_ROOT, startServer } from './support/server.js';
import type { TestServer } from './support/server.js';

const EXAMPLE = path.join(REPO_ROOT, 'examples/models/crm');
const INVOICE = 'classes/crm/invoice.json';
const BROKEN_ISSUE = {
  severity: 'ERROR',
  file: INVOICE,
  path: '/fields/7/formula',
  message: "Unknown field or relation 'price' on class crm.invoiceLine",
};

/** Admin model routes, the push webhook, `odp model reload` and metadata routes, through the real server. */
describe('model status, reload, upgrade and metadata', () => {
  let server: TestServer;
  let root: string;
  let repo: string;
  let tenant: string;
  let key: string;

  const copyExample = (name: string) => {
    const dir = path.join(root, name);
    fs.cpSync(EXAMPLE, dir, { recursive: true });
    return dir;
  };
  const breakModel = (dir: string) => {
    const file = path.join(dir, INVOICE);
    fs.writeFileSync(
      file,
      fs.readFileSync(file, 'utf8').replace('"sum(lines.amount)"', '"sum(lines.price)"'),
    );
  };
  const fixModel = (dir: string) => fs.cpSync(path.join(EXAMPLE, INVOICE), path.join(dir, INVOICE));
  const createTenant = async (name: string, dir: string) => {
    const created = await server.odp(['tenant', 'create', '--name', name, '--model', dir]);
    const id = String(created['id']);
    const systemKey = String((await server.odp(['key', 'create', '--tenant', id]))['key']);
    return { id, systemKey };
  };
  const call = (route: string, init: RequestInit & { key?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.key !== undefined) headers.set('X-API-Key', init.key);
    return fetch(`${server.baseUrl}${route}`, { ...init, headers });
  };

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'odp-model-admin-'));
    repo = copyExample('crm');
    server = await startServer();
    ({ id: tenant, systemKey: key } = await createTenant('Model admin', repo));
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('GET modelStatus: LOADED with the beta INFO and one upgradable file', async () => {
    const res = await call(`/admin/${tenant}/modelStatus`, { key });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      state: 'LOADED',
      checkedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      errors: [],
      warnings: [
        {
          severity: 'INFO',
          file: 'migration/legacyCrm.json',
          path: '',
          message: 'Migration is a beta feature, outside the compatibility guarantee',
        },
      ],
      upgradableFiles: 1,
      version: 1,
    });
  });

  it('reloadModel: 200 LOADED -> 422 REFUSED (previous model serves) -> 200 LOADED', async () => {
    const loaded = await call(`/admin/${tenant}/reloadModel`, { key, method: 'POST' });
    expect(loaded.status).toBe(200);
    expect(await loaded.json()).toMatchObject({ state: 'LOADED', errors: [] });

    breakModel(repo);
    const refused = await call(`/admin/${tenant}/reloadModel`, { key, method: 'POST' });
    expect(refused.status).toBe(422);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await refused.json()).toMatchObject({
      status: 422,
      state: 'REFUSED',
      errors: [BROKEN_ISSUE],
      upgradableFiles: 1,
      detail: 'The model was refused (1 error(s)); the previous model stays active.',
    });
    expect(await (await call(`/admin/${tenant}/modelStatus`, { key })).json()).toMatchObject({
      state: 'REFUSED',
      errors: [BROKEN_ISSUE],
    });
    expect((await call(`/data/${tenant}/companies`, { key })).status).toBe(200);

    fixModel(repo);
    const again = await call(`/admin/${tenant}/reloadModel`, { key, method: 'POST' });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ state: 'LOADED', errors: [] });
  });

  it('modelUpgrade: a zip with the converted format-1 file and UPGRADE-REPORT.md', async () => {
    const res = await call(`/admin/${tenant}/modelUpgrade`, { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename=model-upgrade-${tenant}.zip`);
    const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
    expect(
      Object.keys(zip.files)
        .filter((name) => !zip.files[name]?.dir)
        .sort(),
    ).toEqual(['UPGRADE-REPORT.md', 'classes/crm/note.json']);
    const note = JSON.parse((await zip.file('classes/crm/note.json')?.async('string')) ?? '{}');
    expect(note).toMatchObject({
      version: 2,
      class: 'crm.note',
      fields: [
        { name: 'subject', type: 'TEXT', required: true },
        { name: 'body', type: 'LONGTEXT' },
        { name: 'notedAt', type: 'DATETIME' },
      ],
      relations: [{ name: 'persons', target: 'crm.person', multiple: true, inverse: 'notes' }],
    });
    const report = (await zip.file('UPGRADE-REPORT.md')?.async('string')) ?? '';
    expect(report).toContain('- `classes/crm/note.json`: format 1 to 2');
    expect(report).toContain('## Issues that need a person (0)');
  });

  it('modelUpgrade works for a model refused for reference errors and lists them', async () => {
    breakModel(repo);
    try {
      const res = await call(`/admin/${tenant}/modelUpgrade`, { key });
      expect(res.status).toBe(200);
      const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
      const report = (await zip.file('UPGRADE-REPORT.md')?.async('string')) ?? '';
      expect(report).toContain(
        "| ERROR | classes/crm/invoice.json | /fields/7/formula | Unknown field or relation 'price' on class crm.invoiceLine |",
      );
    } finally {
      fixModel(repo);
    }
  });

  it('modelUpgrade and reloadModel answer 422 when the files cannot be read at all', async () => {
    const moved = `${repo}-moved`;
    fs.renameSync(repo, moved);
    try {
      const upgrade = await call(`/admin/${tenant}/modelUpgrade`, { key });
      expect(upgrade.status).toBe(422);
      const message = 'The model repository cannot be read: it is not a readable directory.';
      expect(await upgrade.json()).toMatchObject({
        status: 422,
        errors: [{ severity: 'ERROR', file: '', path: '', message }],
      });
      const reload = await call(`/admin/${tenant}/reloadModel`, { key, method: 'POST' });
      expect(reload.status).toBe(422);
      expect(await reload.json()).toMatchObject({ state: 'REFUSED', errors: [{ message }] });
    } finally {
      fs.renameSync(moved, repo);
    }
    expect((await call(`/admin/${tenant}/reloadModel`, { key, method: 'POST' })).status).toBe(200);
  });

  it('a tenant whose first model is refused is FAILED: data and metadata 503 naming the status, admin works', async () => {
    const dir = copyExample('failed');
    breakModel(dir);
    const failed = await createTenant('Failed model', dir);
    const status = await call(`/admin/${failed.id}/modelStatus`, { key: failed.systemKey });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ state: 'FAILED', errors: [BROKEN_ISSUE] });

    for (const route of [
      `/data/${failed.id}/companies`,
      `/metadata/${failed.id}/dataObject?classes=companies`,
    ]) {
      const res = await call(route, { key: failed.systemKey });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({
        status: 503,
        detail: expect.stringContaining('latest model load is FAILED'),
        modelStatus: { state: 'FAILED', errors: [BROKEN_ISSUE] },
      });
    }
    const reload = await call(`/admin/${failed.id}/reloadModel`, { key: failed.systemKey, method: 'POST' });
    expect(reload.status).toBe(422);
    expect(await reload.json()).toMatchObject({ state: 'FAILED', errors: [BROKEN_ISSUE] });

    fixModel(dir);
    const fixed = await call(`/admin/${failed.id}/reloadModel`, { key: failed.systemKey, method: 'POST' });
    expect(fixed.status).toBe(200);
    expect((await call(`/data/${failed.id}/companies`, { key: failed.systemKey })).status).toBe(200);
  });

  describe('push webhook', () => {
    let secret: string;
    let url: string;
    const body = JSON.stringify({ ref: 'refs/heads/main', after: 'abc123' });
    const sign = (text: string, withSecret: string) =>
      `sha256=${createHmac('sha256', withSecret).update(text).digest('hex')}`;
    const push = (target: string, headers: Record<string, string>, text = body) =>
      fetch(target, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: text,
      });

    beforeAll(async () => {
      const hook = await server.odp(['model', 'webhook', '--tenant', tenant]);
      secret = String(hook['secret']);
      url = String(hook['url']);
    });

    it('prints the webhook URL and a secret', () => {
      expect(url).toBe(`${server.baseUrl}/admin/${tenant}/modelWebhook`);
      expect(secret.length).toBeGreaterThanOrEqual(32);
    });

    it('reloads on a correctly signed push, without an API key', async () => {
      breakModel(repo);
      try {
        const res = await push(url, { 'X-Hub-Signature-256': sign(body, secret) });
        expect(res.status).toBe(422);
        expect(await res.json()).toMatchObject({ state: 'REFUSED', errors: [BROKEN_ISSUE] });
      } finally {
        fixModel(repo);
      }
      const res = await push(url, { 'X-Hub-Signature-256': sign(body, secret) });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ state: 'LOADED' });
    });

    it.each<[string, () => Promise<Response>]>([
      ['no signature', () => push(url, {})],
      ['a signature with another secret', () => push(url, { 'X-Hub-Signature-256': sign(body, 'guess') })],
      ['a signature of another body', () => push(url, { 'X-Hub-Signature-256': sign('{}', secret) })],
      [
        'a signature without the sha256= prefix',
        () => push(url, { 'X-Hub-Signature-256': sign(body, secret).slice(7) }),
      ],
      ['an API key instead of a signature', () => push(url, { 'X-API-Key': key })],
      [
        'an unknown tenant',
        () =>
          push(`${server.baseUrl}/admin/00000000-0000-4000-8000-000000000000/modelWebhook`, {
            'X-Hub-Signature-256': sign(body, secret),
          }),
      ],
    ])('refuses %s with 401', async (_name, send) => {
      const res = await send();
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });
  });

  /** The model status the api serves, once it names `version` (the api follows the registry's poll). */
  const statusServing = async (version: number) => {
    let status: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) {
      status = (await (await call(`/admin/${tenant}/modelStatus`, { key })).json()) as Record<
        string,
        unknown
      >;
      if (status['version'] === version) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return status;
  };

  it('odp model reload prints the status; a refused model is stored as no version, the current one serves', async () => {
    const current = (await (await call(`/admin/${tenant}/modelStatus`, { key })).json()) as {
      version: number;
    };
    breakModel(repo);
    try {
      const refused = await server.odp(['model', 'reload', '--tenant', tenant]);
      expect(refused).toMatchObject({
        state: 'REFUSED',
        errors: [BROKEN_ISSUE],
        upgradableFiles: 1,
        version: current.version,
      });
      expect(await (await call(`/admin/${tenant}/modelStatus`, { key })).json()).toMatchObject({
        state: 'LOADED',
        version: current.version,
      });
      expect((await call(`/data/${tenant}/companies`, { key })).status).toBe(200);
    } finally {
      fixModel(repo);
    }
    // The repository as it was is the version already current (the same files are one version).
    expect(await server.odp(['model', 'reload', '--tenant', tenant])).toMatchObject({
      state: 'LOADED',
      errors: [],
      version: current.version,
    });
  });

  it('odp model push stores a new version from any directory; the api serves it within seconds', async () => {
    const pushed = copyExample('pushed');
    const file = path.join(pushed, 'classes/crm/company.json');
    const company = JSON.parse(fs.readFileSync(file, 'utf8')) as { fields: object[] };
    company.fields.push({ name: 'pushedField', type: 'TEXT' });
    fs.writeFileSync(file, JSON.stringify(company));
    const before = (await (await call(`/admin/${tenant}/modelStatus`, { key })).json()) as {
      version: number;
    };
    const status = await server.odp(['model', 'push', '--tenant', tenant, pushed]);
    expect(status).toMatchObject({ state: 'LOADED', errors: [] });
    expect(status['version']).toBeGreaterThan(before.version);
    expect(await statusServing(status['version'] as number)).toMatchObject({
      state: 'LOADED',
      version: status['version'],
    });
    const form = await call(`/metadata/${tenant}/form?classes=companies`, { key });
    expect(JSON.stringify(await form.json())).toContain('pushedField');

    // A refused push fails, stores nothing, and the pushed version keeps serving.
    breakModel(pushed);
    const refused = await server.odpRaw(['model', 'push', '--tenant', tenant, pushed]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the model was refused; nothing was stored');
    expect(refused.stderr).toContain("Unknown field or relation 'price'");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await (await call(`/admin/${tenant}/modelStatus`, { key })).json()).toMatchObject({
      state: 'LOADED',
      version: status['version'],
    });
    // The tenant's repository is read again by a reload: back to its own version.
    const reloaded = await call(`/admin/${tenant}/reloadModel`, { key, method: 'POST' });
    expect(await reloaded.json()).toMatchObject({ state: 'LOADED', version: before.version });
  });

  describe('metadata', () => {
    it.each([
      ['dataObject', 'invoices', { classes: ['invoices'], nameFormula: 'invoiceNumber' }],
      ['form', 'companies', { classes: ['companies'] }],
      ['relatedDataObject', 'persons,shareholders', { classes: ['persons', 'shareholders'] }],
    ])('GET /metadata/{tenant}/%s?classes=%s', async (kind, classes, expected) => {
      const res = await call(`/metadata/${tenant}/${kind}?classes=${classes}`, { key });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject(expected);
    });

    it('describes fields with their flags and relations of both directions', async () => {
      const body = (await (
        await call(`/metadata/${tenant}/dataObject?classes=invoices`, { key })
      ).json()) as {
        fields: { name: string; readOnly: boolean; hidden: boolean; list?: { name: string } }[];
        relations: { name: string; direction: string; readOnly: boolean }[];
      };
      const fields = new Map(body.fields.map((f) => [f.name, f]));
      expect(fields.get('total')).toMatchObject({ readOnly: true, hidden: false });
      expect(fields.get('internalNote')).toMatchObject({ readOnly: false, hidden: true });
      expect(fields.get('status')?.list?.name).toBe('crm.invoiceStatus');
      expect(body.relations.map((r) => [r.name, r.direction, r.readOnly])).toEqual([
        ['client', 'forward', false],
        ['contact', 'forward', false],
        ['documents', 'inverse', true],
        ['lines', 'inverse', true],
      ]);
    });

    it.each([
      ['without classes', '', 400],
      ['with an unknown class', '?classes=robots', 404],
      ['with a system class', '?classes=secretValues', 404],
    ])('answers dataObject %s (%j) with %i', async (_name, query, status) => {
      const res = await call(`/metadata/${tenant}/dataObject${query}`, { key });
      expect(res.status).toBe(status);
    });

    it('publishes the migration definition with a link to its JSON Schema', async () => {
      const res = await call(`/metadata/${tenant}/migrationDefinition`, { key });
      expect(res.status).toBe(200);
      expect(res.headers.get('link')).toBe(
        `</metadata/${tenant}/migrationDefinition/schema>; rel="describedby"`,
      );
      const definition = (await res.json()) as { migrationType: string; steps: { target: string }[] };
      expect(definition.migrationType).toBe('legacy-crm');
      expect(definition.steps.map((s) => s.target)).toEqual(['crm.company', 'crm.person', 'crm.invoice']);
      const schema = await call(`/metadata/${tenant}/migrationDefinition/schema`, { key });
      expect(schema.status).toBe(200);
      expect(await schema.json()).toMatchObject({
        title: 'MigrationDefinition',
        required: ['migrationType', 'steps'],
      });
    });
  });
});
