/**
 * Issue "Every workload kind just works" benchmark: 50 apps (the corpus of test/e2e/apps several times over) applied
 * at once to a workspace with compute bound over 3 simulated clusters.
 *
 * The fleet: `atrium start` and 3 `atrium pcluster` processes (each 3 nodes of 8 CPU / 32 GiB / 110 pods, pods Ready
 * READY_DELAY_MS after they are scheduled and their claims Bound, Job-style pods running JOB_DURATION_MS), registered
 * as push-mode SyncTargets of workspace root:bench, compute bound (`bind compute`: Placement default, spread All), as
 * test/helpers/fleet.ts does for the e2e suites. Every process is separate, so its CPU and RSS are read from /proc.
 *
 * The apps: every directory of test/e2e/apps is one app (its *.yaml/*.yml/*.json files in name order, each file's
 * documents in order, as `kubectl apply -f <dir>` reads them). With n corpus apps (13 today), app instance i is corpus
 * app i mod n, copy ⌊i / n⌋ + 1 (copies after the first leave a Service's fixed nodePort for the cluster to allocate: a
 * node port exists once per cluster; and their pods give up hostNetwork and host ports, which exist once per node); a copy's namespaces are the app's with `-<copy>` appended, and everything naming them is rewritten the
 * same way (metadata.namespace, Namespace names, RBAC subjects' namespaces, NetworkPolicy namespaceSelectors on
 * `kubernetes.io/metadata.name`, `<svc>.<ns>.svc…` DNS names and Prometheus `names: [<ns>]` lists in any string);
 * cluster-scoped objects (ClusterRoles, ClusterRoleBindings) get the same suffix, and bindings to the app's own
 * ClusterRoles follow. All 50 instances are applied at once, each as `kubectl apply --server-side` would: its objects
 * one after the other, in file order, by server-side apply (PATCH application/apply-patch+yaml, fieldManager kubectl).
 *
 * What is measured per app: from the moment its first apply request is sent until every workload of it reports ready
 * upstream, in atrium, as kubectl would judge it (seen through watches on the workspace, so the moment is exact and
 * nothing polls atrium):
 * - Deployment, ReplicationController: observedGeneration current, replicas = updated = ready = available = spec.replicas
 *   (a split Deployment: the splitter's aggregate over its clusters);
 * - StatefulSet: observedGeneration current, ready = spec.replicas, currentRevision = updateRevision;
 * - DaemonSet: observedGeneration current, desired = every node of the fleet, updated = ready = available = desired;
 * - Job: condition Complete; bare Pod: condition Ready; LoadBalancer Service: an ingress address;
 * - PersistentVolumeClaim: Bound — when a workload of the app other than a CronJob mounts it (the default class is
 *   WaitForFirstConsumer, so a claim only a CronJob uses stays Pending until that CronJob first fires);
 * - CronJob, PodDisruptionBudget, HPA and the rest: applied and counted, not waited for.
 *
 * The delay model: what the simulated clusters themselves make a workload wait, on its critical path, which is
 * subtracted ("added by atrium" = time to ready − the app's simulated floor):
 * - a pod is Ready READY_DELAY_MS (RD) after it is bound with its claims Bound, plus PD when its startup or readiness
 *   probes have initial delays (the slowest container's); pods of one workload start in parallel, so a Deployment,
 *   ReplicationController, DaemonSet, bare Pod or Parallel StatefulSet costs RD + PD;
 * - an OrderedReady StatefulSet of N replicas starts pod i+1 only once pod i is Ready: N × (RD + PD);
 * - a Job pod is Ready after RD and then runs JOB_DURATION_MS (JD; `sim.atrium.io/run-seconds` on its template
 *   instead), in ⌈completions / parallelism⌉ waves: waves × (RD + JD);
 * - claim provisioning, endpoints and load-balancer addresses have no simulated delay: 0;
 * - the workloads of one app run side by side (the simulation has no init-container ordering), so the app's floor is
 *   the largest of its workloads'.
 * Everything else — API requests to atrium, placement, splitting, syncing down and status up, and the clusters' own
 * controllers and scheduler reacting — is in the added time. With 50 apps, p99 is the slowest app.
 *
 * Targets: p99 added time ≤ 1 s. Informational rows: atrium's CPU seconds and peak RSS from the first apply until
 * the last app that got ready did, beside the 3 clusters' summed CPU seconds and summed peak RSS over the same window (sampled from
 * /proc every 250 ms).
 *
 * The reference (bench/workloads-kube-reference.ts), once the fleet is stopped: the same instances' applies, all at
 * once, against kube-apiserver v1.32.4 + etcd 3.5.16 alone (no controllers, no clusters; ServiceAccount admission off
 * as nothing makes the default ServiceAccounts), when bench/kube/build-anchors.sh has built it
 * (ATRIUM_BENCH_WORKLOADS_KUBE=0 skips it): apply of one app p50 / p99 there beside the fleet run's, a lower bound of
 * what applying the apps alone costs on the real thing on this machine.
 *
 * Diagnostics printed before the figures: the delay model of every corpus app; the phases of the pipeline (namespace
 * placed by the scheduler, objects applied, each awaited object from its own apply answered to ready minus its floor,
 * Deployments split / other workloads placed, ready on the clusters and synced up, the split children's readiness
 * folded onto the root), p50 / p99 / max; the three slowest apps.
 *
 * Gives up ATRIUM_BENCH_WORKLOADS_TIMEOUT_MS (default 150 s) after the applies started, naming every object not ready
 * and why; an app never ready counts as the whole timeout (the figure fails), and the p99 over the apps that did get
 * ready is printed beside it. The applies start ATRIUM_BENCH_WORKLOADS_SETTLE_MS (default 10 s) after every SyncTarget
 * is Ready with every resource Accepted, so the registration aftermath (the syncers' per-resource informers starting)
 * is over. Env: ATRIUM_BENCH_WORKLOADS_APPS (default 50), ATRIUM_E2E_APPS_DIR (the corpus, default test/e2e/apps),
 * ATRIUM_BENCH_WORKLOADS_ATRIUM_ARGS (more `atrium start` flags, space-separated),
 * ATRIUM_BENCH_WORKLOADS_LOGS=<dir> (every process's output kept there as <name>.log; with ATRIUM_LOG_LEVEL=debug it
 * holds every request with its server-side duration). Profiling the fleet: ATRIUM_PROC_NODE_ARGS="--cpu-prof
 * --cpu-prof-dir=<dir>" (test/helpers/processes.ts) writes a CPU profile per process on exit.
 * Standalone: `node dist/bench/workloads.js`.
 *
 * Reading the figures: the fleet shares the machine's cores with whatever else runs there, so on a loaded machine the
 * times stretch with the load (every process waits for a core); the CPU seconds of atrium and of the clusters are the
 * figures to compare between runs, and the load average before the run is printed beside them.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonObject, KubeObject } from '../src/apimachinery/object.js';
import type { RestClient } from '../src/client/rest-client.js';
import type { GroupVersionResource } from '../src/client/resource.js';
import { isResourceExpired } from '../src/client/watch-stream.js';
import { logger } from '../src/logging/logger.js';
import { SPLIT_FROM_LABEL, SPLIT_NAMESPACE_ANNOTATION } from '../src/multicluster/scheduling/types.js';
import { containerProbeTimes } from '../src/pcluster/controllers/probes.js';
import { startFleet, type ProcessFleet } from '../test/helpers/fleet.js';
import type { Figure } from './lib.js';
import { applyToKubeApiserver } from './workloads-kube-reference.js';
import { applyInstances, applyObject, instantiate, namespaceOf, readCorpus, type Manifest } from './corpus.js';

const CLUSTERS = 3;
const NODES_PER_CLUSTER = 3;
const NODES = CLUSTERS * NODES_PER_CLUSTER;
const NODE_CAPACITY = { cpu: '8', memory: '32Gi', pods: '110' };
const READY_DELAY_MS = 200;
const JOB_DURATION_MS = 1000;
const BUDGET_MS = 1000;
const WORKSPACE = 'root:bench';

// ---- readiness and the delay model ----

const condition = (o: any, type: string) => ((o?.status?.conditions ?? []) as { type: string; status: string; message?: string }[]).find((c) => c.type === type);
const generationSeen = (o: any) => (o.status?.observedGeneration ?? 0) >= (o.metadata?.generation ?? 0);

/** One object the app waits for: its readiness as kubectl judges it and what the clusters' simulation makes it wait. */
interface Awaited {
  key: string;
  kind: string;
  namespace: string;
  name: string;
  /** true when ready, otherwise what is missing. */
  ready(live: any): true | string;
  /** The simulated delay on its critical path, ms, and how it is made up. */
  floorMs: number;
  model: string;
}

const keyOf = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

/** atrium's placement decision on an object: the Scheduled condition (annotation) is True. */
const scheduledTrue = (o: KubeObject) => {
  const raw = o.metadata?.annotations?.['scheduling.atrium.io/scheduled'];
  try {
    return !!raw && (JSON.parse(raw) as { status?: string }).status === 'True';
  } catch {
    return false;
  }
};

/** A Deployment (kubectl rollout status) or ReplicationController (which has no updatedReplicas). */
function replicasReady(o: any): true | string {
  const want = o.spec?.replicas ?? 1;
  const s = o.status ?? {};
  if (!generationSeen(o)) return `observedGeneration ${s.observedGeneration ?? '<none>'} < generation ${o.metadata?.generation}`;
  const counts = { replicas: s.replicas ?? 0, updated: o.kind === 'ReplicationController' ? want : (s.updatedReplicas ?? 0), ready: s.readyReplicas ?? 0, available: s.availableReplicas ?? 0 };
  return Object.values(counts).every((n) => n === want) ? true : `want ${want}: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')}`;
}

/** Pods a workload's template runs to completion use --job-duration unless the template says otherwise. */
function runMs(template: any): number {
  const s = template?.metadata?.annotations?.['sim.atrium.io/run-seconds'];
  return s !== undefined ? Number(s) * 1000 : JOB_DURATION_MS;
}

function claimsOf(podSpec: any): string[] {
  return ((podSpec?.volumes ?? []) as { persistentVolumeClaim?: { claimName?: string } }[]).map((v) => v.persistentVolumeClaim?.claimName).filter((n): n is string => !!n);
}

/**
 * PD: how long a pod of this template stays unready after its containers run, by its startup and readiness probes'
 * initial delays (the simulated prober, src/pcluster/controllers/probes.ts): the slowest container's.
 */
function probeDelayMs(podSpec: any): number {
  const containers = ((podSpec?.containers ?? []) as Record<string, unknown>[]).filter((c) => c && typeof c === 'object');
  return Math.max(0, ...containers.map((c) => containerProbeTimes(c as JsonObject, 0).readyAt).filter(Number.isFinite));
}

/** What the app waits for, and (for the print-out) what it applies without waiting. */
function awaitedOf(objects: Manifest[]): { awaited: Awaited[]; counted: string[] } {
  const awaited: Awaited[] = [];
  const counted: string[] = [];
  const RD = READY_DELAY_MS;
  // Claims a running workload mounts (not a CronJob's: it has not fired).
  const mounted = new Set<string>();
  for (const o of objects) {
    const spec = o.kind === 'Pod' ? o.spec : o.kind === 'CronJob' ? undefined : o.spec?.template?.spec;
    for (const c of claimsOf(spec)) mounted.add(`${namespaceOf(o)}/${c}`);
  }
  for (const o of objects) {
    const ns = namespaceOf(o);
    const name = o.metadata.name;
    const add = (ready: Awaited['ready'], floorMs: number, model: string) => awaited.push({ key: keyOf(o.kind, ns!, name), kind: o.kind, namespace: ns!, name, ready, floorMs, model });
    // A pod is ready RD after it is bound, plus PD when its probes have initial delays.
    const PD = probeDelayMs(o.kind === 'Pod' ? o.spec : o.spec?.template?.spec);
    const RDPD = RD + PD;
    const rd = PD ? `(RD + PD ${PD} ms)` : 'RD';
    switch (o.kind) {
      case 'Deployment':
      case 'ReplicationController':
        add(replicasReady, RDPD, `pods in parallel: ${rd}`);
        break;
      case 'StatefulSet': {
        const n = o.spec?.replicas ?? 1;
        const ordered = (o.spec?.podManagementPolicy ?? 'OrderedReady') === 'OrderedReady';
        add(
          (s) => {
            const st = s.status ?? {};
            if (!generationSeen(s)) return `observedGeneration ${st.observedGeneration ?? '<none>'} < generation ${s.metadata?.generation}`;
            if ((st.readyReplicas ?? 0) < (s.spec?.replicas ?? 1)) return `${st.readyReplicas ?? 0} of ${s.spec?.replicas ?? 1} ready`;
            return st.currentRevision === st.updateRevision ? true : `currentRevision ${st.currentRevision} ≠ updateRevision ${st.updateRevision}`;
          },
          ordered ? n * RDPD : RDPD,
          ordered ? `OrderedReady, ${n} pods one after another: ${n} × ${rd}` : `Parallel: ${rd}`,
        );
        break;
      }
      case 'DaemonSet':
        add(
          (d) => {
            const s = d.status ?? {};
            if (!generationSeen(d)) return `observedGeneration ${s.observedGeneration ?? '<none>'} < generation ${d.metadata?.generation}`;
            const counts = { desired: s.desiredNumberScheduled ?? 0, updated: s.updatedNumberScheduled ?? 0, ready: s.numberReady ?? 0, available: s.numberAvailable ?? 0 };
            return Object.values(counts).every((n) => n === NODES) ? true : `want ${NODES} (every node of the fleet): ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')}`;
          },
          RDPD,
          `a pod per node in parallel: ${rd}`,
        );
        break;
      case 'Job': {
        const completions = o.spec?.completions ?? 1;
        const parallelism = o.spec?.parallelism ?? 1;
        const waves = Math.ceil(completions / Math.max(1, Math.min(parallelism, completions)));
        const run = runMs(o.spec?.template);
        add(
          (j) => (condition(j, 'Complete')?.status === 'True' ? true : condition(j, 'Failed')?.status === 'True' ? `Failed: ${condition(j, 'Failed')?.message}` : `active ${j.status?.active ?? 0}, succeeded ${j.status?.succeeded ?? 0}`),
          waves * (RD + run),
          `${waves} wave${waves > 1 ? 's' : ''} × (RD + run ${run} ms)`,
        );
        break;
      }
      case 'Pod':
        add((p) => (condition(p, 'Ready')?.status === 'True' ? true : `phase ${p.status?.phase ?? '<none>'}`), RDPD, rd);
        break;
      case 'PersistentVolumeClaim':
        if (mounted.has(`${ns}/${name}`)) add((c) => (c.status?.phase === 'Bound' ? true : `phase ${c.status?.phase ?? '<none>'}`), 0, 'provisioned at once: 0');
        else counted.push(`${o.kind} ${name} (no running workload mounts it; WaitForFirstConsumer)`);
        break;
      case 'Service':
        if (o.spec?.type === 'LoadBalancer') add((s) => ((s.status?.loadBalancer?.ingress ?? []).some((i: any) => i.ip || i.hostname) ? true : 'no load-balancer address'), 0, 'address at once: 0');
        else counted.push(`${o.kind} ${name}`);
        break;
      default:
        counted.push(`${o.kind} ${name}`);
    }
  }
  return { awaited, counted };
}

const watchedKinds: Record<string, GroupVersionResource> = {
  Deployment: { group: 'apps', version: 'v1', resource: 'deployments' },
  StatefulSet: { group: 'apps', version: 'v1', resource: 'statefulsets' },
  DaemonSet: { group: 'apps', version: 'v1', resource: 'daemonsets' },
  ReplicationController: { group: '', version: 'v1', resource: 'replicationcontrollers' },
  Job: { group: 'batch', version: 'v1', resource: 'jobs' },
  Pod: { group: '', version: 'v1', resource: 'pods' },
  PersistentVolumeClaim: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
  Service: { group: '', version: 'v1', resource: 'services' },
};

/**
 * Lists and watches `gvr` in the workspace (all namespaces), handing every object it sees to `seen`, until stop().
 * A watch that ends is resumed from the last resourceVersion; a 410 re-lists.
 */
function watchKind(up: RestClient, cluster: string, gvr: GroupVersionResource, seen: (o: KubeObject) => void): { started: Promise<void>; stop(): void } {
  let stopped = false;
  let current: { stop(): void } | undefined;
  let started!: () => void;
  const ready = new Promise<void>((r) => (started = r));
  void (async () => {
    let rv: string | undefined;
    while (!stopped) {
      try {
        if (rv === undefined) {
          const list = await up.list(gvr, { cluster });
          list.items.forEach(seen);
          rv = list.metadata.resourceVersion;
        }
        const w = await up.watch(gvr, { cluster }, { resourceVersion: rv, allowWatchBookmarks: true, timeoutSeconds: 600 });
        current = w;
        started();
        if (stopped) w.stop();
        for await (const ev of w) {
          if (ev.object.metadata?.resourceVersion) rv = ev.object.metadata.resourceVersion;
          if (ev.type !== 'BOOKMARK' && ev.type !== 'DELETED') seen(ev.object);
        }
      } catch (err) {
        if (stopped) return;
        if (isResourceExpired(err)) rv = undefined;
        else await new Promise((r) => setTimeout(r, 200));
      }
    }
  })();
  return { started: ready, stop: () => ((stopped = true), current?.stop()) };
}

/** `p`, or an error saying `what` after `ms`. */
async function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

// ---- process usage from /proc ----

const CLK_TCK = 100; // Linux USER_HZ
/** CPU seconds (user + system) of a process so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}
/** Resident memory of a process now, bytes. */
function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

// ---- the run ----

interface Instance {
  id: string;
  template: string;
  objects: Manifest[];
  awaited: Awaited[];
  floorMs: number;
  startedAt?: number;
  appliedAt?: number;
  readyAt?: number;
}

const percentile = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};

export async function runWorkloadBenchmarks(): Promise<Figure[]> {
  logger.setLevel('error');
  const root = process.env.ATRIUM_E2E_APPS_DIR ? resolve(process.env.ATRIUM_E2E_APPS_DIR) : resolve(fileURLToPath(import.meta.url), '..', '..', '..', 'test', 'e2e', 'apps');
  const corpus = readCorpus(root);
  const count = Number(process.env.ATRIUM_BENCH_WORKLOADS_APPS ?? 50);
  const timeoutMs = Number(process.env.ATRIUM_BENCH_WORKLOADS_TIMEOUT_MS ?? 150_000);
  const settleMs = Number(process.env.ATRIUM_BENCH_WORKLOADS_SETTLE_MS ?? 10_000);

  // The delay model of every corpus app, printed once.
  console.log(`workloads: ${count} app instances from ${corpus.length} corpus apps (${root}); ${CLUSTERS} clusters × ${NODES_PER_CLUSTER} nodes (${Object.entries(NODE_CAPACITY).map(([k, v]) => `${k}=${v}`).join(',')}), ready delay RD = ${READY_DELAY_MS} ms, job duration ${JOB_DURATION_MS} ms; ${cpus().length} cores`);
  console.log(`workloads: simulated floor per app = the largest of its workloads' simulated delays (pods of a workload start in parallel; OrderedReady StatefulSets N × RD; Jobs waves × (RD + run)):`);
  for (const app of corpus) {
    const { awaited, counted } = awaitedOf(app.objects);
    const floor = Math.max(0, ...awaited.map((a) => a.floorMs));
    console.log(`  ${app.name}: floor ${floor} ms; waits for ${awaited.map((a) => `${a.kind} ${a.name} (${a.model}${a.floorMs ? ` = ${a.floorMs} ms` : ''})`).join(', ') || 'nothing'}; applies without waiting: ${counted.length} objects`);
  }

  const instances: Instance[] = Array.from({ length: count }, (_, i) => {
    const app = corpus[i % corpus.length]!;
    const copy = Math.floor(i / corpus.length) + 1;
    const objects = instantiate(app, copy);
    const { awaited } = awaitedOf(objects);
    return { id: `${app.name}-${copy}`, template: app.name, objects, awaited, floorMs: Math.max(0, ...awaited.map((a) => a.floorMs)) };
  });
  const totalObjects = instances.reduce((n, a) => n + a.objects.length, 0);
  const totalAwaited = instances.reduce((n, a) => n + a.awaited.length, 0);

  let fleet: ProcessFleet | undefined;
  let figures: Figure[] = [];
  let fleetApply: { perApp: number[]; totalMs: number; desc: string; machine: string } | undefined;
  const watches: { stop(): void }[] = [];
  let sampler: NodeJS.Timeout | undefined;
  try {
    fleet = await startFleet({
      name: 'bench-workloads',
      // ATRIUM_BENCH_WORKLOADS_ATRIUM_ARGS: more `atrium start` flags (e.g. --no-controllers-thread, for an A/B).
      processes: { atriumArgs: (process.env.ATRIUM_BENCH_WORKLOADS_ATRIUM_ARGS ?? '').split(' ').filter(Boolean) },
      clusters: Array.from({ length: CLUSTERS }, (_, i) => ({ name: `cluster-${i + 1}`, nodes: NODES_PER_CLUSTER, nodeCapacity: NODE_CAPACITY, readyDelayMs: READY_DELAY_MS, jobDurationMs: JOB_DURATION_MS })),
      workspace: WORKSPACE,
      bindCompute: true,
      waitReady: { resources: ['deployments', 'statefulsets', 'daemonsets', 'jobs', 'cronjobs', 'replicationcontrollers', 'pods', 'services', 'persistentvolumeclaims', 'configmaps', 'secrets', 'serviceaccounts', 'horizontalpodautoscalers', 'poddisruptionbudgets', 'ingresses', 'networkpolicies'], timeoutMs: 120_000 },
    });
    const f = fleet;
    const up = f.up;
    const ws = f.workspace.cluster;
    const atriumPid = f.atrium.child!.pid!;
    const clusterPids = f.clusters.map((c) => c.proc!.child!.pid!);

    // Readiness: the first moment each awaited object is seen ready upstream.
    // Per awaited object, for the phase breakdown: when its apply was answered, when atrium placed it (a Deployment:
    // its first split child appeared; others: the Scheduled condition turned True), and for a Deployment when its
    // children (synced up from the clusters) were all ready, before the splitter folded that onto the root.
    const byKey = new Map<string, { a: Awaited; inst: Instance; readyAt?: number; last?: any; appliedAt?: number; placedAt?: number; childrenReadyAt?: number; children?: Map<string, any> }>();
    for (const inst of instances) for (const a of inst.awaited) byKey.set(a.key, { a, inst });
    let pendingApps = instances.length;
    let allReady!: () => void;
    const allReadyP = new Promise<void>((r) => (allReady = r));
    const seen = (o: KubeObject) => {
      const splitFrom = o.metadata?.labels?.[SPLIT_FROM_LABEL];
      if (o.kind === 'Deployment' && splitFrom !== undefined) return seenChild(o, splitFrom);
      const e = byKey.get(keyOf(o.kind ?? '', o.metadata?.namespace ?? '', o.metadata?.name ?? ''));
      if (!e) return;
      e.last = o;
      if (e.placedAt === undefined && e.a.kind !== 'Deployment' && scheduledTrue(o)) e.placedAt = performance.now();
      if (e.readyAt !== undefined || e.inst.startedAt === undefined || e.a.ready(o) !== true) return;
      e.readyAt = performance.now();
      if (e.inst.awaited.every((a) => byKey.get(a.key)!.readyAt !== undefined) && e.inst.appliedAt !== undefined) finish(e.inst);
    };
    const seenChild = (child: KubeObject, root: string) => {
      const e = byKey.get(keyOf('Deployment', child.metadata?.namespace ?? '', root));
      if (!e || e.inst.startedAt === undefined) return;
      e.placedAt ??= performance.now();
      (e.children ??= new Map()).set(child.metadata!.name!, child);
      const want = (e.last as any)?.spec?.replicas;
      const ready = [...e.children.values()].reduce((n, c: any) => n + (c.status?.readyReplicas ?? 0), 0);
      if (e.childrenReadyAt === undefined && want !== undefined && ready >= want) e.childrenReadyAt = performance.now();
    };
    const finish = (inst: Instance) => {
      if (inst.readyAt !== undefined) return;
      inst.readyAt = Math.max(inst.appliedAt!, ...inst.awaited.map((a) => byKey.get(a.key)!.readyAt!));
      if (--pendingApps === 0) allReady();
    };
    await new Promise((r) => setTimeout(r, settleMs));
    // When the scheduler placed each app namespace (SPLIT_NAMESPACE_ANNOTATION), for the phase breakdown.
    const namespacePlacedAt = new Map<string, number>();
    const namespaceAppliedAt = new Map<string, number>();
    const nsWatch = watchKind(up, ws, { group: '', version: 'v1', resource: 'namespaces' }, (n) => {
      if (n.metadata?.annotations?.[SPLIT_NAMESPACE_ANNOTATION] === 'true' && !namespacePlacedAt.has(n.metadata.name!)) namespacePlacedAt.set(n.metadata.name!, performance.now());
    });
    watches.push(nsWatch);
    await bounded(nsWatch.started, 30_000, 'the watch of namespaces in the workspace did not start');
    // Objects are not listed before the apply starts (kind fields are missing from list items): set kind on them.
    for (const [kind, gvr] of Object.entries(watchedKinds)) {
      const w = watchKind(up, ws, gvr, (o) => seen({ ...o, kind }));
      watches.push(w);
      await bounded(w.started, 30_000, `the watch of ${gvr.resource} in the workspace did not start`);
    }

    // Usage: CPU and RSS of every process sampled every 250 ms; the window ends at the first sample after the last app
    // that got ready did, so the figures are for the work, not for waiting on apps that never get ready.
    interface Sample { t: number; atriumCpu: number; clustersCpu: number; atriumRss: number; clustersRss: number; selfCpu: number }
    const sample = (): Sample => {
      const self = process.cpuUsage();
      return { t: performance.now(), atriumCpu: cpuSeconds(atriumPid), clustersCpu: clusterPids.reduce((n, p) => n + cpuSeconds(p), 0), atriumRss: rssBytes(atriumPid), clustersRss: clusterPids.reduce((n, p) => n + rssBytes(p), 0), selfCpu: (self.user + self.system) / 1e6 };
    };
    const samples: Sample[] = [sample()];
    sampler = setInterval(() => {
      try {
        samples.push(sample());
      } catch {
        // a process that exited shows in the readiness outcome
      }
    }, 250);

    const loadBefore = loadavg();
    // Apply all instances at once; each applies its objects in order, as kubectl does.
    const t0 = performance.now();
    const applyErrors: string[] = [];
    const applies = instances.map(async (inst) => {
      inst.startedAt = performance.now();
      try {
        for (const o of inst.objects) {
          await applyObject(up, ws, o);
          if (o.kind === 'Namespace') namespaceAppliedAt.set(o.metadata.name, performance.now());
          const e = namespaceOf(o) ? byKey.get(keyOf(o.kind, namespaceOf(o)!, o.metadata.name)) : undefined;
          if (e) e.appliedAt = performance.now();
        }
      } catch (err) {
        applyErrors.push(`${inst.id}: ${(err as Error).message}`);
        return;
      }
      inst.appliedAt = performance.now();
      // Objects seen ready before the last apply of the app was answered count from their events.
      if (inst.awaited.every((a) => byKey.get(a.key)!.readyAt !== undefined)) finish(inst);
    });
    await Promise.all(applies);
    const applySeconds = (performance.now() - t0) / 1000;
    const outcome = { timedOut: false };
    if (!applyErrors.length) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([allReadyP, new Promise<void>((r) => (timer = setTimeout(() => ((outcome.timedOut = true), r()), Math.max(0, timeoutMs - (performance.now() - t0)))))]);
      clearTimeout(timer);
    }
    const timedOut = outcome.timedOut;
    samples.push(sample());
    clearInterval(sampler);
    sampler = undefined;
    // The window ends with the last app that got ready: apps that never do are stuck, not working.
    const readyTimes = instances.filter((i) => i.readyAt !== undefined).map((i) => i.readyAt!);
    const lastReady = readyTimes.length ? Math.max(...readyTimes) : Infinity;
    const end = samples.find((x) => x.t >= lastReady) ?? samples.at(-1)!;
    const inWindow = samples.filter((x) => x.t <= end.t);
    const windowSeconds = (end.t - samples[0]!.t) / 1000;
    const atriumCpu = end.atriumCpu - samples[0]!.atriumCpu;
    const clustersCpu = end.clustersCpu - samples[0]!.clustersCpu;
    const selfCpu = end.selfCpu - samples[0]!.selfCpu;
    const peakAtriumRss = Math.max(...inWindow.map((x) => x.atriumRss));
    const peakClustersRss = Math.max(...inWindow.map((x) => x.clustersRss));
    const startRss = { atrium: samples[0]!.atriumRss, clusters: samples[0]!.clustersRss };

    if (applyErrors.length || timedOut) {
      const lines: string[] = [];
      if (applyErrors.length) lines.push(`apply failed for ${applyErrors.length} app(s):`, ...applyErrors.map((e) => `  ${e}`));
      if (timedOut) {
        lines.push(`gave up ${(timeoutMs / 1000).toFixed(0)} s after the applies started: ${pendingApps} of ${instances.length} apps not ready:`);
        for (const inst of instances) {
          if (inst.readyAt !== undefined) continue;
          const missing = inst.awaited.map((a) => byKey.get(a.key)!).filter((e) => e.readyAt === undefined);
          lines.push(`  ${inst.id}${inst.appliedAt === undefined ? ' (apply not finished)' : ''}: ${missing.map((e) => `${e.a.kind} ${e.a.namespace}/${e.a.name}: ${e.last ? e.a.ready(e.last) : 'never seen upstream'}`).join('; ')}`);
        }
      }
      console.error(`workloads: ${lines.join('\n')}`);
    }

    const done = instances.filter((i) => i.readyAt !== undefined);
    const toReady = done.map((i) => i.readyAt! - i.startedAt!);
    const added = done.map((i) => i.readyAt! - i.startedAt! - i.floorMs);
    const applyMs = instances.filter((i) => i.appliedAt !== undefined).map((i) => i.appliedAt! - i.startedAt!);
    const ok = done.length === instances.length;
    // An app never ready counts as the whole timeout.
    const p99 = percentile([...added, ...instances.filter((i) => i.readyAt === undefined).map(() => timeoutMs)], 99);
    const p50 = added.length ? percentile(added, 50) : NaN;
    const slowest = [...done].sort((a, b) => b.readyAt! - b.startedAt! - b.floorMs - (a.readyAt! - a.startedAt! - a.floorMs)).slice(0, 3);
    const lastObject = (inst: Instance) => {
      const e = inst.awaited.map((a) => byKey.get(a.key)!).sort((x, y) => y.readyAt! - x.readyAt!)[0];
      return e ? `${e.a.kind} ${e.a.name} ready at ${((e.readyAt! - inst.startedAt!) / 1000).toFixed(2)} s` : 'nothing awaited';
    };
    // Where the time goes, per awaited workload (ms; p50 / p99 / max over those that reached both ends).
    const phase = (name: string, pick: (e: NonNullable<ReturnType<typeof byKey.get>>) => number | undefined) => {
      const xs = [...byKey.values()].map(pick).filter((x): x is number => x !== undefined && Number.isFinite(x));
      return xs.length ? `${name} ${percentile(xs, 50).toFixed(0)} / ${percentile(xs, 99).toFixed(0)} / ${Math.max(...xs).toFixed(0)} (${xs.length})` : `${name} -`;
    };
    const live = (e: { a: Awaited }) => e.a.kind !== 'PersistentVolumeClaim' && e.a.kind !== 'Service';
    const nsPlaced = [...namespaceAppliedAt].filter(([n]) => namespacePlacedAt.has(n)).map(([n, t]) => namespacePlacedAt.get(n)! - t);
    console.log(`workloads: phases, ms p50 / p99 / max (count): ${[
      nsPlaced.length ? `namespace applied → placed by the scheduler ${percentile(nsPlaced, 50).toFixed(0)} / ${percentile(nsPlaced, 99).toFixed(0)} / ${Math.max(...nsPlaced).toFixed(0)} (${nsPlaced.length})` : 'namespace applied → placed -',
      phase('app start → object applied', (e) => (e.appliedAt !== undefined ? e.appliedAt - e.inst.startedAt! : undefined)),
      // The pipeline alone, without the wait for the app's own earlier applies: each workload from its apply answered.
      phase('awaited object: applied → ready upstream, minus its floor', (e) => (e.appliedAt !== undefined && e.readyAt !== undefined ? Math.max(0, e.readyAt - e.appliedAt - e.a.floorMs) : undefined)),
      phase('Deployments: applied → split', (e) => (e.a.kind === 'Deployment' && e.placedAt !== undefined && e.appliedAt !== undefined ? e.placedAt - e.appliedAt : undefined)),
      phase('other workloads: applied → placed', (e) => (live(e) && e.a.kind !== 'Deployment' && e.placedAt !== undefined && e.appliedAt !== undefined ? e.placedAt - e.appliedAt : undefined)),
      phase('placed → ready upstream, minus its floor', (e) => (live(e) && e.placedAt !== undefined && e.readyAt !== undefined ? e.readyAt - e.placedAt - e.a.floorMs : undefined)),
      phase('Deployments: placed → children ready upstream, minus RD', (e) => (e.childrenReadyAt !== undefined && e.placedAt !== undefined ? e.childrenReadyAt - e.placedAt - e.a.floorMs : undefined)),
      phase('Deployments: children ready → root ready', (e) => (e.childrenReadyAt !== undefined && e.readyAt !== undefined ? e.readyAt - e.childrenReadyAt : undefined)),
    ].join('; ')}`);
    for (const inst of slowest) console.log(`workloads: slow: ${inst.id}: ready ${((inst.readyAt! - inst.startedAt!) / 1000).toFixed(2)} s after its apply started (apply took ${((inst.appliedAt! - inst.startedAt!) / 1000).toFixed(2)} s; floor ${inst.floorMs} ms); last: ${lastObject(inst)}`);
    const mib = (b: number) => b / 2 ** 20;
    const fleetDesc = `${count} apps (${totalObjects} objects, ${totalAwaited} awaited) applied at once over ${CLUSTERS} simulated clusters (processes, push syncers, bind compute)`;
    const machine = `${cpus().length} cores, load average ${loadBefore.map((l) => l.toFixed(1)).join('/')} before the run`;
    fleetApply = { perApp: applyMs, totalMs: applySeconds * 1000, desc: fleetDesc, machine };
    figures = [
      {
        benchmark: `workloads: ${fleetDesc}`,
        metric: 'p99 time from apply to every workload ready upstream, minus the simulated delays',
        value: p99,
        unit: 'ms',
        reference: `${BUDGET_MS} ms budget; ${ok ? '' : `${instances.length - done.length} apps never ready (counted as the ${timeoutMs / 1000} s timeout); over the ${done.length} ready: added p99 ${added.length ? percentile(added, 99).toFixed(0) : '-'} ms, `}added p50 ${p50.toFixed(0)} ms; time to ready p50 ${toReady.length ? percentile(toReady, 50).toFixed(0) : '-'} ms p99 ${toReady.length ? percentile(toReady, 99).toFixed(0) : '-'} ms; app floors ${Math.min(...instances.map((i) => i.floorMs))}–${Math.max(...instances.map((i) => i.floorMs))} ms (RD ${READY_DELAY_MS} ms, job ${JOB_DURATION_MS} ms); apply of one app p50 ${applyMs.length ? percentile(applyMs, 50).toFixed(0) : '-'} ms p99 ${applyMs.length ? percentile(applyMs, 99).toFixed(0) : '-'} ms, all applied after ${applySeconds.toFixed(1)} s; ${done.length}/${instances.length} ready; ${machine}`,
        referenceValue: BUDGET_MS,
        ratio: p99 / BUDGET_MS,
        target: '≤ 1.00',
        pass: ok && p99 <= BUDGET_MS,
      },
      {
        benchmark: `workloads: ${fleetDesc}`,
        metric: `atrium CPU over the ${windowSeconds.toFixed(1)} s from the first apply to the last app ready`,
        value: atriumCpu * 1000,
        unit: 'ms CPU',
        reference: `the ${CLUSTERS} clusters' summed CPU, same window: ${clustersCpu.toFixed(1)} s; atrium ${atriumCpu.toFixed(1)} s = ${((atriumCpu / windowSeconds) * 100).toFixed(0)}% of one core; the bench client ${selfCpu.toFixed(1)} s; all together ${(atriumCpu + clustersCpu + selfCpu).toFixed(1)} s of CPU = ${((atriumCpu + clustersCpu + selfCpu) / cpus().length).toFixed(1)} s of wall time on all ${cpus().length} cores; ${machine}`,
        referenceValue: clustersCpu * 1000,
        ratio: atriumCpu / clustersCpu,
      },
      {
        benchmark: `workloads: ${fleetDesc}`,
        metric: 'atrium peak RSS during the run',
        value: mib(peakAtriumRss),
        unit: 'MiB',
        reference: `the ${CLUSTERS} clusters' summed peak RSS: ${mib(peakClustersRss).toFixed(0)} MiB (before the apply: atrium ${mib(startRss.atrium).toFixed(0)} MiB, clusters ${mib(startRss.clusters).toFixed(0)} MiB)`,
        referenceValue: mib(peakClustersRss),
        ratio: peakAtriumRss / peakClustersRss,
      },
    ];
  } finally {
    if (sampler) clearInterval(sampler);
    for (const w of watches) w.stop();
    if (fleet) await stopFleet(fleet);
  }
  // The reference, once the fleet is gone: the same applies alone against kube-apiserver (workloads-kube-reference.ts).
  const kube = process.env.ATRIUM_BENCH_WORKLOADS_KUBE === '0' ? undefined : await applyToKubeApiserver((client) => applyInstances(client, '', instances));
  if (kube && fleetApply) {
    const fleetP99 = percentile(fleetApply.perApp, 99);
    const kubeP99 = percentile(kube.perApp, 99);
    figures.push({
      benchmark: `workloads: ${fleetApply.desc}`,
      metric: 'the applies alone: apply of one app p99 (first apply sent → last answered) in the fleet run',
      value: fleetP99,
      unit: 'ms',
      reference: `the same ${instances.length} apps' applies against kube-apiserver v1.32.4 + etcd 3.5.16 alone (no controllers, no clusters, the fleet stopped): apply of one app p50 ${percentile(kube.perApp, 50).toFixed(0)} ms p99 ${kubeP99.toFixed(0)} ms, all applied after ${(kube.totalMs / 1000).toFixed(1)} s; in the fleet run p50 ${percentile(fleetApply.perApp, 50).toFixed(0)} ms, all applied after ${(fleetApply.totalMs / 1000).toFixed(1)} s; ${fleetApply.machine}`,
      referenceValue: kubeP99,
      ratio: fleetP99 / kubeP99,
    });
  }
  return figures;
}

/** Stops every process of the fleet (SIGKILL after 30 s) and removes its temp dir. */
async function stopFleet(fleet: ProcessFleet): Promise<void> {
  const procs = [fleet.atrium, ...fleet.clusters.map((c) => c.proc!)];
  // ATRIUM_BENCH_WORKLOADS_LOGS=<dir>: every process's output kept there (<name>.log), for diagnosis.
  const logs = process.env.ATRIUM_BENCH_WORKLOADS_LOGS;
  if (logs) {
    mkdirSync(logs, { recursive: true });
    for (const p of procs) writeFileSync(join(logs, `${p.name}.log`), p.output);
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([fleet.stop().catch(() => undefined), new Promise((r) => (timer = setTimeout(r, 30_000)))]);
  clearTimeout(timer);
  for (const p of procs) if (p.child && p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  rmSync(fleet.dir, { recursive: true, force: true });
}

if (process.argv[1]?.endsWith('workloads.js')) {
  const { printFigure } = await import('./lib.js');
  let failed = false;
  for (const f of await runWorkloadBenchmarks()) {
    printFigure(f);
    if (f.pass === false) failed = true;
  }
  process.exit(failed ? 1 : 0);
}
