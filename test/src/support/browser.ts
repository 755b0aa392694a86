/**
 * Headless Chromium for the admin page suites (puppeteer-core; npm downloads no browser): the binary
 * from `$ODP_TEST_CHROMIUM` or the PATH (`tooling/browser/install.sh` installs it from Debian).
 */
import { spawnSync } from 'node:child_process';
import puppeteer from 'puppeteer-core';
import type { Browser, Page } from 'puppeteer-core';

/** The Chromium binary: `$ODP_TEST_CHROMIUM`, else the first Chromium or Chrome on the PATH; null when none. */
export function chromiumBinary(): string | null {
  const configured = process.env['ODP_TEST_CHROMIUM'];
  if (configured !== undefined && configured !== '') return configured;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim() !== '') return found.stdout.trim();
  }
  return null;
}

/** Starts headless Chromium as the suites run it. */
export function launchChromium(executablePath: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

/**
 * Whether a person sees `selector` on the page: it exists, is rendered (no `display: none` on it or
 * an ancestor, whatever the `hidden` attribute says) and takes up space.
 */
export function isVisible(page: Page, selector: string): Promise<boolean> {
  return page.evaluate(`(() => {
    const element = document.querySelector(${JSON.stringify(selector)});
    return element !== null && element.checkVisibility() && element.getClientRects().length > 0;
  })()`) as Promise<boolean>;
}
