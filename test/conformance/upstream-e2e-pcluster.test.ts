/**
 * Upstream's own `[sig-apps]` conformance specs against the simulated cluster (`atrium pcluster`, 2 nodes): the specs
 * below need running pods and the workload controllers, which a workspace without clusters (./upstream-e2e.test.ts)
 * lacks, and they check that the pcluster behaves as a real cluster would — Deployments (rolling, recreate, adopting
 * an existing ReplicaSet, rollover, proportional scaling, history, scale, status), ReplicaSets and ReplicationControllers (adoption and release by
 * labels, scale, status, lifecycle), StatefulSets (scale, status, collections, canary and phased rolling updates),
 * DaemonSets (run, retry failed pods, rolling update and rollback with their ControllerRevisions), Jobs (Indexed,
 * failures restarted in place, a podFailurePolicy ignoring evictions, adoption, status), CronJobs (concurrency, replace,
 * the API), ControllerRevisions, pods/eviction and the disruption controller; `[sig-scheduling]`'s PriorityClass
 * endpoints spec; `[sig-node]`'s RuntimeClass and activeDeadlineSeconds specs, `[sig-network]`'s endpoints
 * mirroring and slices, `[sig-storage]`'s CSIDriver, CSINode, CSIStorageCapacity and VolumeAttachment API specs,
 * `[sig-auth]`'s CSR, ServiceAccount and SubjectReview specs, two of `[sig-cli]`'s kubectl specs and `[sig-node]`'s
 * init container, failing-command, readiness-probe delay, graceful-deletion and NoExecute taint eviction specs, and its
 * container-output specs (a busybox command's log, the environment from ConfigMaps, Secrets, the downward API and
 * $(VAR) expansion, printed by `env` or `echo`), and `[sig-storage]`'s volume specs (ConfigMap, Secret, downward API,
 * projected and emptyDir volumes as agnhost's mounttest, `cat` and `hexdump` see them). Each must pass.
 *
 * Not run here: specs that need real programs in the containers — serving HTTP through pods/proxy (`should serve a
 * basic image ...`), a readiness probe broken by `exec` (StatefulSet rollback), liveness probes that must fail
 * (`cat /tmp/health` after the file is removed), exit codes computed by a script (a Job's
 * podFailurePolicy on exit codes) — and `[Slow]` ones. e2e.test is built by
 * bench/kube/build-anchors.sh (`.ci/run` builds it).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pluginBinDir } from '../helpers/harness.js';
import { Proc } from '../helpers/processes.js';
import { CRONJOB_SPECS, e2eBinary, runEachAlongside, runFocusedE2E, runShardedE2E, specProblems } from './focused-e2e.js';


/** The specs (full texts), each of which must pass. */
const SPECS = [
  '[sig-apps] ControllerRevision [Serial] should manage the lifecycle of a ControllerRevision [Conformance]',
  '[sig-apps] CronJob should support CronJob API operations [Conformance]',
  '[sig-apps] Daemon set [Serial] should list and delete a collection of DaemonSets [Conformance]',
  '[sig-apps] Daemon set [Serial] should retry creating failed daemon pods [Conformance]',
  '[sig-apps] Daemon set [Serial] should rollback without unnecessary restarts [Conformance]',
  '[sig-apps] Daemon set [Serial] should run and stop complex daemon [Conformance]',
  '[sig-apps] Daemon set [Serial] should run and stop simple daemon [Conformance]',
  '[sig-apps] Daemon set [Serial] should update pod when spec was updated and update strategy is RollingUpdate [Conformance]',
  '[sig-apps] Daemon set [Serial] should verify changes to a daemon set status [Conformance]',
  '[sig-apps] Deployment Deployment should have a working scale subresource [Conformance]',
  '[sig-apps] Deployment RecreateDeployment should delete old pods and create new ones [Conformance]',
  '[sig-apps] Deployment RollingUpdateDeployment should delete old pods and create new ones [Conformance]',
  '[sig-apps] Deployment deployment should delete old replica sets [Conformance]',
  '[sig-apps] Deployment deployment should support proportional scaling [Conformance]',
  '[sig-apps] Deployment deployment should support rollover [Conformance]',
  '[sig-apps] Deployment should run the lifecycle of a Deployment [Conformance]',
  '[sig-apps] Deployment should validate Deployment Status endpoints [Conformance]',
  '[sig-apps] DisruptionController Listing PodDisruptionBudgets for all namespaces should list and delete a collection of PodDisruptionBudgets [Conformance]',
  '[sig-apps] DisruptionController should block an eviction until the PDB is updated to allow it [Conformance]',
  '[sig-apps] DisruptionController should create a PodDisruptionBudget [Conformance]',
  '[sig-apps] DisruptionController should observe PodDisruptionBudget status updated [Conformance]',
  '[sig-apps] DisruptionController should update/patch PodDisruptionBudget status [Conformance]',
  '[sig-apps] Job should adopt matching orphans and release non-matching pods [Conformance]',
  '[sig-apps] Job should allow to use a pod failure policy to ignore failure matching on DisruptionTarget condition [Conformance]',
  '[sig-apps] Job should apply changes to a job status [Conformance]',
  '[sig-apps] Job should create pods for an Indexed job with completion indexes and specified hostname [Conformance]',
  '[sig-apps] Job should delete a job [Conformance]',
  '[sig-apps] Job should manage the lifecycle of a job [Conformance]',
  '[sig-apps] Job should run a job to completion when tasks sometimes fail and are locally restarted [Conformance]',
  '[sig-apps] ReplicaSet Replace and Patch tests [Conformance]',
  '[sig-apps] ReplicaSet Replicaset should have a working scale subresource [Conformance]',
  '[sig-apps] ReplicaSet should adopt matching pods on creation and release no longer matching pods [Conformance]',
  '[sig-apps] ReplicaSet should list and delete a collection of ReplicaSets [Conformance]',
  '[sig-apps] ReplicaSet should validate Replicaset Status endpoints [Conformance]',
  '[sig-apps] ReplicationController should adopt matching pods on creation [Conformance]',
  '[sig-apps] ReplicationController should get and update a ReplicationController scale [Conformance]',
  '[sig-apps] ReplicationController should release no longer matching pods [Conformance]',
  '[sig-apps] ReplicationController should surface a failure condition on a common issue like exceeded quota [Conformance]',
  '[sig-apps] ReplicationController should test the lifecycle of a ReplicationController [Conformance]',
  '[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] Should recreate evicted statefulset [Conformance]',
  '[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should have a working scale subresource [Conformance]',
  '[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should list, patch and delete a collection of StatefulSets [Conformance]',
  '[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should perform canary updates and phased rolling updates of template modifications [Conformance]',
  '[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should validate Statefulset Status endpoints [Conformance]',
  // PriorityClasses (scheduling.k8s.io/v1) with every verb, the system classes kept; the other SchedulerPreemption
  // specs need the scheduler to preempt, which the simulated one does not.
  '[sig-scheduling] SchedulerPreemption [Serial] PriorityClass endpoints verify PriorityClass endpoints can be operated with different HTTP methods [Conformance]',
  // RuntimeClasses (node.k8s.io/v1) and the RuntimeClass admission plugin: a missing or deleted class refused, a class's
  // overhead given to its pods, which the simulated kubelet runs whatever the handler.
  '[sig-node] RuntimeClass should support RuntimeClasses API operations [Conformance]',
  '[sig-node] RuntimeClass should reject a Pod requesting a non-existent RuntimeClass [NodeConformance] [Conformance]',
  '[sig-node] RuntimeClass should reject a Pod requesting a deleted RuntimeClass [NodeConformance] [Conformance]',
  '[sig-node] RuntimeClass should schedule a Pod requesting a RuntimeClass without PodOverhead [NodeConformance] [Conformance]',
  '[sig-node] RuntimeClass should schedule a Pod requesting a RuntimeClass and initialize its Overhead [NodeConformance] [Conformance]',
  // The kubelet stops a pod at its activeDeadlineSeconds; the endpointslice-mirroring controller mirrors custom
  // Endpoints; pod IPs are unique per node range.
  '[sig-node] Pods should allow activeDeadlineSeconds to be updated [NodeConformance] [Conformance]',
  '[sig-network] EndpointSliceMirroring should mirror a custom Endpoints resource through create update and delete [Conformance]',
  '[sig-network] EndpointSlice should create Endpoints and EndpointSlices for Pods matching a Service [Conformance]',
  // The CSI kinds of storage.k8s.io/v1 through their API: CSIDrivers, CSINodes, CSIStorageCapacities (with watches
  // in and across namespaces) and VolumeAttachments with their /status.
  '[sig-storage] CSIInlineVolumes should run through the lifecycle of a CSIDriver [Conformance]',
  '[sig-storage] CSINodes CSI Conformance should run through the lifecycle of a csinode [Conformance]',
  '[sig-storage] CSIStorageCapacity should support CSIStorageCapacities API operations [Conformance]',
  '[sig-storage] VolumeAttachment Conformance should run through the lifecycle of a VolumeAttachment [Conformance]',
  '[sig-storage] VolumeAttachment Conformance should apply changes to a volumeattachment status [Conformance]',
  // CertificateSigningRequests (certificates.k8s.io/v1): the API, /approval and /status.
  '[sig-auth] Certificates API [Privileged:ClusterAdmin] should support CSR API operations [Conformance]',
  // Init containers run in order before the app containers; one that fails (`/bin/false`) fails a restartPolicy Never
  // pod with the app containers never started, and a `/bin/false` container terminates with exit code 1. (The
  // RestartAlways variant, whose init container must crash-loop through three back-offs, passes too but waits
  // 70 s of real back-off: not required here.)
  '[sig-node] InitContainer [NodeConformance] should invoke init containers on a RestartAlways pod [Conformance]',
  '[sig-node] InitContainer [NodeConformance] should invoke init containers on a RestartNever pod [Conformance]',
  '[sig-node] InitContainer [NodeConformance] should not start app containers and fail the pod if init containers fail on a RestartNever pod [Conformance]',
  '[sig-node] Kubelet when scheduling a busybox command that always fails in a pod should be possible to delete [NodeConformance] [Conformance]',
  '[sig-node] Kubelet when scheduling a busybox command that always fails in a pod should have an terminated reason [NodeConformance] [Conformance]',
  // A readiness probe's initial delay: the pod turns Ready no sooner than that after its container started.
  '[sig-node] Probing container with readiness probe should not be ready before initial delay and never restart [NodeConformance] [Conformance]',
  // A container's output when its command prints plainly (runtime/plain-output.ts: echo, env, ... in `sh -c`), with the
  // environment the kubelet gives it: ConfigMap and Secret keys, the downward API (name, namespace, IPs, uid, limits
  // and requests, limits defaulting to the node's allocatable), the service variables and $(VAR) expansion.
  '[sig-node] ConfigMap should be consumable via environment variable [NodeConformance] [Conformance]',
  '[sig-node] ConfigMap should be consumable via the environment [NodeConformance] [Conformance]',
  "[sig-node] Downward API should provide container's limits.cpu/memory and requests.cpu/memory as env vars [NodeConformance] [Conformance]",
  '[sig-node] Downward API should provide default limits.cpu/memory from node allocatable [NodeConformance] [Conformance]',
  '[sig-node] Downward API should provide host IP as an env var [NodeConformance] [Conformance]',
  '[sig-node] Downward API should provide hostIPs as an env var [NodeConformance] [Conformance]',
  '[sig-node] Downward API should provide pod UID as env vars [NodeConformance] [Conformance]',
  '[sig-node] Downward API should provide pod name, namespace and IP address as env vars [NodeConformance] [Conformance]',
  '[sig-node] Kubelet when scheduling a busybox command in a pod should print the output to logs [NodeConformance] [Conformance]',
  '[sig-node] Pods should contain environment variables for services [NodeConformance] [Conformance]',
  '[sig-node] Secrets should be consumable from pods in env vars [NodeConformance] [Conformance]',
  '[sig-node] Secrets should be consumable via the environment [NodeConformance] [Conformance]',
  '[sig-node] Variable Expansion should allow composing env vars into new env vars [NodeConformance] [Conformance]',
  "[sig-node] Variable Expansion should allow substituting values in a container's args [NodeConformance] [Conformance]",
  "[sig-node] Variable Expansion should allow substituting values in a container's command [NodeConformance] [Conformance]",
  // What a container sees in its volumes, as agnhost's mounttest, `cat` and `hexdump -C` print it (runtime/volume-view.ts,
  // mounttest.ts): ConfigMap, Secret, downward API and projected files with their modes and owners, read again as they
  // change; emptyDir permissions and medium. A sample of the 73 of 74 such specs that pass by hand (the one that does
  // not writes its file with a shell redirection and reads it with exec).
  '[sig-storage] ConfigMap should be consumable from pods in volume [NodeConformance] [Conformance]',
  '[sig-storage] ConfigMap should be consumable from pods in volume with defaultMode set [LinuxOnly] [NodeConformance] [Conformance]',
  '[sig-storage] ConfigMap should be consumable from pods in volume with mappings and Item mode set [LinuxOnly] [NodeConformance] [Conformance]',
  '[sig-storage] ConfigMap should be consumable from pods in volume as non-root [NodeConformance] [Conformance]',
  '[sig-storage] ConfigMap updates should be reflected in volume [NodeConformance] [Conformance]',
  '[sig-storage] ConfigMap optional updates should be reflected in volume [NodeConformance] [Conformance]',
  '[sig-storage] ConfigMap binary data should be reflected in volume [NodeConformance] [Conformance]',
  '[sig-storage] Secrets should be consumable from pods in volume [NodeConformance] [Conformance]',
  '[sig-storage] Secrets should be consumable from pods in volume with defaultMode set [LinuxOnly] [NodeConformance] [Conformance]',
  '[sig-storage] Secrets should be consumable from pods in volume with mappings [NodeConformance] [Conformance]',
  '[sig-storage] Secrets optional updates should be reflected in volume [NodeConformance] [Conformance]',
  '[sig-storage] Downward API volume should provide podname only [NodeConformance] [Conformance]',
  "[sig-storage] Downward API volume should provide container's cpu limit [NodeConformance] [Conformance]",
  "[sig-storage] Downward API volume should provide container's memory request [NodeConformance] [Conformance]",
  '[sig-storage] Downward API volume should provide node allocatable (memory) as default memory limit if the limit is not set [NodeConformance] [Conformance]',
  '[sig-storage] Downward API volume should set DefaultMode on files [LinuxOnly] [NodeConformance] [Conformance]',
  '[sig-storage] Downward API volume should update labels on modification [NodeConformance] [Conformance]',
  '[sig-storage] Projected configMap should be consumable from pods in volume [NodeConformance] [Conformance]',
  '[sig-storage] Projected secret should be consumable from pods in volume [NodeConformance] [Conformance]',
  '[sig-storage] Projected downwardAPI should provide podname only [NodeConformance] [Conformance]',
  '[sig-storage] Projected combined should project all components that make up the projection API [Projection] [NodeConformance] [Conformance]',
  '[sig-storage] EmptyDir volumes should support (root,0644,tmpfs) [LinuxOnly] [NodeConformance] [Conformance]',
  '[sig-storage] EmptyDir volumes should support (non-root,0777,default) [LinuxOnly] [NodeConformance] [Conformance]',
  '[sig-storage] EmptyDir volumes volume on tmpfs should have the correct mode [LinuxOnly] [NodeConformance] [Conformance]',
  // Graceful deletion: a running pod is marked, stopped by the kubelet and deleted with its deletionTimestamp.
  '[sig-node] Pods should be submitted and removed [NodeConformance] [Conformance]',
  // The ServiceAccount admission plugin: the default account, and the kube-api-access token volume unless the pod or
  // its account opts out.
  '[sig-auth] ServiceAccounts should allow opting out of API token automount [Conformance]',
  '[sig-auth] ServiceAccounts should run through the lifecycle of a ServiceAccount [Conformance]',
  '[sig-auth] ServiceAccounts should update a ServiceAccount [Conformance]',
  '[sig-auth] ServiceAccounts should create a serviceAccountToken and ensure a successful TokenReview [Conformance]',
  '[sig-auth] ServiceAccounts should guarantee kube-root-ca.crt exist in any namespace [Conformance]',
  '[sig-auth] SubjectReview should support SubjectReview API operations [Conformance]',
  // kubectl against a cluster that runs pods: a diff of a Deployment and a server-side dry-run update of a pod.
  '[sig-cli] Kubectl client Kubectl diff should check if kubectl diff finds a difference for Deployments [Conformance]',
  '[sig-cli] Kubectl client Kubectl server-side dry-run should check if kubectl can dry-run update Pods [Conformance]',
];


/**
 * The taint eviction specs: a NoExecute taint on a node evicts the pods there when their tolerationSeconds are up,
 * and removing it cancels an eviction still waiting. They taint a node (`[Serial]`, `[Disruptive]`), and each first
 * waits a minute for system pods a simulated cluster does not run (WaitForTotalHealthy wants kube-proxy, fluentd and
 * node-problem-detector pods, and goes on without them, as on kind): so each runs on a simulated cluster of its own,
 * beside the rest.
 */
const TAINT_SPECS = [
  '[sig-node] NoExecuteTaintManager Single Pod [Serial] removing taint cancels eviction [Disruptive] [Conformance]',
  '[sig-node] NoExecuteTaintManager Multiple Pods [Serial] evicts pods with minTolerationSeconds [Disruptive] [Conformance]',
];

/**
 * How many e2e.test processes share the specs that may run beside others (ATRIUM_UPSTREAM_E2E_SHARDS, default 4 here:
 * with the container-output and volume specs, 103 of them, four finish ~20 s sooner than three, alone on 2 cores).
 */
const shards = Math.max(1, Number(process.env.ATRIUM_UPSTREAM_E2E_SHARDS ?? 4));

let dir: string;
const clusters: Proc[] = [];

function startCluster(name: string): Proc {
  const rootDir = join(dir, name);
  const p = new Proc(name, () => [join(pluginBinDir, 'atrium'), 'pcluster', '--name', name, '--root-dir', rootDir, '--nodes', '2', '--ready-delay', '200ms'], (o) => o.includes('is serving at') && existsSync(join(rootDir, 'admin.kubeconfig')));
  clusters.push(p);
  return p;
}

before(async () => {
  if (!existsSync(e2eBinary)) throw new Error(`upstream's e2e.test is missing: ${e2eBinary} (build it with bench/kube/build-anchors.sh; .ci/run does)`);
  dir = mkdtempSync(join(tmpdir(), 'atrium-upstream-e2e-pcluster-'));
  await Promise.all([startCluster('conformance'), ...TAINT_SPECS.map((_, i) => startCluster(`taints-${i + 1}`))].map((c) => c.start(60_000)));
});

after(async () => {
  await Promise.all(clusters.map((c) => c.kill('SIGTERM')));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("upstream's sig-apps conformance specs (k8s.io/kubernetes v1.32.4) against atrium pcluster", { timeout: 15 * 60_000 }, async () => {
  // The specs in shards (then the [Serial] ones alone); beside them each CronJob spec in its own process (they wait for
  // real minutes to pass and touch no node), and each taint spec on its own cluster.
  const kubeconfig = join(dir, 'conformance', 'admin.kubeconfig');
  const runs = (
    await Promise.all([
      runShardedE2E({ kubeconfig, dir, name: 'main', specs: SPECS, numNodes: 2, shards }),
      runEachAlongside({ kubeconfig, dir, name: 'cronjob', specs: CRONJOB_SPECS, numNodes: 2 }),
      ...TAINT_SPECS.map((spec, i) => runFocusedE2E({ kubeconfig: join(dir, `taints-${i + 1}`, 'admin.kubeconfig'), dir, name: `taints-${i + 1}`, specs: [spec], numNodes: 2 }).then((r) => [r])),
    ])
  ).flat();
  assert.deepEqual(specProblems(runs, [...SPECS, ...CRONJOB_SPECS, ...TAINT_SPECS]), [], runs.map((r) => `e2e.test exit ${r.code}\n${r.output.slice(-3000)}`).join('\n'));
});
