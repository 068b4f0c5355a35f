/**
 * The web console's main flow in a real headless Firefox (Debian's firefox-esr through WebDriver BiDi) against a
 * real server: sign in with a pasted token, walk the workspace tree and go into a workspace, a resource list from
 * discovery as the server's Table, live through a streamed watch, and the editor: a bad ConfigMap refused with the
 * server's error at its line, a good one created with server-side apply. The page must raise no script error and
 * reach nothing beyond loopback. The full suite (console.test.ts) runs in Chromium; this one proves the same app
 * works in Firefox's engine (Gecko, SpiderMonkey, its fetch streams and textarea).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'puppeteer-core';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { waitForWorkspace } from '../helpers/workspaces.js';
import { launchFirefox, newFirefoxPage, type PageTrouble } from '../helpers/firefox.js';

// What the functions run in the page use (this project compiles without the DOM library).
declare const document: any, location: any;

const ADMIN = 'firefox-admin-token';

describe('web console in Firefox', { timeout: 120_000 }, () => {
  let ts: TestServer;
  let browser: Browser;
  let page: Page;
  let trouble: PageTrouble;

  const ok = async (method: string, path: string, body?: unknown) => {
    const r = await ts.request(method, path, body);
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
    return r.json;
  };
  const text = (selector: string) => page.$eval(selector, (el: any) => el.innerText as string);
  /** Waits until the element's text matches (its text is in the failure message). */
  const waitForText = async (selector: string, re: RegExp, timeout = 10_000) => {
    try {
      await page.waitForFunction((s: string, src: string) => new RegExp(src).test(document.querySelector(s)?.innerText ?? ''), { timeout }, selector, re.source);
    } catch (err) {
      const now = await page.$eval(selector, (el: any) => el.innerText as string).catch(() => '(no such element)');
      throw new Error(`${selector} did not come to match ${re}: ${now}`, { cause: err });
    }
  };
  const waitForHash = (hash: string) => page.waitForFunction((h: string) => location.hash === h, { timeout: 10_000 }, hash);
  /** Replaces the editor's text by typing it, as a user would (Firefox's own textarea and input events). */
  const typeYaml = async (yaml: string) => {
    const editor = '[data-testid=yaml-editor]';
    await page.$eval(editor, (el: any) => {
      el.focus();
      el.select();
    });
    await page.keyboard.press('Backspace');
    await page.keyboard.type(yaml);
    assert.equal(await page.$eval(editor, (el: any) => el.value as string), yaml);
  };

  before(async () => {
    ts = await startTestServer({ tokens: [`${ADMIN},admin-user,admin-uid,"system:masters"`] });
    for (const [parent, name] of [['root', 'org-a'], ['root:org-a', 'team-1']] as const) {
      await ok('POST', `/clusters/${parent}/apis/tenancy.kcp.io/v1alpha1/workspaces`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } });
      await waitForWorkspace(ts, parent, name);
    }
    await ok('POST', '/clusters/root:org-a/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '1', b: '2' } });
    browser = await launchFirefox();
    ({ page, trouble } = await newFirefoxPage(browser));
  });

  after(async () => {
    await browser?.close();
    await ts?.stop();
  });

  it('runs in Firefox', async () => {
    assert.match(await browser.version(), /^firefox\//);
    assert.match(await page.evaluate(() => (globalThis as any).navigator.userAgent as string), /Gecko\/\d+ Firefox\//);
  });

  it('refuses a wrong token and signs in with a pasted one', async () => {
    await page.goto(`${ts.url}/console/`);
    await page.type('#token', 'not-a-token');
    await page.click('button[type=submit]');
    await waitForText('[data-testid=signin-error]', /401/);
    await page.$eval('#token', (el: any) => el.select());
    await page.keyboard.press('Backspace');
    await page.type('#token', ADMIN);
    await page.click('button[type=submit]');
    await waitForText('[data-testid=user]', /^admin-user$/);
    assert.equal(new URL(page.url()).hash, '#/ws/root');
  });

  it('walks the workspace tree and goes into a workspace and back through the breadcrumbs', async () => {
    const orgA = '[data-testid="ws-root:org-a"]';
    await waitForText(orgA, /org-a[\s\S]*root:organization[\s\S]*Ready/);
    await page.click(`${orgA} button[aria-label="Expand org-a"]`);
    const team1 = '[data-testid="ws-root:org-a:team-1"]';
    await waitForText(team1, /team-1[\s\S]*universal[\s\S]*Ready/);
    await page.click(`${team1} a`);
    await waitForHash('#/ws/root:org-a:team-1');
    await waitForText('[data-testid=breadcrumbs]', /^root\s*:\s*org-a\s*:\s*team-1$/);
    await page.click('[data-testid=breadcrumbs] a[href="#/ws/root:org-a"]');
    await waitForHash('#/ws/root:org-a');
  });

  it('lists ConfigMaps from discovery with the columns kubectl prints, live through the watch', async () => {
    const link = '[data-testid=resource-nav] a[href="#/ws/root:org-a/r/core/v1/configmaps"]';
    await page.waitForSelector(link);
    assert.equal(await text(link), 'ConfigMap');
    await page.click(link);
    const table = '[data-testid=resource-table]';
    await waitForText(`${table} [data-testid="row-default/settings"]`, /default\s+settings\s+2\s+\d+s/);
    const headers = await page.$$eval(`${table} [role=columnheader]`, (els: any[]) => els.map((e) => e.innerText as string));
    assert.deepEqual(headers, ['NAMESPACE', 'NAME', 'DATA', 'AGE']);
    // A change made elsewhere reaches the list through the streamed watch (fetch + TextDecoderStream in Firefox).
    await ok('POST', '/clusters/root:org-a/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'arrived-live' }, data: { x: 'y' } });
    await page.waitForSelector(`${table} [data-testid="row-default/arrived-live"]`, { timeout: 5000 });
    await ok('DELETE', '/clusters/root:org-a/api/v1/namespaces/default/configmaps/arrived-live');
    await page.waitForSelector(`${table} [data-testid="row-default/arrived-live"]`, { hidden: true, timeout: 5000 });
  });

  it('refuses a bad ConfigMap in the editor with the error at its line, and creates a good one', async () => {
    await page.click('a[href="#/ws/root:org-a/new"]');
    await page.waitForSelector('[data-testid=yaml-editor]');
    await typeYaml('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Not_A_Name\n  namespace: default\ndata:\n  k: v\n');
    await page.click('[data-testid=apply]');
    await waitForText('[data-testid=apply-error]', /ConfigMap "Not_A_Name" is invalid/);
    assert.match(await text('[data-testid=apply-error]'), /line 4\s+metadata\.name/);
    // The line button puts the caret on that line of the textarea.
    await page.click('[data-testid=problem-line]');
    const caret = await page.$eval('[data-testid=yaml-editor]', (el: any) => ({ focused: document.activeElement === el, line: el.value.slice(0, el.selectionStart).split('\n').length }));
    assert.deepEqual(caret, { focused: true, line: 4 });

    await typeYaml('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-firefox\n  namespace: default\ndata:\n  greeting: hello\n');
    await page.click('[data-testid=apply]');
    await waitForHash('#/ws/root:org-a/o/core/v1/configmaps/default/from-firefox');
    await waitForText('[data-testid=object-yaml]', /greeting: hello/);
    assert.doesNotMatch(await text('[data-testid=object-yaml]'), /managedFields/);
    const stored = await ok('GET', '/clusters/root:org-a/api/v1/namespaces/default/configmaps/from-firefox');
    assert.equal(stored.data.greeting, 'hello');
    assert.equal(stored.metadata.managedFields[0].manager, 'atrium-console');
    assert.equal(stored.metadata.managedFields[0].operation, 'Apply');
  });

  it('raised no script error and reached nothing beyond loopback', async () => {
    assert.deepEqual(trouble.errors, []);
    assert.deepEqual(trouble.outside, []);
    assert.ok(trouble.requests > 10, `the request listener saw ${trouble.requests} requests`);
    // The error listener works: an uncaught error in the page is seen.
    await page.evaluate(() => void setTimeout(() => {
      throw new Error('planted by the test');
    }));
    const seen: string[] = trouble.errors;
    for (let i = 0; i < 50 && !seen.some((e) => e.includes('planted by the test')); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(seen.some((e) => e.includes('planted by the test')), `not seen: ${JSON.stringify(seen)}`);
  });
});
