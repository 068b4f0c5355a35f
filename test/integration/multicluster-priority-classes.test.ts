/**
 * PriorityClasses across the control plane and its clusters, in process: atrium with multicluster and one simulated
 * cluster in push mode, compute bound in root. The workspace serves PriorityClasses with the system classes and
 * Priority admission; a Deployment and a bare Pod naming a workspace class run on the cluster with the class's
 * priority, the syncer having made the class there (labelled and annotated as its own, never a global default); a
 * class the cluster already has of that name is left alone and is what the cluster's pods get.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fastScheduling, startFleet, type InProcessFleet } from '../helpers/fleet.js';
import type { RestClient } from '../../src/client/rest-client.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { StatusError } from '../../src/apimachinery/status.js';
import { eventually } from '../helpers/eventually.js';
import { PRIORITY_CLASS_WORKSPACE_ANNOTATION, SYNCED_PRIORITY_CLASS_LABEL } from '../../src/multicluster/syncer/priority-classes.js';

const PC = { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses' };
const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments' };
const PODS = { group: '', version: 'v1', resource: 'pods' };
const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };

const priorityClass = (name: string, value: number, extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, ...extra });

function deployment(name: string, className: string): KubeObject {
  const app = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas: 2, selector: { matchLabels: app }, template: { metadata: { labels: app }, spec: { priorityClassName: className, containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

/** The cluster's running pods labelled app=<app> (whatever namespace the workspace's maps to), once there are `count`. */
async function runningOnCluster(down: RestClient, app: string, count: number): Promise<KubeObject[]> {
  return eventually(`${count} pods of ${app} running on the cluster`, async () => {
    const pods = (await down.list(PODS, {}, { labelSelector: `app=${app}` })).items.filter((p) => (p.status as { phase?: string } | undefined)?.phase === 'Running');
    return pods.length >= count ? pods : undefined;
  }, 60_000);
}

const getOrUndefined = (c: RestClient, name: string) => c.get(PC, name).catch((err: unknown) => (err instanceof StatusError && err.code === 404 ? undefined : Promise.reject(err)));

describe('PriorityClasses in a workspace with compute and on its cluster', () => {
  let fleet: InProcessFleet;
  let up: RestClient;
  let down: RestClient;

  before(async () => {
    fleet = await startFleet({ name: 'prio', clusters: ['st-p'], multicluster: fastScheduling(), bindCompute: true, waitReady: true });
    up = fleet.up;
    down = fleet.cluster('st-p').client;
    await up.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prio' } });
  });

  after(async () => {
    await fleet?.stop();
  });

  it('the workspace serves the system classes and refuses pods naming an unknown class', async () => {
    const critical = await eventually('system-cluster-critical in the workspace', () => getOrUndefined(up, 'system-cluster-critical'));
    assert.equal(critical.value, 2000000000);
    await assert.rejects(
      up.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'lost' }, spec: { priorityClassName: 'nope', containers: [{ name: 'c', image: 'nginx' }] } }, { namespace: 'prio' }),
      (err: unknown) => err instanceof StatusError && err.code === 403 && err.message.includes('pods "lost" is forbidden: no PriorityClass with name nope was found'),
    );
  });

  it("a Deployment's pods run on the cluster with the workspace class's priority, the syncer having made the class there", async () => {
    await up.create(PC, priorityClass('batch-high', 5000, { description: 'important batch work', preemptionPolicy: 'Never' }));
    await up.create(DEPLOYMENTS, deployment('web', 'batch-high'), { namespace: 'prio' });
    const pods = await runningOnCluster(down, 'web', 2);
    for (const p of pods) assert.deepEqual([(p.spec as any).priority, (p.spec as any).preemptionPolicy], [5000, 'Never']);
    const made = await down.get(PC, 'batch-high');
    assert.equal(made.metadata?.labels?.[SYNCED_PRIORITY_CLASS_LABEL], 'true');
    assert.equal(made.metadata?.annotations?.[PRIORITY_CLASS_WORKSPACE_ANNOTATION], 'root');
    assert.deepEqual([made.value, made.preemptionPolicy, made.description, made.globalDefault], [5000, 'Never', 'important batch work', undefined]);
  });

  it('a bare Pod naming a workspace class runs on the cluster with its priority', async () => {
    await up.create(PC, priorityClass('solo', 300));
    const pod = await up.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'solo', labels: { app: 'solo' } }, spec: { priorityClassName: 'solo', containers: [{ name: 'c', image: 'nginx' }] } }, { namespace: 'prio' });
    assert.equal((pod.spec as any).priority, 300);
    const [downPod] = await runningOnCluster(down, 'solo', 1);
    assert.equal((downPod!.spec as any).priority, 300);
  });

  it("a class the cluster already has is left alone, and the cluster's value is what its pods get", async () => {
    await down.create(PC, priorityClass('shared', 42));
    await up.create(PC, priorityClass('shared', 7));
    await up.create(DEPLOYMENTS, deployment('own', 'shared'), { namespace: 'prio' });
    const pods = await runningOnCluster(down, 'own', 2);
    for (const p of pods) assert.equal((p.spec as any).priority, 42);
    const kept = await down.get(PC, 'shared');
    assert.equal(kept.value, 42);
    assert.equal(kept.metadata?.labels?.[SYNCED_PRIORITY_CLASS_LABEL], undefined);
  });
});
