/**
 * A newcomer's first hour, scripted: a fresh data directory, the real `pnpm start`, the class list,
 * the OpenAPI document validated, the admin page (`/admin-ui/`) exercised in headless Chromium, the
 * `odp` commands the README names, and Ctrl-C. Screenshots of every page step go to the test output
 * directory (`test-output/walkthrough/`, or `$ODP_TEST_OUTPUT_DIR/walkthrough/`; not committed).
 *
 * The browser steps need Chromium from the Debian archive (`tooling/browser/install.sh`); without it
 * they are skipped with the reason printed, and the rest still runs.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { chromiumBinary, isVisible, launchChromium } from './support/browser.js';
import { validateOpenApi } from './support/openapi.js';
import { pnpmCommand } from './support/pnpm.js';
import { freePort, REPO_ROOT, runOdpProcess } from './support/server.js';

const pnpm = pnpmCommand();
const chromium = chromiumBinary();
if (pnpm === null) process.stderr.write('skipped: walk-through: no pnpm on the PATH or in npm_execpath\n');
if (pnpm !== null && chromium === null) {
  process.stderr.write(
    'skipped: walk-through, admin page in the browser: no Chromium found (run tooling/browser/install.sh or set ODP_TEST_CHROMIUM)\n',
  );
}
const describeWithPnpm = pnpm === null ? describe.skip : describe;
const describeWithBrowser = chromium === null ? describe.skip : describe;

const OUTPUT_DIR = path.join(
  process.env['ODP_TEST_OUTPUT_DIR'] ?? path.join(REPO_ROOT, 'test-output'),
  'walkthrough',
);
const START_TIMEOUT_MS = 25_000;

interface Started {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  readonly tenantId: string;
  readonly systemKey: string;
  output(): string;
}

async function pnpmStart(dataDir: string, port: number): Promise<Started> {
  const [command = 'pnpm', ...prefix] = pnpm ?? [];
  const child = spawn(command, [...prefix, 'start'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      ODP_DATA_DIR: dataDir,
      ODP_BASE_URL: `http://127.0.0.1:${port}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ready = await new Promise<{ baseUrl: string; tenantId: string; systemKey: string }>(
    (resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready:\n${output}`)), START_TIMEOUT_MS);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`pnpm start exited with ${code}:\n${output}`));
      });
      child.stdout?.on('data', () => {
        const line = output.split('\n').find((l) => l.startsWith('ODP_READY ') && output.includes(`${l}\n`));
        if (line === undefined) return;
        clearTimeout(timer);
        resolve(JSON.parse(line.slice('ODP_READY '.length)));
      });
    },
  );
  return { child, ...ready, output: () => output };
}

describeWithPnpm('walk-through: a fresh start, the API, the admin page and odp', () => {
  let dataDir: string;
  let started: Started;
  let auth: Record<string, string>;
  const odpEnv = () => ({
    PORT: new URL(started.baseUrl).port,
    ODP_DATA_DIR: dataDir,
    ODP_BASE_URL: started.baseUrl,
  });

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-walkthrough-'));
    started = await pnpmStart(dataDir, await freePort());
    auth = { 'X-API-Key': started.systemKey };
  });

  afterAll(async () => {
    const child = started?.child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      // SIGTERM first: pnpm passes it on to the server; SIGKILL to pnpm alone would orphan the server.
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('pnpm start prints the admin page address with the demo tenant', () => {
    expect(started.output()).toContain(
      `Admin page: ${started.baseUrl}/admin-ui/#/sign-in?tenant=${started.tenantId} (sign in with an API key)`,
    );
  });

  it('the class list and a valid OpenAPI document come from the API itself', async () => {
    const classes = (await (
      await fetch(`${started.baseUrl}/metadata/${started.tenantId}/classes`, { headers: auth })
    ).json()) as { classes: { name: string }[]; _links: { openapi: { href: string } } };
    expect(classes.classes.map((c) => c.name)).toEqual(expect.arrayContaining(['companies', 'persons']));
    const openapi = await fetch(`${started.baseUrl}${classes._links.openapi.href}`, { headers: auth });
    expect(openapi.status).toBe(200);
    expect(await validateOpenApi(await openapi.json())).toEqual(expect.objectContaining({ valid: true }));
  });

  describeWithBrowser('the admin page in headless Chromium', () => {
    let browser: Browser;
    let page: Page;
    const problems: string[] = [];
    let shot = 0;
    const screenshot = async (name: string) => {
      shot += 1;
      await page.screenshot({
        path: path.join(OUTPUT_DIR, `${String(shot).padStart(2, '0')}-${name}.png`),
        fullPage: true,
      });
    };
    /** Waits until `predicate` (run in the page) is true. */
    const until = (predicate: string) => page.waitForFunction(predicate, { timeout: 10_000 });
    const text = (selector: string) => page.$eval(selector, (element) => element.textContent ?? '');
    /** The value of a form control (the suite is typed without the DOM library). */
    type Control = { value: string };
    const valueOf = (selector: string) => page.$eval(selector, (e) => (e as unknown as Control).value);
    const clear = (selector: string) => page.$eval(selector, (e) => ((e as unknown as Control).value = ''));
    const storedSession = () => page.evaluate(`sessionStorage.getItem('odp.admin.session')`);
    /** Waits until the view of the current address is complete (the page marks it on <body>). */
    const settled = () => until(`document.body.dataset.rendered === location.hash`);
    const goto = async (hash: string) => {
      await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
      await settled();
    };
    /** Clicks a link or button that moves to another view and waits for that view. */
    const follow = async (selector: string) => {
      const before = await page.evaluate('location.hash');
      await page.click(selector);
      await until(`location.hash !== ${JSON.stringify(before)}`);
      await settled();
    };
    const api = async (route: string, init: RequestInit = {}) =>
      fetch(`${started.baseUrl}${route}`, { ...init, headers: { ...auth, ...init.headers } });

    beforeAll(async () => {
      rmSync(OUTPUT_DIR, { recursive: true, force: true });
      mkdirSync(OUTPUT_DIR, { recursive: true });
      browser = await launchChromium(chromium ?? '');
      page = await browser.newPage();
      await page.setViewport({ width: 1200, height: 900 });
      page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
      page.on('console', (message) => {
        if (message.type() === 'error')
          problems.push(`console: ${message.text()} (${message.location().url})`);
      });
      page.on('response', (response) => {
        if (response.status() >= 400)
          problems.push(`${response.status()} ${response.request().method()} ${response.url()}`);
      });
    });

    afterAll(async () => {
      await browser?.close();
    });

    it('refuses a wrong key, then signs in with the demo key, which stays out of every URL', async () => {
      const response = await page.goto(`${started.baseUrl}/admin-ui/#/sign-in?tenant=${started.tenantId}`);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
      await page.waitForSelector('form.sign-in');
      expect(await isVisible(page, '#nav')).toBe(false);
      expect(await valueOf('#tenant')).toBe(started.tenantId);
      await page.type('#api-key', 'odp_not-a-key');
      await page.click('#sign-in');
      await until(`document.querySelector('.sign-in .alert') !== null`);
      expect(await text('.sign-in .alert')).toContain('not valid for this tenant');
      problems.length = 0; // the browser logs the refused request (401) as a console error
      await screenshot('sign-in-refused');

      await clear('#api-key');
      await page.type('#api-key', started.systemKey);
      await page.click('#sign-in');
      await page.waitForSelector('#classes');
      expect(await isVisible(page, '#nav')).toBe(true);
      expect(page.url()).not.toContain(started.systemKey);
      expect(JSON.parse(String(await storedSession()))).toEqual({
        tenant: started.tenantId,
        key: started.systemKey,
      });
      await screenshot('classes');
    });

    it('forbids inline script (Content-Security-Policy)', async () => {
      const ran = await page.evaluate(`(async () => {
        const script = document.createElement('script');
        script.textContent = 'window.inlineRan = true';
        document.body.append(script);
        await new Promise((resolve) => setTimeout(resolve, 50));
        return window.inlineRan === true;
      })()`);
      expect(ran).toBe(false);
      problems.length = 0; // Chromium reports the refused inline script on the console, as it should
    });

    it('lists a class, sorts by a column both ways, filters and pages', async () => {
      await follow('a[data-class="companies"]');
      const names = async () =>
        page.$$eval('#rows tbody tr td:first-child', (cells) => cells.map((c) => c.textContent ?? ''));
      const all = [...(await names())];
      expect(all.length).toBeGreaterThanOrEqual(2);

      await follow('a[data-sort="legalName"]');
      expect(await page.evaluate('location.hash')).toBe('#/list/companies?sort=legalName');
      await until(`document.querySelector('#rows th a[data-sort="legalName"]').textContent.includes('▲')`);
      const ascending = await names();
      expect(ascending).toEqual([...all].sort((a, b) => a.localeCompare(b)));
      await follow('a[data-sort="legalName"]');
      await until(`document.querySelector('#rows th a[data-sort="legalName"]').textContent.includes('▼')`);
      expect(await names()).toEqual([...ascending].reverse());
      await screenshot('list-sorted-descending');

      await page.select('#filter-field', 'legalName');
      await page.select('#filter-operator', '_startswith');
      await page.type('#filter-value', 'Acme');
      await follow('#filter-form button[type="submit"]');
      await page.waitForSelector('[data-filter="legalName_startswith"]');
      const filtered = await names();
      expect(filtered.length).toBeGreaterThan(0);
      expect(filtered.every((name) => name.startsWith('Acme'))).toBe(true);
      expect(filtered.length).toBeLessThan(all.length);
      await screenshot('list-filtered');
      await follow('[data-filter="legalName_startswith"] button');
      await until(`document.querySelector('[data-filter]') === null`);

      await goto('#/list/companies?sort=legalName&size=1');
      await until(`document.querySelector('#page-number')?.textContent === 'Page 1'`);
      expect(await names()).toEqual([ascending[0]]);
      await follow('a[data-page="next"]');
      await until(`document.querySelector('#page-number')?.textContent === 'Page 2'`);
      expect(await names()).toEqual([ascending[1]]);
      await screenshot('list-second-page');
      await follow('a[data-page="prev"]');
      await until(`document.querySelector('#page-number')?.textContent === 'Page 1'`);
    });

    let createdId = '';

    it("creates an object: the server's validation errors show under each field, then it is fixed", async () => {
      await goto('#/list/companies');
      await follow('#create');
      await page.type('#field-email', 'not-an-address');
      await page.type('#field-employeeCount', 'many');
      await page.click('#save');
      await until(`document.querySelector('[data-error-for="email"]').textContent !== ''`);
      expect(await text('[data-error-for="email"]')).toBe('must be an e-mail address');
      expect(await text('[data-error-for="employeeCount"]')).toBe('must be an integer');
      expect(await page.$eval('#field-email', (e) => e.getAttribute('aria-invalid'))).toBe('true');
      problems.length = 0; // the refused request (400) is logged by the browser
      await screenshot('create-invalid-values');

      await clear('#field-email');
      await page.type('#field-email', 'hello@walkthrough.example');
      await clear('#field-employeeCount');
      await page.type('#field-employeeCount', '12');
      await page.click('#save');
      await until(`document.querySelector('[data-error-for="legalName"]').textContent !== ''`);
      expect(await text('[data-error-for="legalName"]')).toContain('required');
      expect(await text('[data-error-for="email"]')).toBe('');
      problems.length = 0;
      await screenshot('create-missing-required');

      await page.type('#field-legalName', 'Walkthrough BV');
      await page.focus('#field-employees');
      await page.keyboard.type('Ann');
      await until(`document.querySelector('#field-employees-options [role="option"][id]') !== null`);
      await page.keyboard.press('Enter');
      await until(`document.querySelector('[data-linked="employees"] .chip') !== null`);
      await page.click('#save');
      await until(`location.hash.startsWith('#/object/companies/')`);
      await settled();
      expect(await text('#fields [data-field="legalName"]')).toBe('Walkthrough BV');
      expect(await text('.notice')).toContain('Created');
      createdId = await text('#object-id');
      const stored = await api(`/data/${started.tenantId}/companies/${createdId}`);
      expect(stored.status).toBe(200);
      expect(await stored.json()).toEqual(
        expect.objectContaining({
          legalName: 'Walkthrough BV',
          email: 'hello@walkthrough.example',
          employeeCount: 12,
        }),
      );
      await screenshot('created');
    });

    it('edits the object', async () => {
      await follow('#edit');
      await clear('#field-employeeCount');
      await page.type('#field-employeeCount', '13');
      await page.click('#save');
      await until(`document.querySelector('#fields [data-field="employeeCount"]')?.textContent === '13'`);
      await settled();
      const stored = (await (await api(`/data/${started.tenantId}/companies/${createdId}`)).json()) as Record<
        string,
        unknown
      >;
      expect(stored['employeeCount']).toBe(13);
      expect(stored['legalName']).toBe('Walkthrough BV');
      await screenshot('edited');
    });

    it('follows a relation to the related object and back', async () => {
      const name = await text('a[data-relation="employees"]');
      await follow('a[data-relation="employees"]');
      await until(
        `location.hash.startsWith('#/object/persons/') && document.querySelector('h1 .kind')?.textContent === 'Persons'`,
      );
      expect(
        await page.$$eval('#fields dd', (cells) => cells.map((c) => c.textContent ?? '').join(' ')),
      ).toContain(name.split(' ')[0]);
      await screenshot('related-person');
      await page.goBack();
      await until(`document.querySelector('#object-id')?.textContent === '${createdId}'`);
      await settled();

      // The related list of the relation: the one employee linked on create.
      await follow('a[data-related-list="employees"]');
      expect(await page.$$eval('#rows tbody tr', (rows) => rows.length)).toBe(1);
      expect(await text('#rows tbody tr td:first-child')).toBe(name.split(' ')[0]);
      await screenshot('related-list');
      await page.goBack();
      await until(`document.querySelector('#object-id')?.textContent === '${createdId}'`);
      await settled();
    });

    it('shows who can see the object (audit)', async () => {
      await follow('#audit');
      const report = (await (
        await api(`/audit/${started.tenantId}/companies/${createdId}/access`)
      ).json()) as { grants: { definition: string }[] };
      expect(report.grants.length).toBeGreaterThan(0);
      const shown = await page.$$eval('#audit-grants tbody tr td:first-child', (cells) =>
        cells.map((c) => c.textContent),
      );
      expect(shown).toEqual(report.grants.map((g) => g.definition));
      await screenshot('audit');
    });

    it('shows the model status and runs a rebuild to the end', async () => {
      await goto('#/model');
      expect(await text('#model-state')).toBe('LOADED');
      await page.click('#start-rebuild');
      await until(`document.querySelector('#rebuild-state')?.textContent === 'done'`);
      expect(Number(await text('#rebuild-processed'))).toBeGreaterThan(0);
      await screenshot('model-and-rebuild');
    });

    it('deletes the object after a confirmation', async () => {
      await goto(`#/object/companies/${createdId}`);
      expect(await isVisible(page, '#confirm-delete')).toBe(false);
      await page.click('#delete');
      await page.waitForSelector('#confirm-delete', { visible: true });
      expect(await isVisible(page, '#delete')).toBe(false);
      await page.click('#confirm-delete');
      await until(`location.hash === '#/list/companies' && document.querySelector('.notice') !== null`);
      expect(await text('.notice')).toContain('Deleted');
      expect((await api(`/data/${started.tenantId}/companies/${createdId}`)).status).toBe(404);
      await screenshot('deleted');
    });

    it('signs out: the key leaves the session', async () => {
      await page.click('#sign-out');
      await page.waitForSelector('form.sign-in');
      expect(await isVisible(page, '#nav')).toBe(false);
      expect(await storedSession()).toBeNull();
      expect(problems).toEqual([]);
    });
  });

  /** Runs the real executable, as a newcomer types it. */
  it('odp: the same configuration as the server, one JSON object with --json', async () => {
    const env = odpEnv();
    const tenants = await runOdpProcess(env, ['tenant', 'list', '--json']);
    expect(tenants.code).toBe(0);
    expect(JSON.parse(tenants.stdout)).toEqual({
      tenants: [expect.objectContaining({ id: started.tenantId, name: 'Demo CRM' })],
    });
    const keys = await runOdpProcess(env, ['key', 'list', '--tenant', started.tenantId, '--json']);
    expect(JSON.parse(keys.stdout)).toEqual({
      tenant: started.tenantId,
      keys: [expect.objectContaining({ profileId: null, state: 'valid' })],
    });
    const profiles = await runOdpProcess(env, ['profile', 'list', '--tenant', started.tenantId, '--json']);
    expect(JSON.parse(profiles.stdout)).toEqual({ tenant: started.tenantId, profiles: [] });
    const loaded = await runOdpProcess(env, [
      'data',
      'load-defaults',
      '--tenant',
      started.tenantId,
      '--json',
    ]);
    expect(JSON.parse(loaded.stdout)).toEqual({ tenant: started.tenantId, requested: true });
    const help = await runOdpProcess(env, ['help', '--json']);
    expect((JSON.parse(help.stdout) as { commands: unknown[] }).commands).toContainEqual({
      command: 'data load-defaults',
      usage: 'odp data load-defaults --tenant ID',
    });
  }, 120_000); // five runs of the real executable, each compiling TypeScript at start

  it('Ctrl-C (SIGINT to pnpm) stops the server', async () => {
    const exited = new Promise((resolve) => started.child.once('exit', resolve));
    started.child.kill('SIGINT');
    await exited;
    // The server is gone once its port refuses connections; an orphan would still answer.
    const deadline = Date.now() + 10_000;
    let answered = true;
    while (answered && Date.now() < deadline) {
      answered = await fetch(`${started.baseUrl}/health`).then(
        () => true,
        () => false,
      );
      if (answered) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(answered).toBe(false);
  });
});
