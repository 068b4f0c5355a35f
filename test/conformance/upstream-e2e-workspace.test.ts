/**
 * Upstream's own `[sig-apps]` conformance specs (and other SIGs' on the APIs a workspace serves) against a WORKSPACE whose compute is two simulated clusters
 * (`atrium start` + two `atrium pcluster` processes of two nodes each, push syncers, `bind compute`): the specs talk to
 * the workspace only, as a user's tools do, and know nothing of clusters. What they create is placed (Deployments
 * split over both clusters, Jobs, CronJobs, StatefulSets and ReplicaSets on one, DaemonSets on both), runs there, and
 * comes back up: status folded onto the workspace's objects, pods mirrored, evictions and scale carried to the
 * clusters. Each spec below must pass — the proof that the Kubernetes workload APIs "just work" across clusters by
 * upstream's own definition of working.
 *
 * Not listed (README, "Upstream's own conformance tests"): the specs that also fail against a single `atrium pcluster`
 * (./upstream-e2e-pcluster.test.ts says why), and those whose expectations are one cluster's: nodes are the clusters'
 * own (read-only in a workspace, so a spec cannot label them, nor write their status); a mirrored pod's owner and
 * status are its cluster's (a spec cannot fail one; its labels, and owner references left out, go to the pod on its cluster); a Deployment does not adopt a ReplicaSet,
 * and a split one scales proportionally per cluster; ControllerRevisions in a workspace are mirrors of the clusters'
 * own; a workspace's ResourceQuota does not bound the pods a cluster's controllers create.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { startFleet, type ProcessFleet } from '../helpers/fleet.js';
import { CRONJOB_SPECS, e2eBinary, runEachAlongside, runShardedE2E, specProblems } from './focused-e2e.js';


/** The specs (full texts), each of which must pass. */
const SPECS = [
  '[sig-apps] CronJob should support CronJob API operations [Conformance]',
  '[sig-apps] Daemon set [Serial] should rollback without unnecessary restarts [Conformance]',
  '[sig-apps] Daemon set [Serial] should run and stop simple daemon [Conformance]',
  '[sig-apps] Daemon set [Serial] should verify changes to a daemon set status [Conformance]',
  '[sig-apps] Daemon set [Serial] should update pod when spec was updated and update strategy is RollingUpdate [Conformance]',
  '[sig-apps] Daemon set [Serial] should list and delete a collection of DaemonSets [Conformance]',
  '[sig-apps] Deployment Deployment should have a working scale subresource [Conformance]',
  '[sig-apps] Deployment RecreateDeployment should delete old pods and create new ones [Conformance]',
  '[sig-apps] Deployment deployment should delete old replica sets [Conformance]',
  '[sig-apps] Deployment should run the lifecycle of a Deployment [Conformance]',
  '[sig-apps] Deployment should validate Deployment Status endpoints [Conformance]',
  '[sig-apps] DisruptionController Listing PodDisruptionBudgets for all namespaces should list and delete a collection of PodDisruptionBudgets [Conformance]',
  '[sig-apps] DisruptionController should block an eviction until the PDB is updated to allow it [Conformance]',
  '[sig-apps] DisruptionController should create a PodDisruptionBudget [Conformance]',
  '[sig-apps] DisruptionController should observe PodDisruptionBudget status updated [Conformance]',
  '[sig-apps] DisruptionController should update/patch PodDisruptionBudget status [Conformance]',
  // The spec orphans a mirrored pod with a PUT (owner references left out) and relabels it: both go to the pod on its
  // cluster, whose Job controller adopts it again and then releases it. Its pods run the pause image, which never exits.
  '[sig-apps] Job should adopt matching orphans and release non-matching pods [Conformance]',
  '[sig-apps] Job should allow to use a pod failure policy to ignore failure matching on DisruptionTarget condition [Conformance]',
  '[sig-apps] Job should apply changes to a job status [Conformance]',
  '[sig-apps] Job should create pods for an Indexed job with completion indexes and specified hostname [Conformance]',
  '[sig-apps] Job should delete a job [Conformance]',
  '[sig-apps] Job should manage the lifecycle of a job [Conformance]',
  '[sig-apps] Job should run a job to completion when tasks sometimes fail and are locally restarted [Conformance]',
  '[sig-apps] ReplicaSet Replace and Patch tests [Conformance]',
  '[sig-apps] ReplicaSet should adopt matching pods on creation and release no longer matching pods [Conformance]',
  '[sig-apps] ReplicaSet Replicaset should have a working scale subresource [Conformance]',
  '[sig-apps] ReplicaSet should list and delete a collection of ReplicaSets [Conformance]',
  '[sig-apps] ReplicaSet should validate Replicaset Status endpoints [Conformance]',
  '[sig-apps] ReplicationController should adopt matching pods on creation [Conformance]',
  '[sig-apps] ReplicationController should get and update a ReplicationController scale [Conformance]',
  // The spec relabels a mirrored pod with a PUT: the labels go to the pod on its cluster, whose controller releases it.
  '[sig-apps] ReplicationController should release no longer matching pods [Conformance]',
  '[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should have a working scale subresource [Conformance]',
  '[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should list, patch and delete a collection of StatefulSets [Conformance]',
  '[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] Should recreate evicted statefulset [Conformance]',
  '[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should perform canary updates and phased rolling updates of template modifications [Conformance]',
  '[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should validate Statefulset Status endpoints [Conformance]',
];

/**
 * Other SIGs' conformance specs on the workload and networking APIs a workspace serves (full texts), each of which must
 * pass too: what `kubectl` and controllers do with Services, Endpoints and EndpointSlices, Ingresses, Pods, PodTemplates,
 * PersistentVolumes and their claims, Events, LimitRanges and immutable ConfigMaps and Secrets, as on one cluster. The
 * rest of those SIGs' conformance specs need real programs in containers (DNS, HTTP through Services, volume contents
 * read back from a pod's output) or nodes of the workspace's own.
 */
const OTHER_SIG_SPECS = [
  // A status write's labels and annotations are kept (the kinds' status strategies reset only the spec).
  '[sig-network] Services should complete a service status lifecycle [Conformance]',
  '[sig-network] Ingress API should support creating Ingress API operations [Conformance]',
  // The workspace keeps Endpoints and EndpointSlices for its Services from the pods of every cluster (disjoint pod
  // networks: the simulated clusters' pod IPs differ).
  '[sig-network] EndpointSlice should create and delete Endpoints and EndpointSlices for a Service with a selector specified [Conformance]',
  '[sig-network] EndpointSlice should create Endpoints and EndpointSlices for Pods matching a Service [Conformance]',
  '[sig-network] EndpointSlice should support creating EndpointSlice API operations [Conformance]',
  '[sig-network] EndpointSliceMirroring should mirror a custom Endpoints resource through create update and delete [Conformance]',
  '[sig-network] Services should test the lifecycle of an Endpoint [Conformance]',
  // An update with the object its create returned: nothing writes a ConfigMap or Secret nothing uses.
  '[sig-storage] ConfigMap should be immutable if `immutable` field is set [Conformance]',
  '[sig-storage] Secrets should be immutable if `immutable` field is set [Conformance]',
  // core/v1's `source` field selector falls back to an events.k8s.io Event's reporting controller.
  '[sig-instrumentation] Events API should ensure that an event can be fetched, patched, deleted, and listed [Conformance]',
  '[sig-storage] PersistentVolumes CSI Conformance should run through the lifecycle of a PV and a PVC [Conformance]',
  '[sig-storage] PersistentVolumes CSI Conformance should apply changes to a pv/pvc status [Conformance]',
  '[sig-node] Pods should run through the lifecycle of Pods and PodStatus [Conformance]',
  '[sig-node] Pods should patch a pod status [Conformance]',
  '[sig-node] Pods should delete a collection of pods [Conformance]',
  // A shorter activeDeadlineSeconds goes to the pod's cluster, whose kubelet stops it (DeadlineExceeded).
  '[sig-node] Pods should allow activeDeadlineSeconds to be updated [NodeConformance] [Conformance]',
  '[sig-node] PodTemplates should run the lifecycle of PodTemplates [Conformance]',
  '[sig-scheduling] LimitRange should create a LimitRange with defaults and ensure pod has those defaults applied. [Conformance]',
  // CertificateSigningRequests, served in every workspace as kcp serves them: the API, /approval and /status.
  '[sig-auth] Certificates API [Privileged:ClusterAdmin] should support CSR API operations [Conformance]',
];

/** How many e2e.test processes share the specs that may run beside others (ATRIUM_UPSTREAM_E2E_SHARDS, default 3). */
const shards = Math.max(1, Number(process.env.ATRIUM_UPSTREAM_E2E_SHARDS ?? 3));

let fleet: ProcessFleet | undefined;
let kubeconfig: string;

before(async () => {
  if (!existsSync(e2eBinary)) throw new Error(`upstream's e2e.test is missing: ${e2eBinary} (build it with bench/kube/build-anchors.sh; .ci/run does)`);
  fleet = await startFleet({
    name: 'e2e-ws',
    processes: {},
    clusters: [
      { name: 'east', nodes: 2 },
      { name: 'west', nodes: 2 },
    ],
    workspace: 'root:conformance-mc',
    bindCompute: true,
    waitReady: { resources: ['deployments', 'replicasets', 'statefulsets', 'daemonsets', 'jobs', 'cronjobs', 'poddisruptionbudgets', 'pods'], timeoutMs: 120_000 },
  });
  // The admin kubeconfig pointed into the workspace, as `kubectl ws root:conformance-mc` leaves it.
  const kc = YAML.parse(readFileSync(fleet.kubeconfig, 'utf8')) as { clusters: { cluster: { server: string } }[] };
  for (const c of kc.clusters) c.cluster.server = `${new URL(c.cluster.server).origin}/clusters/${fleet.workspace.path}`;
  kubeconfig = join(fleet.dir, 'workspace.kubeconfig');
  writeFileSync(kubeconfig, YAML.stringify(kc));
});

after(async () => {
  await fleet?.stop();
});

test("upstream's sig-apps conformance specs and other SIGs' on the APIs a workspace serves (k8s.io/kubernetes v1.32.4) against a workspace over two simulated clusters", { timeout: 15 * 60_000 }, async () => {
  // As against one cluster: the specs in shards (then the [Serial] ones alone), each CronJob spec in its own process.
  const dir = fleet!.dir;
  const runs = (
    await Promise.all([
      runShardedE2E({ kubeconfig, dir, name: 'main', specs: [...SPECS, ...OTHER_SIG_SPECS], numNodes: 1, shards }),
      runEachAlongside({ kubeconfig, dir, name: 'cronjob', specs: CRONJOB_SPECS, numNodes: 1 }),
    ])
  ).flat();
  assert.deepEqual(specProblems(runs, [...SPECS, ...OTHER_SIG_SPECS, ...CRONJOB_SPECS]), [], `${runs.map((r) => `e2e.test exit ${r.code}\n${r.output.slice(-3000)}`).join('\n')}\n${fleet!.logs()}`);
});
