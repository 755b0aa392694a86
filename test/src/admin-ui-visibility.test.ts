/**
 * What a person sees on the admin page (docs/admin-ui.md), checked as rendered in headless Chromium,
 * not as attributes: a control marked `hidden` is off screen whatever the stylesheet gives its
 * element. Signed out, the navigation is not shown; on an object, "Delete permanently" shows only
 * after "Delete" was clicked, and a viewer gets neither an enabled Delete nor the confirmation.
 */
import type { Browser, Page } from 'puppeteer-core';
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi } from './data-api.js';
import { createAccount } from './support/accounts.js';
import { chromiumBinary, isVisible, launchChromium } from './support/browser.js';

const chromium = chromiumBinary();
if (chromium === null) {
  process.stderr.write(
    'skipped: admin page visibility: no Chromium found (run tooling/browser/install.sh or set ODP_TEST_CHROMIUM)\n',
  );
}
const describeWithBrowser = chromium === null ? describe.skip : describe;

describeWithBrowser('the admin page shows no hidden control', () => {
  let api: DataApi;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    api = await startDataServer();
    browser = await launchChromium(chromium ?? '');
    page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 900 });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await api?.server.stop();
  });

  /** Signs in with `key` from a signed-out page and opens the demo company Acme. */
  async function openAcmeAs(key: string): Promise<void> {
    await page.goto(`${api.server.baseUrl}/admin-ui/#/sign-in?tenant=${api.tenant}`);
    await page.waitForSelector('form.sign-in');
    await page.type('#api-key', key);
    await page.click('#sign-in');
    await page.waitForSelector('#classes');
    await page.evaluate(`location.hash = '#/object/companies/${DEMO.acme}'`);
    await page.waitForFunction(`document.querySelector('#object-id')?.textContent === '${DEMO.acme}'`);
  }

  async function signOut(): Promise<void> {
    await page.click('#sign-out');
    await page.waitForSelector('form.sign-in');
  }

  it('signed out: the sign-in form, no navigation', async () => {
    await page.goto(`${api.server.baseUrl}/admin-ui/#/sign-in?tenant=${api.tenant}`);
    await page.waitForSelector('form.sign-in');
    expect(await isVisible(page, 'form.sign-in')).toBe(true);
    expect(await isVisible(page, '#nav')).toBe(false);
  });

  it('an admin sees Delete, and "Delete permanently" only after clicking it', async () => {
    await openAcmeAs(api.systemKey);
    expect(await isVisible(page, '#nav')).toBe(true);
    expect(await isVisible(page, '#delete')).toBe(true);
    expect(await isVisible(page, '#confirm-delete')).toBe(false);
    await page.click('#delete');
    expect(await isVisible(page, '#confirm-delete')).toBe(true);
    expect(await isVisible(page, '#delete')).toBe(false);
    await signOut();
    expect(await isVisible(page, '#nav')).toBe(false);
  });

  it('a viewer sees no "Delete permanently", and Delete is disabled', async () => {
    // Ann works at Acme, so her viewer profile reads it (the example model's companyTeam).
    const viewer = await createAccount(api, { name: 'vera', role: 'viewer', objectId: DEMO.ann });
    await openAcmeAs(viewer.key);
    expect(await isVisible(page, '#confirm-delete')).toBe(false);
    const deleteDisabled = await page.$eval(
      '#delete',
      (e) => (e as unknown as { disabled: boolean }).disabled,
    );
    expect(deleteDisabled).toBe(true);
    await signOut();
  }, 120_000); // two runs of the real `odp` executable create the viewer and its key
});
