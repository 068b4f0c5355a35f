/**
 * The proof of "every workload kind just works": the app corpus under test/e2e/apps (one directory per app, as
 * `kubectl apply -f` takes it; ATRIUM_E2E_APPS_DIR points the suite at another such directory, e.g. public example
 * apps) applied with the real kubectl to a workspace with compute, as a user of one cluster would.
 *
 * The fleet: `atrium start` and two `atrium pcluster` processes (3 nodes of 8 CPU / 32 GiB each, pods ready 200 ms
 * after scheduling), registered as SyncTargets of root:apps in push mode, compute bound (`bind compute`).
 *
 * For every app, concurrently: `kubectl apply -f <dir>` exits 0 and names every object; every workload becomes ready
 * upstream as kubectl judges it (`rollout status` for Deployments, StatefulSets and DaemonSets — a DaemonSet on every
 * node of the fleet —, `wait --for=condition=complete` for Jobs and for a Job created from each CronJob, Bound for
 * PVCs and StatefulSet claims, ready replicas for ReplicationControllers, Ready for bare Pods (Succeeded for one that runs to completion), an address for
 * LoadBalancer Services, the disruption verdict for PDBs, current replicas for HPAs); every namespaced object of a
 * placed kind reaches a cluster; a second `kubectl apply -f` reports each object "unchanged" as kube-apiserver would
 * (but for the few kubectl always patches, alwaysPatchedByApply) and bumps no generation. Then, as on one cluster:
 * `kubectl get -f` and `kubectl describe -f` work, `kubectl get all` and `kubectl get deploy` show every workload with
 * its readiness columns, `kubectl scale` (Deployment, StatefulSet, ReplicationController), `kubectl
 * rollout restart` (the restarted pods run on the clusters) and `kubectl rollout undo` after `kubectl set image`
 * (Deployment, StatefulSet, DaemonSet; the old image runs on the clusters again). Last, `kubectl delete -f` of every
 * app removes every object upstream and its copies on the clusters.
 *
 * Every failure names the app, the object and the step, and prints the upstream status, sync annotations and events
 * and what each cluster holds (copies, their status, their pods, events).
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import YAML from 'yaml';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { startFleet, type ProcessFleet } from '../helpers/fleet.js';
import { eventually } from '../helpers/eventually.js';
import {
  alwaysPatchedByApply,
  assertReady,
  categoryAll,
  describeRef,
  diagnose,
  downstreamCopies,
  downstreamNamespace,
  gvr,
  jobComplete,
  kubectl,
  kubectlName,
  namespaceOf,
  placedKinds,
  readApps,
  readinessChecks,
  replicaRange,
  inRange,
  selectorString,
  tables,
  upstream,
  type App,
  type Manifest,
  type Target,
} from './support/workloads.js';

const appsRoot = process.env.ATRIUM_E2E_APPS_DIR ? resolve(process.env.ATRIUM_E2E_APPS_DIR) : resolve(import.meta.dirname, '..', '..', '..', 'test', 'e2e', 'apps');
const apps: App[] = readApps(appsRoot);

const CLUSTERS = ['cluster-1', 'cluster-2'];
const NODES_PER_CLUSTER = 3;
const NODES = CLUSTERS.length * NODES_PER_CLUSTER;
/** How long one object may take to become ready after its app was applied (all apps are applied at once). */
const READY_TIMEOUT_MS = 120_000;
/** How long a step after a kubectl verb (scale, restart, undo) may take to settle. */
const SETTLE_TIMEOUT_MS = 60_000;

const key = (o: { kind?: string; metadata: { name: string } }, ns?: string) => `${o.kind}/${ns ?? ''}/${o.metadata.name}`;
/** Another tag of the same image, for `kubectl set image` on an object of another corpus. */
const otherImage = (image: string) => {
  const base = image.split('@')[0]!;
  return /:[^/]*$/.test(base) ? `${base}-next` : `${base}:next`;
};

describe('every workload kind just works: the app corpus on a workspace with compute', { timeout: 900_000 }, () => {
  let fleet: ProcessFleet;
  let t: Target;
  /** Objects that became ready after their app was applied, by kind/namespace/name: the preconditions of the kubectl verbs below. */
  const readyAfterApply = new Map<string, boolean>();

  const ok = async (args: string[], what = `kubectl ${args.join(' ')}`) => {
    const r = await kubectl(t, args);
    assert.equal(r.code, 0, `${what} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    return r.stdout;
  };
  /**
   * The object a kubectl verb works on: `name` of `app` in this corpus, else the first namespaced object of `kind` in
   * the corpus; when the corpus has none the test says so and is skipped (never silently).
   */
  const target = (tt: TestContext, kind: string, app: string, name: string): Manifest | undefined => {
    const all = apps.flatMap((a) => a.objects.filter((o) => o.kind === kind && namespaceOf(o)).map((o) => ({ app: a.name, o })));
    const found = all.find((x) => x.app === app && x.o.metadata.name === name) ?? all[0];
    if (!found) tt.skip(`the corpus under ${appsRoot} has no ${kind}`);
    return found?.o;
  };
  /** Fails at once (instead of timing out again) when the object never became ready after kubectl apply. */
  const precondition = (o: Manifest) => {
    assert.ok(readyAfterApply.get(key(o, namespaceOf(o))), `precondition: ${describeRef(o)} never became ready after kubectl apply (see that test's failure above), so this step cannot be checked`);
  };
  /** The pods of `o` (by its selector) on every cluster, not terminating. */
  const podsOnClusters = async (o: Manifest) => {
    const ns = namespaceOf(o)!;
    const out: { cluster: string; pod: any }[] = [];
    for (const d of t.downstream) {
      const dns = await downstreamNamespace(t, d.client, ns);
      if (!dns) continue;
      const list = await d.client.list(gvr('Pod'), { namespace: dns }, { labelSelector: selectorString(o.spec.selector) });
      for (const pod of list.items as any[]) if (!pod.metadata.deletionTimestamp) out.push({ cluster: d.name, pod });
    }
    return out;
  };
  const waitRolledOut = async (kind: string, o: Manifest) => {
    const ns = namespaceOf(o)!;
    const r = await kubectl(t, ['rollout', 'status', `${kind}/${o.metadata.name}`, '-n', ns, `--timeout=${SETTLE_TIMEOUT_MS / 1000}s`]);
    if (r.code !== 0) assert.fail(`kubectl rollout status ${kind}/${o.metadata.name} -n ${ns} exited ${r.code}: ${r.stdout}${r.stderr}\n${await diagnose(t, o)}`);
  };
  /** Every running pod of `o` on the clusters satisfies `pred`, and there are `count` of them. */
  const podsOnClustersSatisfy = async (o: Manifest, count: number, what: string, pred: (pod: any) => boolean) => {
    let seen = '';
    await eventually(`${describeRef(o)}: ${count} pods on the clusters ${what}`, async () => {
      const pods = await podsOnClusters(o);
      seen = pods.map(({ cluster, pod }) => `${cluster}:${pod.metadata.name}${pred(pod) ? '' : ' (not yet)'}`).join(', ');
      return pods.length === count && pods.every(({ pod }) => pred(pod));
    }, SETTLE_TIMEOUT_MS, 1000).catch(async (e: Error) => assert.fail(`${e.message.split(';')[0]}; pods seen: ${seen || 'none'}\n${await diagnose(t, o)}`));
  };

  before(async () => {
    assert.ok(apps.length > 0, `no apps under ${appsRoot}`);
    const node = { nodes: NODES_PER_CLUSTER, nodeCapacity: { cpu: '8', memory: '32Gi', pods: '110' }, readyDelayMs: 200 };
    fleet = await startFleet({
      name: 'apps',
      processes: {},
      clusters: CLUSTERS.map((name) => ({ name, ...node })),
      workspace: 'root:apps',
      bindCompute: true,
      waitReady: { resources: ['deployments'], timeoutMs: 60_000 },
    });
    // The admin kubeconfig pointed into the workspace, as `kubectl ws root:apps` leaves it.
    const kc = YAML.parse(readFileSync(fleet.kubeconfig, 'utf8')) as { clusters: { cluster: { server: string } }[] };
    for (const c of kc.clusters) c.cluster.server = `${new URL(c.cluster.server).origin}/clusters/${fleet.workspace.path}`;
    const kubeconfig = join(fleet.dir, 'apps.kubeconfig');
    writeFileSync(kubeconfig, YAML.stringify(kc));
    t = { kubeconfig, up: fleet.up, cluster: fleet.workspace.cluster, downstream: fleet.clusters.map((c) => ({ name: c.name, client: c.client })) };
    // kubectl apply right after bind compute: the workload types are served (bind compute waited for them).
    const r = await kubectl(t, ['api-resources', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
  });

  after(async () => {
    await fleet?.stop();
  });

  describe('kubectl apply -f <app>: every object accepted, every workload ready, every object on a cluster', { concurrency: true }, () => {
    for (const app of apps) {
      it(app.name, { concurrency: true }, async (tt) => {
        await tt.test('kubectl apply -f exits 0 and names every object', async () => {
          const r = await kubectl(t, ['apply', '-f', app.dir]);
          const missing = app.objects.filter((o) => !new RegExp(`^${kubectlName(o).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} (created|configured|unchanged)`, 'm').test(r.stdout));
          assert.ok(r.code === 0 && missing.length === 0, `kubectl apply -f ${app.dir} exited ${r.code}${missing.length ? `; not applied: ${missing.map(kubectlName).join(', ')}` : ''}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
        });

        const checks = app.objects.flatMap((o) => (namespaceOf(o) ? readinessChecks(o, app.objects, NODES) : []));
        const cronJobs = app.objects.filter((o) => o.kind === 'CronJob');
        await Promise.all([
          ...checks.map((c) =>
            tt.test(c.title, async () => {
              await assertReady(t, c, READY_TIMEOUT_MS);
              readyAfterApply.set(key(c.object, namespaceOf(c.object)), true);
            }),
          ),
          ...cronJobs.map((cj) =>
            tt.test(`cronjob ${namespaceOf(cj)}/${cj.metadata.name}: kubectl create job --from=cronjob, and that Job completes`, async () => {
              const ns = namespaceOf(cj)!;
              const job = `${cj.metadata.name}-manual`;
              const out = await ok(['create', 'job', job, `--from=cronjob/${cj.metadata.name}`, '-n', ns]);
              assert.equal(out.trim(), `job.batch/${job} created`);
              const created = await upstream(t, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: job, namespace: ns } } as Manifest);
              assert.equal(created?.metadata?.ownerReferences?.[0]?.name, cj.metadata.name, 'the Job is owned by its CronJob, as kubectl sets it');
              await assertReady(t, jobComplete({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: job, namespace: ns } } as Manifest), READY_TIMEOUT_MS);
            }),
          ),
        ]);

        const placed = app.objects.filter((o) => namespaceOf(o) && placedKinds.has(o.kind!));
        await tt.test(`every namespaced object of a placed kind is on a cluster (${[...new Set(placed.map((o) => o.kind))].join(', ')})`, async () => {
          let missing: Manifest[] = placed;
          await eventually('every object on a cluster', async () => {
            const still: Manifest[] = [];
            for (const o of missing) {
              let found = false;
              for (const d of t.downstream) if ((await downstreamCopies(t, d.client, o)).copies.length) found = true;
              if (!found) still.push(o);
            }
            missing = still;
            return missing.length === 0;
          }, 20_000, 1000).catch(() => undefined);
          assert.equal(missing.length, 0, `on no cluster: ${missing.map(describeRef).join(', ')}`);
        });

        await tt.test('kubectl apply -f again: unchanged as on one cluster, no new generation', async () => {
          const generations = async () => new Map(await Promise.all(app.objects.map(async (o) => [kubectlName(o), (await upstream(t, o))?.metadata?.generation] as const)));
          const before = await generations();
          const r = await kubectl(t, ['apply', '-f', app.dir]);
          assert.equal(r.code, 0, `kubectl apply -f ${app.dir} (again) exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
          const after = await generations();
          const problems = [...before].filter(([name, g]) => after.get(name) !== g).map(([name, g]) => `${name}: generation ${g} → ${after.get(name)} (a rollout nobody asked for)`);
          for (const o of app.objects) {
            const line = r.stdout.split('\n').find((l) => l.startsWith(`${kubectlName(o)} `));
            const want = alwaysPatchedByApply(o) ? 'configured' : 'unchanged';
            if (line !== `${kubectlName(o)} ${want}`) problems.push(`${line ?? `${kubectlName(o)}: not in the output`}, kube-apiserver answers "${want}"${alwaysPatchedByApply(o) ? ` (${alwaysPatchedByApply(o)})` : ''}`);
          }
          assert.ok(problems.length === 0, `a second kubectl apply of the unchanged manifests:\n${problems.join('\n')}`);
        });
      });
    }
  });

  describe('kubectl on the workspace behaves as on one cluster', () => {
    it('no pod was refused for something its app applied beside it: no FailedCreate "not found" on the workspace or a cluster', async () => {
      // On one cluster `kubectl apply -f <app>` makes a ServiceAccount (ConfigMap, Secret, claim) before the workload
      // naming it, so its first pods are admitted. Placed from where their workloads run, those followers reached a
      // cluster after the workload: every first pod was refused (`error looking up service account`), the cluster's
      // controllers backed off, and FailedCreate warnings showed upstream (syncer/dependency-gate.ts).
      const refused = (items: KubeObject[], where: string) =>
        items
          .filter((e) => /not found/.test(String((e as { message?: unknown }).message)))
          .map((e) => `${where}: ${e.metadata?.namespace}/${(e as { involvedObject?: { name?: string } }).involvedObject?.name}: ${(e as { message?: unknown }).message}`);
      const problems: string[] = [];
      const up = await kubectl(t, ['get', 'events', '-A', '--field-selector', 'reason=FailedCreate', '-o', 'json']);
      assert.equal(up.code, 0, up.stderr);
      problems.push(...refused((JSON.parse(up.stdout) as { items: KubeObject[] }).items, 'workspace'));
      for (const d of t.downstream) problems.push(...refused((await d.client.list(gvr('Event'), {}, { fieldSelector: 'reason=FailedCreate' })).items, d.name));
      assert.deepEqual(problems, []);
    });

    it('kubectl get all lists every workload of every app with its readiness columns', async () => {
      const problems: string[] = [];
      for (const app of apps) {
        const byNs = new Map<string, Manifest[]>();
        for (const o of app.objects) if (namespaceOf(o) && categoryAll.has(o.kind!)) byNs.set(namespaceOf(o)!, [...(byNs.get(namespaceOf(o)!) ?? []), o]);
        for (const [ns, objects] of byNs) {
          const names = await kubectl(t, ['get', 'all', '-n', ns, '-o', 'name']);
          if (names.code !== 0) {
            problems.push(`${app.name}: kubectl get all -n ${ns} -o name exited ${names.code}: ${names.stderr}`);
            continue;
          }
          const listed = new Set(names.stdout.split('\n').filter(Boolean));
          for (const o of objects) if (!listed.has(kubectlName(o))) problems.push(`${app.name}: kubectl get all -n ${ns} does not list ${kubectlName(o)}`);
          const table = await kubectl(t, ['get', 'all', '-n', ns]);
          if (table.code !== 0 || /error/i.test(table.stderr)) {
            problems.push(`${app.name}: kubectl get all -n ${ns} exited ${table.code}: ${table.stderr}`);
            continue;
          }
          const rows = new Map(tables(table.stdout).flatMap((tb) => tb.rows.map((r) => [r.NAME!, r] as const)));
          for (const o of objects) {
            const row = rows.get(kubectlName(o));
            if (!row) continue;
            // What the workload runs now when an HPA may have rescaled it (within the HPA's range), else its manifest's replicas.
            const range = replicaRange(app.objects, o);
            const shown = Number((o.kind === 'ReplicationController' ? row.DESIRED : row.READY?.split('/')[1]) ?? NaN);
            const replicas = range[0] !== range[1] && inRange(shown, range) ? shown : range[0];
            const want: Record<string, string> | undefined =
              o.kind === 'Deployment' || o.kind === 'StatefulSet' ? { READY: `${replicas}/${replicas}` }
              : o.kind === 'DaemonSet' ? { DESIRED: `${NODES}`, CURRENT: `${NODES}`, READY: `${NODES}`, AVAILABLE: `${NODES}` }
              : o.kind === 'ReplicationController' ? { DESIRED: `${replicas}`, READY: `${replicas}` }
              : o.kind === 'Job' ? { STATUS: 'Complete', COMPLETIONS: `${o.spec?.completions ?? 1}/${o.spec?.completions ?? 1}` }
              : undefined;
            for (const [col, v] of Object.entries(want ?? {})) if (row[col] !== v) problems.push(`${app.name}: kubectl get all -n ${ns}: ${kubectlName(o)} ${col} is ${row[col] ?? '<no column>'}, want ${v}`);
          }
        }
      }
      assert.ok(problems.length === 0, `${problems.length} problems:\n${problems.join('\n')}`);
    });

    it('kubectl get -f and kubectl describe -f work on every app', async () => {
      const problems: string[] = [];
      for (const app of apps) {
        const got = await kubectl(t, ['get', '-f', app.dir, '-o', 'name']);
        if (got.code !== 0) problems.push(`${app.name}: kubectl get -f exited ${got.code}: ${got.stderr.trim()}`);
        else for (const o of app.objects) if (!got.stdout.split('\n').includes(kubectlName(o))) problems.push(`${app.name}: kubectl get -f does not list ${kubectlName(o)}`);
        const described = await kubectl(t, ['describe', '-f', app.dir]);
        const sections = described.stdout.split('\n').filter((l) => /^Name:\s/.test(l)).length;
        if (described.code !== 0 || described.stderr.trim() || sections !== app.objects.length) problems.push(`${app.name}: kubectl describe -f exited ${described.code} with ${sections} of ${app.objects.length} objects described${described.stderr.trim() ? `: ${described.stderr.trim()}` : ''}`);
      }
      assert.ok(problems.length === 0, `${problems.length} problems:\n${problems.join('\n')}`);
    });

    it('kubectl get deploy -A shows every Deployment of the corpus ready', async () => {
      const rows = tables(await ok(['get', 'deploy', '-A']))[0]?.rows ?? [];
      const problems: string[] = [];
      for (const app of apps) {
        for (const d of app.objects.filter((o) => o.kind === 'Deployment')) {
          const row = rows.find((r) => r.NAMESPACE === namespaceOf(d) && r.NAME === d.metadata.name);
          const range = replicaRange(app.objects, d);
          const shown = Number(row?.READY?.split('/')[1] ?? NaN);
          const n = range[0] !== range[1] && inRange(shown, range) ? shown : range[0];
          if (!row) problems.push(`${app.name}: ${describeRef(d)} not listed`);
          else if (row.READY !== `${n}/${n}` || row['UP-TO-DATE'] !== `${n}` || row.AVAILABLE !== `${n}`) problems.push(`${app.name}: ${describeRef(d)} READY ${row.READY} UP-TO-DATE ${row['UP-TO-DATE']} AVAILABLE ${row.AVAILABLE}, want ${n}/${n} ${n} ${n}`);
        }
      }
      assert.ok(problems.length === 0, `${problems.length} problems:\n${problems.join('\n')}`);
    });

    // The objects the verbs work on: chosen in this corpus (cassandra, with a 30-minute termination grace period, is no
    // restart target), else (another corpus, ATRIUM_E2E_APPS_DIR) the first object of the kind.
    const scales = [
      { kind: 'Deployment', app: 'guestbook', name: 'frontend', more: 2 },
      { kind: 'StatefulSet', app: 'monitoring', name: 'prometheus-k8s', more: 1 },
      { kind: 'ReplicationController', app: 'legacy-rc', name: 'nginx', more: 2 },
    ];
    for (const { kind, app, name, more } of scales) {
      it(`kubectl scale ${kind.toLowerCase()}: more replicas, ready, running on the clusters`, async (tt) => {
        const o = target(tt, kind, app, name);
        if (!o) return;
        precondition(o);
        const ns = namespaceOf(o)!;
        const res = kind.toLowerCase();
        const replicas = (o.spec?.replicas ?? 1) + more;
        assert.equal((await ok(['scale', `${res}/${o.metadata.name}`, `--replicas=${replicas}`, '-n', ns])).trim(), `${kubectlName(o)} scaled`);
        if (kind === 'ReplicationController') {
          const r = await kubectl(t, ['wait', `--for=jsonpath={.status.readyReplicas}=${replicas}`, `${res}/${o.metadata.name}`, '-n', ns, `--timeout=${SETTLE_TIMEOUT_MS / 1000}s`]);
          if (r.code !== 0) assert.fail(`kubectl wait readyReplicas=${replicas} ${res}/${o.metadata.name} exited ${r.code}: ${r.stderr}\n${await diagnose(t, o)}`);
          assert.equal(tables(await ok(['get', res, o.metadata.name, '-n', ns]))[0]!.rows[0]!.READY, `${replicas}`);
        } else {
          await waitRolledOut(res, o);
          assert.equal(tables(await ok(['get', res, o.metadata.name, '-n', ns]))[0]!.rows[0]!.READY, `${replicas}/${replicas}`);
        }
        await podsOnClustersSatisfy(o, replicas, 'running', (p) => p.status?.phase === 'Running');
      });
    }

    const restarts = [
      { kind: 'Deployment', app: 'guestbook', name: 'redis-follower' },
      { kind: 'StatefulSet', app: 'zookeeper', name: 'zk' },
      { kind: 'DaemonSet', app: 'log-agent', name: 'fluent-bit' },
    ];
    for (const { kind, app, name } of restarts) {
      it(`kubectl rollout restart ${kind.toLowerCase()}: the restarted pods run on the clusters`, async (tt) => {
        const o = target(tt, kind, app, name);
        if (!o) return;
        precondition(o);
        const ns = namespaceOf(o)!;
        const res = kind.toLowerCase();
        assert.equal((await ok(['rollout', 'restart', `${res}/${o.metadata.name}`, '-n', ns])).trim(), `${kubectlName(o)} restarted`);
        const current = await upstream(t, o);
        const restartedAt = current?.spec?.template?.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt'];
        assert.ok(restartedAt, 'kubectl set kubectl.kubernetes.io/restartedAt on the pod template');
        await waitRolledOut(res, o);
        const count = kind === 'DaemonSet' ? NODES : (current.spec?.replicas ?? 1);
        await podsOnClustersSatisfy(o, count, `restarted at ${restartedAt}`, (p) => p.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'] === restartedAt && p.status?.phase === 'Running');
      });
    }

    const undos = [
      { kind: 'Deployment', app: 'podinfo', name: 'podinfo', next: 'ghcr.io/stefanprodan/podinfo:6.7.2' },
      { kind: 'StatefulSet', app: 'monitoring', name: 'prometheus-k8s', next: 'quay.io/prometheus/prometheus:v2.55.0' },
      { kind: 'DaemonSet', app: 'monitoring', name: 'node-exporter', next: 'quay.io/prometheus/node-exporter:v1.8.3' },
    ];
    for (const u of undos) {
      it(`kubectl rollout undo ${u.kind.toLowerCase()} after kubectl set image: the previous image runs on the clusters again`, async (tt) => {
        const o = target(tt, u.kind, u.app, u.name);
        if (!o) return;
        precondition(o);
        const ns = namespaceOf(o)!;
        const res = u.kind.toLowerCase();
        const container = o.spec.template.spec.containers[0].name as string;
        const imageOf = (x: any) => (x?.spec?.template?.spec?.containers ?? x?.spec?.containers ?? []).find((c: any) => c.name === container)?.image;
        const first = imageOf(o) as string;
        const next = o.metadata.name === u.name && apps.find((a) => a.name === u.app)?.objects.includes(o) ? u.next : otherImage(first);
        assert.equal((await ok(['set', 'image', `${res}/${o.metadata.name}`, `${container}=${next}`, '-n', ns])).trim(), `${kubectlName(o)} image updated`);
        await waitRolledOut(res, o);
        const count = async () => (u.kind === 'DaemonSet' ? NODES : ((await upstream(t, o))?.spec?.replicas ?? 1));
        await podsOnClustersSatisfy(o, await count(), `running ${next}`, (p) => imageOf(p) === next && p.status?.phase === 'Running');
        const history = await ok(['rollout', 'history', `${res}/${o.metadata.name}`, '-n', ns]);
        assert.ok((tables(history.replace(/^.*\n/, ''))[0]?.rows ?? []).length >= 2, `kubectl rollout history ${res}/${o.metadata.name} lists at least two revisions:\n${history}`);
        const undo = await kubectl(t, ['rollout', 'undo', `${res}/${o.metadata.name}`, '-n', ns]);
        assert.equal(undo.code, 0, `kubectl rollout undo ${res}/${o.metadata.name} -n ${ns} exited ${undo.code}\nstdout: ${undo.stdout}\nstderr: ${undo.stderr}\n${await diagnose(t, o)}`);
        assert.equal(undo.stdout.trim(), `${kubectlName(o)} rolled back`);
        assert.equal(imageOf(await upstream(t, o)), first, 'the template has the previous image again');
        await waitRolledOut(res, o);
        await podsOnClustersSatisfy(o, await count(), `running ${first} again`, (p) => imageOf(p) === first && p.status?.phase === 'Running');
      });
    }
  });

  describe('kubectl delete -f <app>: every object gone, upstream and on the clusters', { concurrency: true }, () => {
    for (const app of apps) {
      it(app.name, async () => {
        const r = await kubectl(t, ['delete', '-f', app.dir, '--wait=true', '--timeout=120s'], 150_000);
        const remaining = async () => {
          const left: string[] = [];
          for (const o of app.objects) {
            if (await upstream(t, o)) left.push(`${describeRef(o)} upstream`);
            if (!namespaceOf(o) || !placedKinds.has(o.kind!)) continue;
            for (const d of t.downstream) if ((await downstreamCopies(t, d.client, o)).copies.length) left.push(`${describeRef(o)} on ${d.name}`);
          }
          return left;
        };
        let left: string[] = [];
        await eventually(`${app.name} gone`, async () => (left = await remaining()).length === 0, 60_000, 1000).catch(() => undefined);
        // An app that ships its Namespace has it deleted first (kubectl goes file by file): the namespace controller may
        // then remove later objects before kubectl reaches them, and kubectl reports those as NotFound and exits 1 —
        // as on Kubernetes. Any other error fails.
        const errors = r.stderr.split('\n').filter((l) => l.trim() && !/^Error from server \(NotFound\): error when deleting /.test(l));
        const shipsNamespace = app.objects.some((o) => o.kind === 'Namespace');
        const exitedWell = r.code === 0 || (shipsNamespace && errors.length === 0);
        assert.ok(exitedWell && left.length === 0, `kubectl delete -f ${app.dir} exited ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}${left.length ? `\nstill there a minute later: ${left.join(', ')}` : ''}`);
      });
    }
  });
});
