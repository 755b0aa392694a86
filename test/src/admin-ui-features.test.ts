/**
 * The admin page's features as a person sees them (docs/admin-ui.md), in headless Chromium against
 * the demo tenant: the global search, a list with LIST labels, facets and the export, an object
 * named by its name, a document created with an uploaded file, the relation typeahead, and keys and
 * profiles; then a viewer and a member signed in with keys made on the page, each seeing the write
 * controls their capabilities give; the layout at 390 px; axe-core finds no serious or critical
 * violation. Screenshots go to the test output (`test-output/admin-ui/`); with `UPDATE_DOCS_IMAGES=1`
 * the main views are also written to `docs/images/` for the docs page.
 */
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi } from './data-api.js';
import { AdminUiPage } from './support/admin-ui-page.js';
import { chromiumBinary, isVisible } from './support/browser.js';

const chromium = chromiumBinary();
if (chromium === null) {
  process.stderr.write(
    'skipped: admin page features: no Chromium found (run tooling/browser/install.sh or set ODP_TEST_CHROMIUM)\n',
  );
}
const describeWithBrowser = chromium === null ? describe.skip : describe;

describeWithBrowser('the admin page, as admin, viewer and member', () => {
  let api: DataApi;
  let ui: AdminUiPage;
  let page: Page;
  let viewerKey = '';
  let memberKey = '';
  const until = (predicate: string) => ui.until(predicate);
  const settled = () => ui.settled();
  const goto = (hash: string) => ui.goto(hash);
  const text = (selector: string) => ui.text(selector);
  const texts = (selector: string) => ui.texts(selector);
  const screenshot = (name: string, docs = false) => ui.screenshot(name, docs);
  const axeViolations = () => ui.axeViolations();
  const signIn = (key: string) => ui.signIn(key);

  beforeAll(async () => {
    api = await startDataServer();
    ui = await AdminUiPage.open(chromium ?? '', api, 'admin-ui');
    page = ui.page;
  }, 60_000);
  afterAll(async () => {
    await ui?.close();
    await api?.server.stop();
  });

  it('searches everything from the header', async () => {
    await signIn(api.systemKey);
    expect(await axeViolations()).toEqual([]);
    await page.type('#global-search-q', 'acme');
    await page.keyboard.press('Enter');
    await until(`location.hash === '#/search?q=acme'`);
    await settled();
    expect(await texts('[data-hit="companies"]')).toContain('Acme BV');
    expect(await texts('[data-hit="persons"]')).toContain('Ann de Vries');
    expect(await axeViolations()).toEqual([]);
    await screenshot('search', true);
  });

  it('lists with LIST labels, facets as filter chips, a search box and an export', async () => {
    await goto('#/list/companies');
    expect(await texts('#rows th')).toEqual(expect.arrayContaining(['Legal name', 'Legal form']));
    expect(await texts('#rows tbody td')).toContain('Private limited company');
    expect(await texts('#rows tbody td')).not.toContain('bv');
    expect(await text('[data-facet="companyType"]')).toContain('Public company');
    expect(await axeViolations()).toEqual([]);
    await screenshot('list', true);

    await page.click('[data-facet-value="nv"]');
    await until(`location.hash.includes('companyType=nv')`);
    await settled();
    expect(await text('[data-filter="companyType"]')).toContain('Legal form is Public company');
    expect(await texts('#rows tbody tr td:first-child')).toEqual(['Globex NV']);
    const exported = page.waitForResponse((r) => r.url().includes('/excel/companies'));
    await page.click('#export');
    const answer = await exported;
    expect(answer.status()).toBe(200);
    expect(answer.url()).toContain('companyType=nv');

    await goto('#/list/companies');
    await page.type('#list-search', 'glob');
    await page.keyboard.press('Enter');
    await until(`location.hash === '#/list/companies?q=glob'`);
    await settled();
    expect(await texts('#rows tbody tr td:first-child')).toEqual(['Globex NV']);
  });

  it('chooses columns: relation names as links', async () => {
    await goto('#/list/companies');
    await page.click('#column-chooser summary');
    await page.click('input[data-column="employees"]');
    await until(`[...document.querySelectorAll('#rows th')].some((th) => th.innerText === 'Employees')`);
    expect(await texts('#rows tbody td a')).toContain('Ann de Vries');
    await page.click('#column-chooser summary');
    await page.click('input[data-column="employees"]');
    await until(`![...document.querySelectorAll('#rows th')].some((th) => th.innerText === 'Employees')`);
  });

  it('shows an object under its name, dates formatted', async () => {
    await goto(`#/object/companies/${DEMO.acme}`);
    expect(await text('h1')).toContain('Acme BV');
    expect(await page.title()).toContain('Acme BV');
    expect(await text('[data-field="foundedOn"]')).toMatch(/2004/);
    expect(await text('[data-field="foundedOn"]')).not.toBe('2004-03-01');
    expect(await text('[data-field="companyType"]')).toBe('Private limited company');
    expect(await axeViolations()).toEqual([]);
    await screenshot('object', true);
  });

  it('follows changes made elsewhere live, in an open object and an open list', async () => {
    await goto(`#/object/companies/${DEMO.acme}`);
    await until(`document.querySelector('#live')?.checkVisibility() === true`);
    expect(await text('#live')).toContain('live');
    await api.call('PATCH', `/companies/${DEMO.acme}`, { body: { employeeCount: 43 } });
    await until(`document.querySelector('[data-field="employeeCount"]')?.innerText === '43'`);
    expect(await text('.notice')).toBe('Updated just now: Employee count.');
    await goto('#/list/companies');
    const initech = await api.create('companies', { legalName: 'Initech BV', companyType: 'bv' });
    await until(
      `[...document.querySelectorAll('#rows tbody td')].some((td) => td.innerText === 'Initech BV')`,
    );
    // Typing in the search box is not redrawn away: the list offers a refresh instead.
    await page.focus('#list-search');
    await api.create('companies', { legalName: 'Umbrella NV', companyType: 'nv' });
    await until(`document.querySelector('#live-refresh') !== null`);
    await page.click('#live-refresh');
    await until(
      `[...document.querySelectorAll('#rows tbody td')].some((td) => td.innerText === 'Umbrella NV')`,
    );
    // An open object deleted elsewhere says so.
    await goto(`#/object/companies/${initech}`);
    expect((await api.call('DELETE', `/companies/${initech}`)).status).toBe(200);
    await until(`document.querySelector('.alert')?.innerText === 'This object was deleted just now.'`);
  });

  it('renders reports in a chosen language and runs MANUAL scripts', async () => {
    await goto(`#/object/invoices/${DEMO.invoice1}`);
    expect(await texts('#reports .action-name')).toEqual(['invoice', 'invoicePdf']);
    await page.select('#report-language-invoice', 'nl');
    await page.click('[data-report="invoice"]');
    await until(`document.querySelector('[data-report-link="invoice"]') !== null`);
    expect(await text('[data-report-link="invoice"]')).toMatch(/^Open invoice \(HTML, /);
    // The signed address needs no key: what the link opens is the rendered invoice.
    const html = await fetch(
      await page.$eval('[data-report-link="invoice"]', (a) => a.getAttribute('href') ?? ''),
    );
    expect(html.status).toBe(200);
    expect(await html.text()).toContain('Factuur 2026-0001');
    await page.click('[data-report="invoicePdf"]');
    await until(`document.querySelector('[data-report-link="invoicePdf"]') !== null`);
    const pdf = await fetch(
      await page.$eval('[data-report-link="invoicePdf"]', (a) => a.getAttribute('href') ?? ''),
    );
    expect(pdf.headers.get('content-type')).toContain('application/pdf');

    // The sent invoice meets the script's condition: a job is queued; the draft one does not.
    await page.click('[data-script="notifyAccountant"]');
    await until(`document.querySelector('[data-script-result="notifyAccountant"]').innerText !== ''`);
    expect(await text('[data-script-result="notifyAccountant"]')).toMatch(/^Queued as job \S+\.$/);
    expect(await axeViolations()).toEqual([]);
    await screenshot('object-actions', true);
    await goto(`#/object/invoices/${DEMO.invoice2}`);
    await page.click('[data-script="notifyAccountant"]');
    await until(`document.querySelector('[data-script-result="notifyAccountant"]').innerText !== ''`);
    expect(await text('[data-script-result="notifyAccountant"]')).toMatch(/^Not run: /);
  });

  it('merges a duplicate into an object, picked by typeahead and confirmed', async () => {
    const winner = await api.create('persons', {
      firstName: 'Dirk',
      lastName: 'Dubbel',
      email: 'dirk@example.test',
    });
    const loser = await api.create('persons', { firstName: 'Dirk', lastName: 'Dubbelganger' });
    await api.call('PATCH', `/companies/${DEMO.globex}`, {
      body: { employees: [api.href('persons', DEMO.carla), api.href('persons', loser)] },
    });
    await goto(`#/object/persons/${winner}`);
    expect(await isVisible(page, '#confirm-merge')).toBe(false);
    await page.focus('#field-merge');
    await page.keyboard.type('Dubbelg');
    await until(`document.querySelector('#field-merge-options [data-option="Dirk Dubbelganger"]') !== null`);
    await page.keyboard.press('Enter');
    await page.click('#merge');
    expect(await isVisible(page, '#confirm-merge')).toBe(true);
    await page.click('#confirm-merge');
    await until(`document.querySelector('.notice')?.innerText.startsWith('Merged')`);
    await settled();
    // The duplicate is gone (its address leads to the survivor) and its link moved here.
    expect((await api.call('GET', `/persons/${loser}`)).status).toBe(307);
    expect(await texts('a[data-relation="employers"]')).toContain('Globex NV');
  });

  it('shows who can see an object under its name', async () => {
    await goto(`#/audit/companies/${DEMO.acme}`);
    expect(await text('#audit-object')).toBe('Acme BV');
    const report = (await (
      await fetch(`${api.server.baseUrl}/audit/${api.tenant}/companies/${DEMO.acme}/access`, {
        headers: { 'X-API-Key': api.systemKey },
      })
    ).json()) as { grants: { definition: string; objectAllows: string[] }[] };
    expect(await texts('#audit-grants tbody tr td:first-child')).toEqual(
      report.grants.map((g) => g.definition),
    );
    const first = report.grants[0];
    expect(await text(`[data-allows="${first?.definition}"]`)).toBe(
      first?.objectAllows.join(', ').toLowerCase(),
    );
    expect(await axeViolations()).toEqual([]);
    await screenshot('audit', true);
  });

  it('creates a document with an uploaded file, then offers its download', async () => {
    const file = path.join(os.tmpdir(), `odp-admin-ui-${process.pid}.txt`);
    writeFileSync(file, 'The contract, signed.\n');
    await goto('#/new/documents');
    const chooser = await page.$('#field-file');
    await chooser?.uploadFile(file);
    await until(`document.querySelector('[data-uploaded="file"]')?.innerText === '${path.basename(file)}'`);
    await page.type('#field-title', 'Signed contract');
    await screenshot('upload', true);
    await page.click('#save');
    await until(`location.hash.startsWith('#/object/documents/')`);
    await settled();
    expect(await text('h1')).toContain('Signed contract');
    expect(await text('[data-file-name="file"]')).toBe(path.basename(file));
    expect(await isVisible(page, '[data-download="file"]')).toBe(true);
    const download = page.waitForResponse((r) => r.url().includes('/download/'));
    await page.click('[data-download="file"]');
    expect((await download).status()).toBe(200);
    rmSync(file, { force: true });
  });

  it('links a relation through the typeahead, by keyboard', async () => {
    await goto(`#/edit/companies/${DEMO.globex}`);
    await page.focus('#field-employees');
    await page.keyboard.type('Carl');
    await until(`document.querySelector('#field-employees-options [data-option="Carla Smit"]') !== null`);
    expect(await isVisible(page, '#field-employees-options')).toBe(true);
    await screenshot('relation-picker', true);
    await page.keyboard.press('Enter');
    await until(`document.querySelector('[data-linked="employees"]').innerText.includes('Carla Smit')`);
    await page.click('#save');
    await until(`location.hash === '#/object/companies/${DEMO.globex}'`);
    await settled();
    expect(await texts('a[data-relation="employees"]')).toContain('Carla Smit');
  });

  it('creates profiles and keys shown once, revokes a key', async () => {
    await goto('#/access');
    for (const [email, role, person] of [
      ['vera@example.test', 'viewer', DEMO.ann],
      ['max@example.test', 'member', DEMO.bob],
    ] as const) {
      await page.type('#profile-email', email);
      await page.select('#profile-role', role);
      await page.type('#profile-object', person);
      await page.click('#profile-form button[type="submit"]');
      await until(`document.querySelector('[data-profile="${email}"]') !== null`);
      const option = await page.$$eval(
        '#key-profile option',
        (options, wanted) =>
          options
            .find((o) => (o as unknown as { innerText: string }).innerText.startsWith(wanted))
            ?.getAttribute('value'),
        email,
      );
      await page.select('#key-profile', option ?? '');
      await page.click('#key-form button[type="submit"]');
      await until(`document.querySelector('#new-key-value') !== null`);
      const key = await text('#new-key-value');
      expect(key).toMatch(/^odp_/);
      if (role === 'viewer') viewerKey = key;
      else memberKey = key;
    }
    expect(await axeViolations()).toEqual([]);
    // The picture shows where a new key appears, not a key: its value is masked before the shot.
    await page.evaluate(`document.querySelector('#new-key-value').textContent = 'odp_' + '•'.repeat(43)`);
    await screenshot('access', true);
    await goto('#/classes');
    await goto('#/access');
    expect(await page.$('#new-key-value')).toBeNull(); // shown once

    await page.type('#profile-email', 'temp@example.test');
    await page.click('#profile-form button[type="submit"]');
    await until(`document.querySelector('[data-profile="temp@example.test"]') !== null`);
    // A key for the temporary profile, the newest key: the one revoked below.
    const tempOption = await page.$$eval('#key-profile option', (options) =>
      options
        .find((o) => (o as unknown as { innerText: string }).innerText.startsWith('temp@'))
        ?.getAttribute('value'),
    );
    await page.select('#key-profile', tempOption ?? '');
    await page.click('#key-form button[type="submit"]');
    await until(`document.querySelector('#new-key-value') !== null`);
    await page.click('[data-toggle="temp@example.test"]');
    await until(`document.querySelector('[data-state="temp@example.test"]')?.innerText === 'suspended'`);
    const keyRows = await page.$$eval('[data-revoke]', (buttons) =>
      buttons.map((b) => b.getAttribute('data-revoke')),
    );
    const toRevoke = keyRows[keyRows.length - 1] ?? '';
    await page.click(`[data-revoke="${toRevoke}"]`);
    await until(`document.querySelector('[data-key-state="${toRevoke}"]')?.innerText === 'revoked'`);
    expect(ui.problems).toEqual([]);
  });

  it('a viewer sees no write controls', async () => {
    await page.click('#sign-out');
    await signIn(viewerKey);
    await goto('#/list/companies');
    expect(await isVisible(page, '#create')).toBe(false);
    await goto(`#/object/companies/${DEMO.acme}`);
    expect(await text('h1')).toContain('Acme BV');
    expect(await isVisible(page, '#edit')).toBe(false);
    // A viewer's open object follows changes too.
    await until(`document.querySelector('#live')?.checkVisibility() === true`);
    await api.call('PATCH', `/companies/${DEMO.acme}`, { body: { employeeCount: 44 } });
    await until(`document.querySelector('[data-field="employeeCount"]')?.innerText === '44'`);
    await goto(`#/object/invoices/${DEMO.invoice1}`);
    expect(await isVisible(page, '[data-report="invoice"]')).toBe(true);
    expect(await page.$('[data-script]')).toBeNull();
    expect(await page.$('#merge')).toBeNull();
    await screenshot('viewer-object');
    await goto('#/access');
    expect(await text('.alert')).toContain('403');
  });

  it('a member sees what the capabilities give, and the page fits 390 px', async () => {
    await page.click('#sign-out');
    await signIn(memberKey);
    const capabilities = (await (
      await api.call('GET', `/companies/${DEMO.acme}/capabilities`, { key: memberKey })
    ).json()) as { mayModify: boolean };
    await goto(`#/object/companies/${DEMO.acme}`);
    expect(await isVisible(page, '#edit')).toBe(capabilities.mayModify);
    const invoice = (await (
      await api.call('GET', `/invoices/${DEMO.invoice1}/capabilities`, { key: memberKey })
    ).json()) as { mayModify: boolean };
    await goto(`#/object/invoices/${DEMO.invoice1}`);
    expect((await page.$('[data-script="notifyAccountant"]')) !== null).toBe(invoice.mayModify);
    await page.setViewport({ width: 390, height: 844 });
    for (const hash of ['#/list/companies', `#/object/companies/${DEMO.acme}`]) {
      await goto(hash);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    }
    expect(await isVisible(page, '#global-search-q')).toBe(true);
    expect(await axeViolations()).toEqual([]);
    await screenshot('narrow-list', true);
  });
});
