/**
 * A real headless Firefox for the console's Firefox test: Debian's firefox-esr (/usr/bin/firefox-esr, or
 * $FIREFOX_PATH), driven by puppeteer-core over WebDriver BiDi (playwright-core drives only its own patched Firefox
 * build, which would be a download). puppeteer-core downloads no browser of its own. A missing Firefox fails the
 * suite loudly (CI installs it in .ci/run); nothing is skipped. The server's certificate is signed by atrium's own
 * CA, so the browser accepts it (a user trusts <root-dir>/pki/ca.crt instead).
 */
import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

export const firefoxPath = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

export async function launchFirefox(): Promise<Browser> {
  if (!existsSync(firefoxPath)) {
    throw new Error(`Firefox is required for the console's Firefox test and is not at ${firefoxPath}: install Debian's package (apt-get install -y firefox-esr) or set FIREFOX_PATH`);
  }
  return puppeteer.launch({ browser: 'firefox', protocol: 'webDriverBiDi', executablePath: firefoxPath, headless: true, acceptInsecureCerts: true });
}

/** What the page did that a working console never does: script errors, and requests beyond loopback. */
export interface PageTrouble {
  errors: string[];
  outside: string[];
  /** Every request the page made (so a test sees that the listeners work at all). */
  requests: number;
}

export async function newFirefoxPage(browser: Browser, viewport = { width: 1280, height: 800 }): Promise<{ page: Page; trouble: PageTrouble }> {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  const trouble: PageTrouble = { errors: [], outside: [], requests: 0 };
  page.on('pageerror', (err) => trouble.errors.push(String((err as Error).stack ?? err)));
  page.on('console', (m) => {
    if (m.type() === 'error') trouble.errors.push(`console: ${m.text()}`);
  });
  page.on('request', (r) => {
    trouble.requests++;
    if (!/^(https:\/\/(127\.0\.0\.1|localhost)[:/]|data:|about:)/.test(r.url())) trouble.outside.push(r.url());
  });
  return { page, trouble };
}
