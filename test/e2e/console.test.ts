/**
 * The web console in a real headless Chromium against a real server: served under /console/ without credentials
 * (the files only), sign-in with a pasted token and with `kubectl atrium console --url`, the workspace tree (walk,
 * create, delete, go into), resources from discovery as the server's Tables, live, an object's YAML with
 * managedFields folded, its Events, create and edit through the editor with server-side apply and the server's
 * validation errors beside their lines, a view-only user who cannot see another workspace nor edit, keyboard use
 * and a phone-width layout. Screenshots for the README: docs/console/*.png.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, writeTokenKubeconfig, type TestServer } from '../helpers/harness.js';
import { waitForWorkspace } from '../helpers/workspaces.js';
import { kubectlAtrium } from '../helpers/processes.js';
import { launchChromium, newConsolePage, outsideRequests, screenshot } from '../helpers/browser.js';

// What the functions run in the page use (this project compiles without the DOM library).
declare const document: any, location: any;
type HTMLButtonElement = any;

const ADMIN = 'console-admin-token';
const VIEWER = 'console-viewer-token';

describe('web console', { timeout: 300_000 }, () => {
  let ts: TestServer;
  let browser: Browser;
  let page: Page;
  let dir: string;

  const ok = async (method: string, path: string, body?: unknown) => {
    const r = await ts.request(method, path, body);
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
    return r.json;
  };
  const signInByForm = async (p: Page, token: string, ws = 'root') => {
    await p.goto(`${ts.url}/console/`);
    await p.fill('#token', token);
    await p.fill('#ws', ws);
    await p.click('button[type=submit]');
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'atrium-console-'));
    ts = await startTestServer({ tokens: [`${ADMIN},admin-user,admin-uid,"system:masters"`, `${VIEWER},viewer,viewer-uid`] });
    for (const [parent, name] of [['root', 'org-a'], ['root', 'team-b'], ['root:org-a', 'team-1']] as const) {
      await ok('POST', `/clusters/${parent}/apis/tenancy.kcp.io/v1alpha1/workspaces`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } });
      await waitForWorkspace(ts, parent, name);
    }
    // The viewer may enter root:org-a and read there (the `view` role), nothing else anywhere.
    for (const [name, role] of [['viewer-access', 'system:kcp:workspace:access'], ['viewer-view', 'view']]) {
      await ok('POST', '/clusters/root:org-a/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'viewer' }],
      });
    }
    await ok('POST', '/clusters/root:org-a/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '1', b: '2' } });
    browser = await launchChromium();
    ({ page } = await newConsolePage(browser));
  });

  after(async () => {
    await browser?.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves the app under /console/ without credentials, and nothing else without them', async () => {
    const index = await page.goto(`${ts.url}/console/`);
    assert.equal(index?.status(), 200);
    assert.match(index!.headers()['content-security-policy'] ?? '', /default-src 'self'/);
    const asset = await page.evaluate(async () => {
      const script = document.querySelector('script[type=module]')!.getAttribute('src')!;
      const r = await fetch(script);
      return { status: r.status, type: r.headers.get('content-type'), cache: r.headers.get('cache-control') };
    });
    assert.deepEqual(asset, { status: 200, type: 'text/javascript; charset=utf-8', cache: 'public, max-age=31536000, immutable' });
    const api = await page.evaluate(async () => (await fetch('/api/v1/namespaces')).status);
    assert.equal(api, 401, 'the API itself still needs credentials');
    const post = await page.evaluate(async () => (await fetch('/console/', { method: 'POST' })).status);
    assert.equal(post, 405);
  });

  it('refuses a wrong token and signs in with a pasted one', async () => {
    await signInByForm(page, 'not-a-token');
    await page.getByTestId('signin-error').waitFor();
    assert.match(await page.getByTestId('signin-error').innerText(), /401/);
    await screenshot(page, 'sign-in');
    await page.fill('#token', ADMIN);
    await page.click('button[type=submit]');
    await page.getByTestId('user').waitFor();
    assert.equal(await page.getByTestId('user').innerText(), 'admin-user');
    assert.match(page.url(), /#\/ws\/root$/);
  });

  it('kubectl atrium console --url signs in with the current context and leaves no token in the address bar', async () => {
    const kubeconfig = writeTokenKubeconfig(ts, dir, 'ctx', ADMIN);
    const r = await kubectlAtrium(kubeconfig, ['console', '--url']);
    assert.equal(r.code, 0, r.stderr);
    const url = r.stdout.trim();
    assert.equal(url, `${ts.url}/console/#token=${ADMIN}&ws=root`);
    const { context, page: p } = await newConsolePage(browser);
    await p.goto(url);
    await p.getByTestId('user').waitFor();
    assert.equal(await p.getByTestId('user').innerText(), 'admin-user');
    assert.ok(!p.url().includes(ADMIN), `the token left the address bar: ${p.url()}`);
    await context.close();
    // A certificate-only context has no token to hand over: said so, exit 1.
    const certOnly = await kubectlAtrium(ts.kubeconfig, ['console', '--url']);
    assert.equal(certOnly.code, 0, 'the admin kubeconfig carries a token too');
  });

  it('walks the workspace tree with types and phases, goes into a workspace, creates and deletes one', async () => {
    await page.goto(`${ts.url}/console/#/ws/root`);
    const orgA = page.getByTestId('ws-root:org-a');
    await orgA.waitFor();
    assert.match(await orgA.innerText(), /org-a[\s\S]*root:organization[\s\S]*Ready/);
    await orgA.getByRole('button', { name: 'Expand org-a' }).click();
    const team1 = page.getByTestId('ws-root:org-a:team-1');
    await team1.waitFor();
    assert.match(await team1.innerText(), /team-1[\s\S]*universal[\s\S]*Ready/);
    await screenshot(page, 'workspaces');
    await team1.getByRole('link', { name: 'team-1' }).click();
    await page.waitForFunction(() => location.hash === '#/ws/root:org-a:team-1');
    assert.equal((await page.getByTestId('breadcrumbs').innerText()).replace(/\s/g, ''), 'root:org-a:team-1');
    // Up one level through the breadcrumbs, then create a child workspace there and delete it.
    await page.getByTestId('breadcrumbs').getByRole('link', { name: 'org-a' }).click();
    await page.fill('#new-ws', 'made-here');
    await page.click('form[aria-label="Create a workspace"] button[type=submit]');
    const made = page.getByTestId('ws-root:org-a:made-here');
    await made.waitFor();
    await page.waitForFunction(() => /Ready/.test(document.querySelector('[data-testid="ws-root:org-a:made-here"]')?.textContent ?? ''), undefined, { timeout: 30_000 });
    const stored = await ts.request('GET', '/clusters/root:org-a/apis/tenancy.kcp.io/v1alpha1/workspaces/made-here');
    assert.equal(stored.status, 200);
    page.once('dialog', (d) => void d.accept());
    await made.getByRole('button', { name: 'Delete workspace made-here' }).click();
    await made.waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal((await ts.request('GET', '/clusters/root:org-a/apis/tenancy.kcp.io/v1alpha1/workspaces/made-here')).status, 404);
    // A bad name is the server's error, shown as such.
    await page.fill('#new-ws', 'Bad_Name');
    await page.click('form[aria-label="Create a workspace"] button[type=submit]');
    await page.getByTestId('error').waitFor();
    assert.match(await page.getByTestId('error').innerText(), /Bad_Name/);
  });

  it('lists every served resource from discovery and ConfigMaps with the columns kubectl prints, live', async () => {
    await page.goto(`${ts.url}/console/#/ws/root:org-a`);
    const nav = page.getByTestId('resource-nav');
    for (const kind of ['ConfigMap', 'Namespace', 'ClusterRole', 'Workspace', 'CustomResourceDefinition']) await nav.getByRole('link', { name: kind, exact: true }).waitFor();
    await nav.getByRole('link', { name: 'ConfigMap', exact: true }).click();
    const table = page.getByTestId('resource-table');
    await table.getByTestId('row-default/settings').waitFor();
    const headers = await table.getByRole('columnheader').allInnerTexts();
    assert.deepEqual(headers, ['NAMESPACE', 'NAME', 'DATA', 'AGE']);
    assert.match(await table.getByTestId('row-default/settings').innerText(), /default\s+settings\s+2\s+\d+s/);
    // A change made elsewhere reaches the list through the watch.
    await ok('POST', '/clusters/root:org-a/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'arrived-live' }, data: { x: 'y' } });
    await table.getByTestId('row-default/arrived-live').waitFor({ timeout: 5000 });
    await ok('DELETE', '/clusters/root:org-a/api/v1/namespaces/default/configmaps/arrived-live');
    await table.getByTestId('row-default/arrived-live').waitFor({ state: 'detached', timeout: 5000 });
    await screenshot(page, 'resources');
  });

  it('creates a ConfigMap through the editor, refuses a bad one with the error at its line, edits with server-side apply', async () => {
    await page.goto(`${ts.url}/console/#/ws/root:org-a/new`);
    const editor = page.getByTestId('yaml-editor');
    await editor.fill('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Not_A_Name\n  namespace: default\ndata:\n  k: v\n');
    await page.getByTestId('apply').click();
    const problem = page.getByTestId('apply-error');
    await problem.waitFor();
    const text = await problem.innerText();
    assert.match(text, /ConfigMap "Not_A_Name" is invalid/);
    assert.match(text, /line 4\s+metadata\.name/);
    await screenshot(page, 'editor-validation-error');
    // Strict field validation: an unknown field is refused and pointed at.
    await editor.fill('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n  namespace: default\nbogus: 1\n');
    await page.getByTestId('apply').click();
    await page.waitForFunction(() => /unknown field/.test(document.querySelector('[data-testid=apply-error]')?.textContent ?? ''));
    assert.match(await problem.innerText(), /line 6\s+bogus/);

    await editor.fill('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-console\n  namespace: default\ndata:\n  greeting: hello\n');
    await page.getByTestId('apply').click();
    await page.waitForFunction(() => location.hash === '#/ws/root:org-a/o/core/v1/configmaps/default/from-console');
    const yaml = page.getByTestId('object-yaml');
    await yaml.waitFor();
    assert.match(await yaml.innerText(), /greeting: hello/);
    assert.doesNotMatch(await yaml.innerText(), /managedFields/);
    const stored = await ok('GET', '/clusters/root:org-a/api/v1/namespaces/default/configmaps/from-console');
    assert.equal(stored.metadata.managedFields[0].manager, 'atrium-console');
    assert.equal(stored.metadata.managedFields[0].operation, 'Apply');
    await page.getByRole('button', { name: 'Show managedFields (1)' }).click();
    assert.match(await yaml.innerText(), /manager: atrium-console/);
    await page.getByRole('button', { name: 'Fold managedFields' }).click();

    // The object's Events, live.
    await ok('POST', '/clusters/root:org-a/api/v1/namespaces/default/events', {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'from-console.1' }, type: 'Warning', reason: 'Checked', message: 'looked at by a test',
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'from-console', uid: stored.metadata.uid },
      source: { component: 'console-test' }, firstTimestamp: new Date().toISOString(), lastTimestamp: new Date().toISOString(), count: 1,
    });
    await page.getByTestId('events').waitFor({ timeout: 5000 });
    assert.match(await page.getByTestId('events').innerText(), /Warning\s+Checked\s+\S+\s+console-test\s+looked at by a test/);
    await screenshot(page, 'object');

    // Edit: server-side apply of the changed YAML; the view follows the stored object.
    await page.getByRole('button', { name: 'Edit' }).click();
    const current = await editor.inputValue();
    assert.doesNotMatch(current, /managedFields|resourceVersion|uid:/);
    await editor.fill(current.replace('greeting: hello', 'greeting: hello\n  added: later'));
    await page.getByTestId('apply').click();
    await page.waitForFunction(() => /added: later/.test(document.querySelector('[data-testid=object-yaml]')?.textContent ?? ''));
    const after = await ok('GET', '/clusters/root:org-a/api/v1/namespaces/default/configmaps/from-console');
    assert.deepEqual(after.data, { greeting: 'hello', added: 'later' });
  });

  it('is keyboard navigable: the list is one tab stop, arrows move, Enter opens', async () => {
    await page.goto(`${ts.url}/console/#/ws/root:org-a/r/core/v1/configmaps?ns=default`);
    const table = page.getByTestId('resource-table');
    await table.getByTestId('row-default/settings').waitFor();
    await table.focus();
    // Rows sorted by name: from-console, kube-root-ca.crt (when published), settings; End goes to the last.
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.hash === '#/ws/root:org-a/o/core/v1/configmaps/default/settings');
  });

  it('a view-only user sees its workspace read-only and cannot see another one', async () => {
    const { context, page: p } = await newConsolePage(browser);
    await signInByForm(p, VIEWER, 'root:org-a');
    await p.getByTestId('user').waitFor();
    assert.equal(await p.getByTestId('user').innerText(), 'viewer');
    await p.goto(`${ts.url}/console/#/ws/root:org-a/r/core/v1/configmaps`);
    await p.getByTestId('row-default/from-console').waitFor();
    await p.goto(`${ts.url}/console/#/ws/root:org-a/o/core/v1/configmaps/default/from-console`);
    await p.getByTestId('object-yaml').waitFor();
    const edit = p.getByRole('button', { name: 'Edit' });
    await p.waitForFunction(() => (document.querySelector('button.primary') as HTMLButtonElement | null)?.disabled === true);
    assert.equal(await edit.isDisabled(), true);
    // Applying anyway is the server's 403, shown as it said it.
    await p.goto(`${ts.url}/console/#/ws/root:org-a/new`);
    await p.getByTestId('yaml-editor').fill('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sneaky\n  namespace: default\n');
    await p.getByTestId('apply').click();
    await p.getByTestId('apply-error').waitFor();
    assert.match(await p.getByTestId('apply-error').innerText(), /Error 403[\s\S]*"viewer" cannot patch resource "configmaps"/);
    assert.equal((await ts.request('GET', '/clusters/root:org-a/api/v1/namespaces/default/configmaps/sneaky')).status, 404);
    // Another workspace: nothing of it is shown.
    await p.goto(`${ts.url}/console/#/ws/root:team-b/r/core/v1/configmaps`);
    await p.getByTestId('error').waitFor();
    assert.match(await p.getByTestId('error').innerText(), /Forbidden/);
    assert.equal(await p.getByTestId('resource-table').count(), 0);
    await p.goto(`${ts.url}/console/#/ws/root:team-b`);
    await p.getByTestId('error').waitFor();
    assert.match(await p.getByTestId('error').innerText(), /Forbidden: you cannot see the workspaces in root:team-b/);
    assert.equal(await p.getByTestId('workspace-tree').count(), 0);
    await screenshot(p, 'view-only-forbidden');
    await context.close();
  });

  it('fits a phone: the navigation folds behind a menu button', async () => {
    const { context, page: p } = await newConsolePage(browser, { width: 390, height: 844 });
    await p.goto(`${ts.url}/console/#token=${ADMIN}&ws=root:org-a`);
    await p.getByTestId('user').waitFor({ state: 'attached' });
    await p.goto(`${ts.url}/console/#/ws/root:org-a/r/core/v1/configmaps`);
    await p.getByTestId('row-default/settings').waitFor();
    assert.equal(await p.locator('#nav').isVisible(), false);
    const width = await p.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `no horizontal scrolling of the page: ${width}px`);
    await p.getByRole('button', { name: 'Menu' }).click();
    await p.getByTestId('resource-nav').getByRole('link', { name: 'Namespace', exact: true }).click();
    await p.getByTestId('row-default').waitFor();
    await screenshot(p, 'phone');
    assert.deepEqual(outsideRequests(p), []);
    await context.close();
    assert.deepEqual(outsideRequests(page), [], 'the console reached beyond loopback');
  });
});
