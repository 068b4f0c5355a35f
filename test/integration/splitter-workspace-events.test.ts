/**
 * The deployment splitter reacts to Deployment events of a workspace other than root at once, not at its next resync.
 * Its per-workspace Deployment informer reads `/clusters/<workspace>`, whose objects carry no cluster annotation, so
 * the workspace of an event must come from the informer, not from the object (which read as `root`: a new root
 * Deployment of root:team was split, and its children's ready status folded onto it, only at the next resync, 5 s by
 * default, or when a SyncTarget or namespace happened to change).
 *
 * Here the splitter's resync (60 s) and the syncers' heartbeats (60 s) are far longer than the test waits, so only
 * Deployment events can drive the splitter.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type InProcessFleet } from '../helpers/fleet.js';
import { eventually } from '../helpers/eventually.js';
import type { KubeObject } from '../../src/apimachinery/object.js';

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };

describe('deployment splitter: events of a non-root workspace', () => {
  let fleet: InProcessFleet;

  before(async () => {
    fleet = await startFleet({
      name: 'splitter-events',
      clusters: ['st-a', 'st-b'],
      workspace: 'root:team',
      multicluster: { heartbeatThresholdMs: 180_000, pushSyncer: { heartbeatIntervalMs: 60_000, importPollIntervalMs: 500 }, scheduling: { resyncMs: 300 }, splitter: { resyncMs: 60_000 } },
      bindCompute: true,
      waitReady: { resources: ['deployments'] },
    });
  });

  after(async () => {
    await fleet?.stop();
  });

  it('splits a new Deployment of root:team and reports its replicas ready long before the splitter resyncs', async () => {
    const scope = { cluster: fleet.workspace.cluster, namespace: 'default' };
    const labels = { app: 'web' };
    await fleet.up.create(deploymentsGVR, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels }, spec: { replicas: 4, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } }, scope);
    await eventually(
      'web: 4 ready replicas upstream',
      async () => ((await fleet.up.get<KubeObject & { status?: { readyReplicas?: number } }>(deploymentsGVR, 'web', scope)).status?.readyReplicas ?? 0) === 4,
      // Well under the 60 s resync; with events it takes well under a second.
      10_000,
      50,
    );
  });
});
