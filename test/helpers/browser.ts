/**
 * A real headless Chromium for the console's browser tests: Debian's package (/usr/bin/chromium, or $CHROMIUM_PATH),
 * driven by playwright-core, which downloads no browser of its own. A missing Chromium fails the suite loudly (CI
 * installs it in .ci/run); nothing is skipped. The server's certificate is signed by atrium's own CA, so the
 * browser contexts ignore HTTPS errors (a user trusts <root-dir>/pki/ca.crt instead).
 *
 * Screenshots for the README go to docs/console/<name>.png (taken by the same tests, at 1280×800 unless a viewport
 * is given).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`Chromium is required for the console's browser tests and is not at ${chromiumPath}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH`);
  }
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

export async function newConsolePage(browser: Browser, viewport = { width: 1280, height: 800 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport, reducedMotion: 'reduce' });
  const page = await context.newPage();
  // No request may leave loopback: the console bundles everything it shows.
  const outside: string[] = [];
  await page.route(/^(?!https:\/\/(127\.0\.0\.1|localhost)[:/])/, (route) => {
    outside.push(route.request().url());
    return route.abort();
  });
  (page as Page & { outsideRequests?: string[] }).outsideRequests = outside;
  return { context, page };
}

/** URLs the page tried to reach beyond loopback (aborted). */
export const outsideRequests = (page: Page): string[] => (page as Page & { outsideRequests?: string[] }).outsideRequests ?? [];

export const screenshotDir = join(process.cwd(), 'docs', 'console');

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`) });
}
