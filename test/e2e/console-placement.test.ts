/**
 * The console's Clusters and Placement views against a real fleet: atrium with two simulated clusters (push-mode
 * SyncTargets, fast heartbeats and failover), compute bound in root. The Clusters view shows both Ready with their
 * heartbeat, capacity against what the running pods request, every synced resource Accepted, their Location and a
 * cordon; the Placement picture shows a Deployment's replicas split 2/2 and, when one cluster is stopped, that
 * cluster failing and all four replicas moving to the other — live, without reloading the page.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { fastScheduling, startFleet, type Fleet } from '../helpers/fleet.js';
import type { TestServer } from '../helpers/harness.js';
import { launchChromium, newConsolePage, screenshot } from '../helpers/browser.js';

declare const document: any;

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const syncTargetsGVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };

describe('web console: clusters and placement', { timeout: 300_000 }, () => {
  let fleet: Fleet<TestServer>;
  let browser: Browser;
  let page: Page;

  /** The cell of Deployment default/web on a cluster: its data-state and data-replicas, or undefined when empty. */
  const cell = (cluster: string) =>
    page.evaluate((id: string) => {
      const el = document.querySelector(`[data-testid="${id}"] .cell`);
      return el ? { state: el.getAttribute('data-state'), replicas: Number(el.getAttribute('data-replicas')), ready: Number(el.getAttribute('data-ready')) } : undefined;
    }, `cell-default/web@${cluster}`);
  const waitCell = (cluster: string, want: { state?: string; replicas?: number; ready?: number } | undefined, timeout = 60_000) =>
    page.waitForFunction(
      ([id, w]: [string, Record<string, unknown> | null]) => {
        const el = document.querySelector(`[data-testid="${id}"] .cell`);
        if (!w) return !el;
        if (!el) return false;
        return (w.state === undefined || el.getAttribute('data-state') === w.state) && (w.replicas === undefined || Number(el.getAttribute('data-replicas')) === w.replicas) && (w.ready === undefined || Number(el.getAttribute('data-ready')) === w.ready);
      },
      [`cell-default/web@${cluster}`, want ?? null] as [string, Record<string, unknown> | null],
      { timeout, polling: 50 },
    );

  before(async () => {
    fleet = await startFleet({ name: 'console', clusters: [{ name: 'pc-a', nodes: 2 }, { name: 'pc-b', nodes: 2 }], multicluster: fastScheduling(), bindCompute: true, waitReady: { resources: ['deployments'], timeoutMs: 120_000 } });
    browser = await launchChromium();
    ({ page } = await newConsolePage(browser));
    await page.goto(`${fleet.atrium.url}/console/#token=${encodeURIComponent(fleet.atrium.server.adminToken)}&ws=root`);
    await page.getByTestId('user').waitFor();
  });

  after(async () => {
    await browser?.close();
    await fleet?.stop();
  });

  it('shows the SyncTargets: Ready, heartbeat, capacity and allocation, negotiated resources, Locations, cordon', async () => {
    await page.goto(`${fleet.atrium.url}/console/#/ws/root/clusters`);
    for (const name of ['pc-a', 'pc-b']) {
      const card = page.getByTestId(`cluster-${name}`);
      await card.waitFor();
      // The card shows the SyncTarget as it is now: on a loaded machine a heartbeat late beyond the fleet's 3 s
      // threshold shows Not Ready until the next one lands, so wait for Ready rather than read it once.
      await page.waitForFunction((id: string) => document.querySelector(`[data-testid="${id}"] [data-testid="ready"]`)?.textContent?.trim() === 'Ready', `cluster-${name}`, { timeout: 30_000, polling: 100 });
      assert.equal(await card.getByTestId('ready').innerText(), 'Ready');
      assert.match(await card.getByTestId('heartbeat').innerText(), /^\d+s ago$/);
      // Two nodes of the pcluster default capacity (4 cpu, 110 pods each).
      assert.match(await card.innerText(), /CPU\s+0m \/ 8000m/);
      assert.match(await card.innerText(), /Pods\s+0 \/ 220/);
      assert.match(await card.innerText(), /Locations:\s+default/);
      await card.locator('summary').click();
      assert.match(await card.getByTestId('synced-resources').innerText(), /deployments\.apps\s+Accepted/);
    }
    await fleet.up.patch(syncTargetsGVR, 'pc-b', 'merge', { spec: { unschedulable: true } });
    await page.getByTestId('cluster-pc-b').getByText('Cordoned').waitFor({ timeout: 10_000 });
    await fleet.up.patch(syncTargetsGVR, 'pc-b', 'merge', { spec: { unschedulable: null } });
    await page.getByTestId('cluster-pc-b').getByText('Cordoned').waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('pictures a Deployment split over both clusters, then its replicas moving when one cluster stops', async () => {
    await fleet.up.create(deploymentsGVR, {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '250m' } } }] } } },
    }, { namespace: 'default' });
    await page.goto(`${fleet.atrium.url}/console/#/ws/root/placement`);
    await waitCell('pc-a', { state: 'ready', replicas: 2, ready: 2 });
    await waitCell('pc-b', { state: 'ready', replicas: 2, ready: 2 });
    // The total is the root's aggregated status, which follows the clusters' cells by a sync: waited for, not read once.
    await page.getByTestId('total-default/web').getByText(/4\/4/).waitFor({ timeout: 30_000 });
    await screenshot(page, 'placement');
    // The pods the clusters run show as allocation on the Clusters view.
    await page.goto(`${fleet.atrium.url}/console/#/ws/root/clusters`);
    await page.getByTestId('cluster-pc-a').getByText(/CPU\s*500m \/ 8000m/).waitFor({ timeout: 30_000 }).catch(async () => {
      throw new Error(`allocation not shown: ${await page.getByTestId('cluster-pc-a').innerText()}`);
    });
    await screenshot(page, 'clusters');

    await page.goto(`${fleet.atrium.url}/console/#/ws/root/placement`);
    await waitCell('pc-b', { state: 'ready', replicas: 2 });
    // Record every state the two cells pass through, from inside the page, while pc-b goes away.
    await page.evaluate(() => {
      const seen: string[] = [];
      (globalThis as any).placementSeen = seen;
      const note = () => {
        for (const c of ['pc-a', 'pc-b']) {
          const el = document.querySelector(`[data-testid="cell-default/web@${c}"] .cell`);
          const s = `${c}:${el ? `${el.getAttribute('data-state')}/${el.getAttribute('data-replicas')}` : 'empty'}`;
          if (seen.at(-1 - (c === 'pc-a' ? 1 : 0)) !== s && !seen.includes(s)) seen.push(s);
        }
      };
      new (globalThis as any).MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    await fleet.cluster('pc-b').stop();
    await page.getByTestId('col-pc-b').getByText('Not Ready').waitFor({ timeout: 60_000 });
    await waitCell('pc-b', { state: 'failed' }, 60_000).catch(() => undefined); // may already be gone
    await screenshot(page, 'placement-cluster-down');
    await waitCell('pc-a', { state: 'ready', replicas: 4, ready: 4 }, 90_000);
    await waitCell('pc-b', undefined, 30_000);
    const seen = (await page.evaluate(() => (globalThis as any).placementSeen)) as string[];
    assert.ok(seen.includes('pc-b:failed/2') || seen.includes('pc-b:empty'), `pc-b shown failing or emptied: ${seen.join(', ')}`);
    assert.ok(seen.some((s) => /^pc-a:progressing\/[34]$/.test(s)), `the move into pc-a shown in progress: ${seen.join(', ')}`);
    assert.deepEqual(await cell('pc-a'), { state: 'ready', replicas: 4, ready: 4 });
    // The total is the root's aggregated status, which follows the clusters' cells by a sync: waited for, not read once.
    await page.getByTestId('total-default/web').getByText(/4\/4/).waitFor({ timeout: 30_000 });
    await screenshot(page, 'placement-moved');
  });
});
