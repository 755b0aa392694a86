/**
 * The admin page in headless Chromium against a test server, as the admin page suites drive it:
 * hash navigation that waits for the view to be complete (`data-rendered`), the text a person sees
 * (`innerText`), screenshots to the test output (and, with `UPDATE_DOCS_IMAGES=1`, to
 * `docs/images/` for the docs page), axe-core's serious and critical violations (injected through
 * the DevTools protocol, so the page's CSP stays as served), sign-in with a key, and every 4xx/5xx
 * response and page error the browser saw.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import type { DataApi } from '../data-api.js';
import { launchChromium } from './browser.js';
import { REPO_ROOT } from './server.js';

const DOCS_IMAGES = process.env['UPDATE_DOCS_IMAGES'] === '1' ? path.join(REPO_ROOT, 'docs', 'images') : null;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export class AdminUiPage {
  /** Page errors and 4xx/5xx responses, as "status METHOD url". */
  readonly problems: string[] = [];

  private constructor(
    readonly browser: Browser,
    readonly page: Page,
    private readonly api: DataApi,
    private readonly outputDir: string,
  ) {}

  /** Chromium with one 1200 × 900 page; screenshots go to `<test output>/<outputName>/` (emptied). */
  static async open(chromium: string, api: DataApi, outputName: string): Promise<AdminUiPage> {
    const outputDir = path.join(
      process.env['ODP_TEST_OUTPUT_DIR'] ?? path.join(REPO_ROOT, 'test-output'),
      outputName,
    );
    rmSync(outputDir, { recursive: true, force: true });
    mkdirSync(outputDir, { recursive: true });
    const browser = await launchChromium(chromium);
    const page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 900 });
    const ui = new AdminUiPage(browser, page, api, outputDir);
    page.on('pageerror', (error) => ui.problems.push(`page error: ${String(error)}`));
    page.on('response', (response) => {
      if (response.status() >= 400)
        ui.problems.push(`${response.status()} ${response.request().method()} ${response.url()}`);
    });
    return ui;
  }

  close(): Promise<void> {
    return this.browser.close();
  }

  until(predicate: string): Promise<unknown> {
    return this.page.waitForFunction(predicate, { timeout: 10_000 });
  }

  /** Waits for the view of the current hash to be complete. */
  settled(): Promise<unknown> {
    return this.until(`document.body.dataset.rendered === location.hash`);
  }

  async goto(hash: string): Promise<void> {
    await this.page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
    await this.settled();
  }

  text(selector: string): Promise<string> {
    return this.page.$eval(selector, (e) => (e as unknown as { innerText: string }).innerText);
  }

  texts(selector: string): Promise<string[]> {
    return this.page.$$eval(selector, (list) =>
      list.map((e) => (e as unknown as { innerText: string }).innerText),
    );
  }

  /** The whole page, or with `fullPage` false what the window shows (for very long views). */
  async screenshot(name: string, docs = false, fullPage = true): Promise<void> {
    const shot = await this.page.screenshot({ fullPage });
    writeFileSync(path.join(this.outputDir, `${name}.png`), shot);
    if (docs && DOCS_IMAGES !== null) writeFileSync(path.join(DOCS_IMAGES, `admin-ui-${name}.png`), shot);
  }

  /** axe-core over the current view: violations of impact serious or critical, as "id: target". */
  async axeViolations(): Promise<string[]> {
    await this.page.evaluate(AXE_SOURCE);
    return (await this.page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) =>
      r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`)) as string[];
  }

  /** Signs in on the sign-in view with `key` and waits for the class list. */
  async signIn(key: string): Promise<void> {
    await this.page.goto(`${this.api.server.baseUrl}/admin-ui/#/sign-in?tenant=${this.api.tenant}`);
    await this.page.waitForSelector('form.sign-in');
    await this.page.type('#api-key', key);
    await this.page.click('#sign-in');
    await this.page.waitForSelector('#classes');
  }

  /** Signs out with the header's button, then in again with `key`. */
  async switchTo(key: string): Promise<void> {
    await this.page.click('#sign-out');
    await this.signIn(key);
  }
}
