/**
 * The admin page's administration views as a person sees them (docs/admin-ui.md), in headless
 * Chromium against the demo tenant: the model's status with its findings and the upgrade download,
 * a recalculation run to its end, usage records with their totals per service, the jobs a MANUAL
 * script queued; then a member and a viewer, who get the API's 403 on each of them. axe-core finds
 * no serious or critical violation; screenshots go to `test-output/admin-ui-admin/`.
 */
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi } from './data-api.js';
import { AdminUiPage } from './support/admin-ui-page.js';
import { chromiumBinary, isVisible } from './support/browser.js';

const chromium = chromiumBinary();
if (chromium === null) {
  process.stderr.write(
    'skipped: admin page administration: no Chromium found (run tooling/browser/install.sh or set ODP_TEST_CHROMIUM)\n',
  );
}
const describeWithBrowser = chromium === null ? describe.skip : describe;

/** A key for a new profile of `role` (through the REST routes the Keys and profiles view uses). */
async function keyFor(api: DataApi, role: string): Promise<string> {
  const admin = async (route: string, body: unknown) => {
    const res = await fetch(`${api.server.baseUrl}/admin/${api.tenant}/${route}`, {
      method: 'POST',
      headers: { 'X-API-Key': api.systemKey, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`POST ${route}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string; key?: string };
  };
  const profile = await admin('profiles', { email: `${role}@example.test`, role });
  return String((await admin('apiKeys', { profileId: profile.id })).key);
}

describeWithBrowser('the admin page administration, as admin, member and viewer', () => {
  let api: DataApi;
  let ui: AdminUiPage;

  beforeAll(async () => {
    api = await startDataServer();
    ui = await AdminUiPage.open(chromium ?? '', api, 'admin-ui-admin');
    await ui.signIn(api.systemKey);
  }, 60_000);
  afterAll(async () => {
    await ui?.close();
    await api?.server.stop();
  });

  it('shows the model status, downloads the upgrade and recalculates a class with progress', async () => {
    const status = (await (
      await fetch(`${api.server.baseUrl}/admin/${api.tenant}/modelStatus`, {
        headers: { 'X-API-Key': api.systemKey },
      })
    ).json()) as { warnings: unknown[] };
    await ui.goto('#/model');
    expect(await ui.text('#model-state')).toBe('LOADED');
    expect(await ui.text('#model-errors')).toBe('0');
    expect(await ui.text('#model-warnings')).toBe(String(status.warnings.length));
    const upgrade = ui.page.waitForResponse((r) => r.url().endsWith('/modelUpgrade'));
    await ui.page.click('#model-upgrade');
    const answer = await upgrade;
    expect(answer.status()).toBe(200);
    expect(answer.headers()['content-type']).toContain('application/zip');

    await ui.page.select('#recalculate-class', 'invoices');
    await ui.page.click('#start-recalculate');
    await ui.until(`document.querySelector('#recalculate-state')?.innerText === 'done'`);
    expect(await ui.text('#recalculate-status')).toContain('Invoices');
    expect(await ui.text('#recalculate-processed')).toMatch(/^3( of 3)?$/);
    expect(await ui.axeViolations()).toEqual([]);
    await ui.screenshot('model', true);
  });

  it('shows usage records with their totals per service', async () => {
    const record = async (service: string, success: boolean, costLocal: number) => {
      const res = await fetch(`${api.server.baseUrl}/system/${api.tenant}/serviceCallLogs`, {
        method: 'POST',
        headers: { 'X-API-Key': api.systemKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          service,
          success,
          timestamp: new Date().toISOString(),
          cost: costLocal,
          costLocal,
          reference: api.href('invoices', DEMO.invoice1),
        }),
      });
      expect(res.status).toBe(201);
    };
    await record('webhook', true, 0);
    await record('webhook', false, 0);
    await record('address-enrichment', true, 0.07);
    await ui.goto('#/usage');
    expect(await ui.text('#usage-total-calls')).toBe('3');
    expect(await ui.text('[data-calls="webhook"]')).toBe('2');
    expect(await ui.text('[data-calls="address-enrichment"]')).toBe('1');
    expect(await ui.text('[data-cost="address-enrichment"]')).toContain('0.07');
    expect(await ui.texts('#usage-records tbody tr')).toHaveLength(3);
    expect(await ui.axeViolations()).toEqual([]);
    await ui.screenshot('usage', true);
    await ui.page.click('#usage-records tbody tr td a[href="#/usage?service=webhook"]');
    await ui.until(`location.hash === '#/usage?service=webhook'`);
    await ui.settled();
    expect(await ui.text('h1')).toBe('Usage of webhook');
    expect(await ui.texts('#usage-records tbody tr')).toHaveLength(2);
  });

  it('lists the jobs a MANUAL script queued, with their object', async () => {
    const run = await fetch(
      `${api.server.baseUrl}/scripts/${api.tenant}/invoices/${DEMO.invoice1}/notifyAccountant`,
      { method: 'POST', headers: { 'X-API-Key': api.systemKey } },
    );
    const { job } = (await run.json()) as { job: { id: string } };
    await ui.goto('#/jobs');
    expect(await ui.text(`[data-job="${job.id}"]`)).toContain('notifyAccountant');
    expect(await ui.text(`[data-job-status="${job.id}"]`)).toMatch(/^(pending|running|done|failed)$/);
    await ui.page.click(`[data-job="${job.id}"] a`);
    await ui.until(`location.hash === '#/object/invoices/${DEMO.invoice1}'`);
    await ui.settled();
    expect(await ui.text('h1')).toContain('2026-0001');
    await ui.goto('#/jobs');
    expect(await ui.axeViolations()).toEqual([]);
    await ui.screenshot('jobs', true);
    expect(ui.problems).toEqual([]);
  });

  it('shows the model read-only: classes, fields with formulas, relations, reports, access control', async () => {
    await ui.goto('#/schema');
    expect(await ui.texts('[data-schema-class]')).toEqual(expect.arrayContaining(['Invoices', 'Companies']));
    expect(await ui.texts('#schema-access [data-definition] h3')).toEqual(
      expect.arrayContaining(['allInvoices', 'companyTeam', 'everything', 'ownData']),
    );
    await ui.page.click('[data-schema-class="invoices"]');
    await ui.until(`location.hash === '#/schema/invoices'`);
    await ui.settled();
    expect(await ui.text('[data-formula="total"]')).toBe('round(amount * (1 + vatRate / 100), 2)');
    expect(await ui.text('[data-schema-field="status"]')).toContain('Draft');
    expect(await ui.texts('[data-schema-relation] td:first-child')).toEqual([
      'client',
      'contact',
      'documents',
      'lines',
    ]);
    expect(await ui.texts('#schema-reports li')).toEqual([
      'invoice: HTML in en, nl',
      'invoicePdf: PDF in en, nl',
    ]);
    expect(await ui.texts('#schema-access h3')).toContain('allInvoices');
    expect(await ui.axeViolations()).toEqual([]);
    await ui.screenshot('schema', true);
  });

  it('explores the API in Swagger UI under the CSP, calling with the signed-in key', async () => {
    const refused: string[] = [];
    ui.page.on('console', (message) => {
      if (/Content Security Policy|Refused to/.test(message.text())) refused.push(message.text());
    });
    // Only the viewer's bundle and stylesheet are served, under the page's CSP.
    const vendor = `${api.server.baseUrl}/admin-ui/vendor/swagger-ui/`;
    for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
      const res = await fetch(vendor + file);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    }
    for (const file of ['package.json', 'index.html', '%2e%2e/package.json']) {
      expect((await fetch(vendor + file)).status).toBe(404);
    }
    await ui.goto('#/api');
    expect(await ui.text('#explorer .title')).toContain('Demo CRM');
    expect(await ui.texts('#explorer-part option')).toEqual(
      expect.arrayContaining(['companies', 'metadata']),
    );
    const operation = '#operations-default-companiesGet';
    await ui.page.select('#explorer-part', 'companies');
    await ui.until(`location.hash === '#/api?part=companies'`);
    await ui.settled();
    await ui.page.click(`${operation} .opblock-summary`);
    await ui.page.waitForSelector(`${operation} .try-out__btn`);
    await ui.page.click(`${operation} .try-out__btn`);
    await ui.page.type(`${operation} tr[data-param-name="id"] input`, DEMO.acme);
    const sent = ui.page.waitForRequest((r) =>
      r.url().endsWith(`/data/${api.tenant}/companies/${DEMO.acme}`),
    );
    await ui.page.click(`${operation} .execute`);
    expect((await sent).headers()['x-api-key']).toBe(api.systemKey);
    await ui.until(
      `document.querySelector('${operation} .live-responses-table tbody .response-col_status')?.innerText.trim() === '200'`,
    );
    expect(await ui.text(`${operation} .live-responses-table`)).toContain('Acme BV');
    // The request's curl line would print the key: it is not shown.
    expect(await isVisible(ui.page, `${operation} .curl-command`)).toBe(false);
    expect(refused).toEqual([]);
    expect(await ui.axeViolations()).toEqual([]);
    await ui.page.$eval(`${operation} .opblock-summary`, (e) => e.scrollIntoView());
    await ui.screenshot('api', true, false);
  });

  it('a member and a viewer get the 403 of the administration routes, and read the model', async () => {
    for (const role of ['member', 'viewer']) {
      await ui.switchTo(await keyFor(api, role));
      for (const hash of ['#/model', '#/usage', '#/jobs']) {
        await ui.goto(hash);
        expect(await ui.text('.alert')).toMatch(/^403/);
      }
      // The model itself is readable by every role; its access control needs the admin role.
      await ui.goto('#/schema/invoices');
      expect(await ui.text('[data-formula="total"]')).toContain('round(');
      expect(await ui.text('#schema-access')).toContain('needs the admin role');
      await ui.screenshot(`${role}-administration`);
      await ui.goto('#/api');
      expect(await ui.text('#explorer .title')).toContain('Demo CRM');
    }
    // The model's tables scroll inside their boxes on a 390 px screen; the page does not.
    await ui.page.setViewport({ width: 390, height: 844 });
    await ui.goto('#/schema/invoices');
    expect(await ui.page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(await ui.axeViolations()).toEqual([]);
  });
});
