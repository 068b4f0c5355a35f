/**
 * OPA Gatekeeper, unmodified, against a workspace: the policy controller most clusters with admission policy run.
 *
 * Gatekeeper's manager is the one scripts/build-gatekeeper.sh (called by .ci/run) builds from the Go module proxy
 * into $HOME/.cache/atrium/bin/gatekeeper (github.com/open-policy-agent/gatekeeper/v3 v3.20.1); everything it is
 * installed with comes from that module in the Go module cache, as released: deploy/gatekeeper.yaml (its CRDs,
 * namespace, RBAC, Service, webhook configurations; not its Deployments, whose pods this process stands in for) and
 * demo/basic (the K8sRequiredLabels ConstraintTemplate, its constraint, the namespaces it admits and denies, the
 * sync Config). The suite fails when the binary or the module is missing.
 *
 * Gatekeeper runs as a local process with a kubeconfig into root:gatekeeper carrying the token of its own
 * ServiceAccount (so the workspace's RBAC, from Gatekeeper's ClusterRole, decides what it may do), all of its
 * operations (webhook, mutation webhook, audit, status), and its own certificate rotation: it writes the serving
 * certificate into its Secret and the CA into the caBundle of both webhook configurations. The webhook Service is
 * annotated with the process's loopback port (`webhook.atrium.io/loopback-port`: Endpoints may not name loopback).
 * The pod it stands in for exists (compute is bound; a simulated cluster runs it): Gatekeeper reads it by POD_NAME
 * and owns its status objects by it. The test plays the kubelet's part for the Secret volume (see mountSecret).
 *
 * What is checked, with kubectl: a ConstraintTemplate becomes a CRD (K8sRequiredLabels) and reports created; a
 * namespace without the label is denied with Gatekeeper's message, one with it admitted, also with
 * `--dry-run=server`; a `warn` constraint admits with kubectl's Warning; the audit records a namespace that predates
 * the constraint in the constraint's status; an AssignMetadata mutator labels new ConfigMaps; once Gatekeeper is
 * stopped, its failurePolicy Fail webhook (check-ignore-label) refuses namespaces and the Ignore ones let ConfigMaps
 * through.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { runKubectl } from '../helpers/harness.js';
import { startFleet, type InProcessFleet } from '../helpers/fleet.js';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/etcd.js';
import { kubectlFails, kubectlOk, type KubectlRunner } from './support/kubectl-run.js';

const VERSION = 'v3.20.1';
const MODULE = 'github.com/open-policy-agent/gatekeeper/v3';
const NS = 'gatekeeper-system';
/** The Pod this process stands in for: Gatekeeper reads it (POD_NAME) and makes it the owner of its status objects. */
const POD = 'gatekeeper-controller-manager-local';
const bin = join(homedir(), '.cache', 'atrium', 'bin', 'gatekeeper');

/** Gatekeeper's module directory in the Go module cache (downloaded by the build script). */
function moduleDir(): string {
  const r = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' });
  const dir = join(r.stdout.trim(), MODULE.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`) + `@${VERSION}`);
  assert.ok(existsSync(join(dir, 'deploy', 'gatekeeper.yaml')), `Gatekeeper ${VERSION} is not in the Go module cache (${dir}): run scripts/build-gatekeeper.sh`);
  return dir;
}

describe('OPA Gatekeeper in a workspace', { timeout: 600_000 }, () => {
  let fleet: InProcessFleet;
  let ws: KubectlRunner;
  let dir: string;
  let workDir: string;
  let gk: ChildProcess | undefined;
  let gkLog = '';
  let healthPort = 0;
  let webhookPort = 0;
  let gkKubeconfig = '';

  // JSON, not YAML: kubectl reads YAML 1.1, where an unquoted `yes` (Gatekeeper's label values) is a boolean.
  const listOf = (items: unknown[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
  const demo = (path: string) => readFileSync(join(dir, 'demo', 'basic', path), 'utf8');
  const log = () => gkLog.split('\n').filter((l) => /"level":"(error|warning)"|panic|fatal/i.test(l)).slice(-30).join('\n');

  /**
   * The kubelet's part: in its pod, Gatekeeper's Secret is mounted at --cert-dir, and its certificate rotation waits
   * for the files it wrote into the Secret to appear there. Every key of the Secret is written as a file (atomically,
   * as the kubelet swaps the volume's contents) whenever it changes.
   */
  const mountSecret = (certDir: string) => {
    let last = '';
    let busy = false;
    return setInterval(() => {
      if (busy) return;
      busy = true;
      fleet.up
        .get({ group: '', version: 'v1', resource: 'secrets' }, 'gatekeeper-webhook-server-cert', { cluster: fleet.workspace.cluster, namespace: NS })
        .then((secret: any) => {
          const data: Record<string, string> = secret.data ?? {};
          const key = JSON.stringify(data);
          if (key === last) return;
          for (const [k, v] of Object.entries(data)) {
            writeFileSync(join(certDir, `.${k}.tmp`), Buffer.from(v, 'base64'), { mode: 0o600 });
            renameSync(join(certDir, `.${k}.tmp`), join(certDir, k));
          }
          last = key;
        })
        .catch(() => undefined)
        .finally(() => (busy = false));
    }, 300);
  };
  let mount: NodeJS.Timeout | undefined;

  const startGatekeeper = async () => {
    gkLog = '';
    const certDir = join(workDir, 'certs');
    mkdirSync(certDir, { recursive: true });
    mount ??= mountSecret(certDir);
    // The audit's scratch directory, an emptyDir in Gatekeeper's pod.
    mkdirSync(join(workDir, 'audit'), { recursive: true });
    gk = spawn(
      bin,
      [
        `--kubeconfig=${gkKubeconfig}`,
        '--host=127.0.0.1',
        `--port=${webhookPort}`,
        `--health-addr=127.0.0.1:${healthPort}`,
        '--metrics-addr=0',
        `--cert-dir=${certDir}`,
        `--api-cache-dir=${join(workDir, 'audit')}`,
        `--exempt-namespace=${NS}`,
        '--disable-opa-builtin={http.send}',
        '--audit-interval=3',
        '--shutdown-delay=0',
        // Gatekeeper asks whether ValidatingAdmissionPolicies are served through an in-cluster config only, so outside
        // a pod it finds them "not enabled" and retries generating them for every constraint without pause.
        '--default-create-vap-for-templates=false',
        '--default-create-vap-binding-for-constraints=false',
        '--log-level=INFO',
      ],
      { env: { ...process.env, POD_NAMESPACE: NS, POD_NAME: POD, NAMESPACE: NS, CONTAINER_NAME: 'manager' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    gk.stdout!.on('data', (b) => (gkLog += b));
    gk.stderr!.on('data', (b) => (gkLog += b));
    const proc = gk;
    await eventually('Gatekeeper ready (/readyz)', async () => {
      if (proc.exitCode !== null) throw new Error(`gatekeeper exited ${proc.exitCode}:\n${gkLog.slice(-4000)}`);
      const r = await fetch(`http://127.0.0.1:${healthPort}/readyz`).catch(() => undefined);
      return r?.status === 200;
    }, 120_000, 500).catch((e: Error) => assert.fail(`${e.message}\n${log() || gkLog.slice(-3000)}`));
  };
  const stopGatekeeper = async () => {
    const c = gk;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    const timer = setTimeout(() => c.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };

  before(async () => {
    try {
      accessSync(bin, constants.X_OK);
    } catch {
      assert.fail(`Gatekeeper is missing: ${bin} does not exist. Build it as .ci/run does: bash scripts/build-gatekeeper.sh`);
    }
    dir = moduleDir();
    // Services are served where compute is bound: one simulated cluster, bound to the workspace.
    fleet = await startFleet({
      name: 'gatekeeper',
      clusters: [{ name: 'cluster-1', nodes: 1 }],
      workspace: 'root:gatekeeper',
      bindCompute: true,
      waitReady: { resources: ['services'], timeoutMs: 60_000 },
      server: { builtinControllers: true },
    });
    workDir = join(fleet.dir, 'gatekeeper');
    mkdirSync(workDir, { recursive: true });
    const kc = YAML.parse(readFileSync(fleet.kubeconfig, 'utf8'));
    for (const c of kc.clusters) c.cluster.server = `${new URL(c.cluster.server).origin}/clusters/${fleet.workspace.path}`;
    const adminKubeconfig = join(workDir, 'admin.kubeconfig');
    writeFileSync(adminKubeconfig, YAML.stringify(kc), { mode: 0o600 });
    ws = { kubectl: (args, opts) => runKubectl(adminKubeconfig, args, opts) };

    // A namespace that predates Gatekeeper and its constraint: the audit, not the webhook, finds it.
    await kubectlOk(ws, ['create', 'namespace', 'no-label']);
    // Gatekeeper's release manifest without the Deployments (and their PodDisruptionBudget): this process is the pod.
    const manifest = YAML.parseAllDocuments(readFileSync(join(dir, 'deploy', 'gatekeeper.yaml'), 'utf8'))
      .map((d) => d.toJSON())
      .filter((o) => o && !['Deployment', 'PodDisruptionBudget'].includes(o.kind));
    await kubectlOk(ws, ['apply', '--server-side', '-f', '-'], { input: listOf(manifest) });
    webhookPort = await freePort();
    healthPort = await freePort();
    // The webhook Service's pod is this machine's Gatekeeper process on loopback, which Endpoints may not name: the
    // Service says so with atrium's annotation (src/apiserver/webhook/client.ts).
    await kubectlOk(ws, ['annotate', 'service', 'gatekeeper-webhook-service', '-n', NS, `webhook.atrium.io/loopback-port=${webhookPort}`]);
    // The pod Gatekeeper runs as, in its Deployment's image and labels (the simulated cluster runs it; this process
    // does the work). The owner of Gatekeeper's *PodStatus objects, which the garbage collector would otherwise take.
    const deployment = YAML.parseAllDocuments(readFileSync(join(dir, 'deploy', 'gatekeeper.yaml'), 'utf8'))
      .map((d) => d.toJSON())
      .find((o) => o?.kind === 'Deployment' && o.metadata.name === 'gatekeeper-controller-manager');
    const template = deployment.spec.template;
    await kubectlOk(ws, ['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: POD, namespace: NS, labels: template.metadata.labels },
        spec: { serviceAccountName: 'gatekeeper-admin', containers: [{ name: 'manager', image: template.spec.containers[0].image, args: template.spec.containers[0].args }] },
      }),
    });
    // Its ServiceAccount's token: Gatekeeper works with the permissions its ClusterRole and Role give it.
    const token = (await kubectlOk(ws, ['create', 'token', 'gatekeeper-admin', '-n', NS, '--duration=1h'])).trim();
    gkKubeconfig = join(workDir, 'gatekeeper.kubeconfig');
    writeFileSync(
      gkKubeconfig,
      YAML.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'atrium', cluster: kc.clusters[0].cluster }],
        users: [{ name: 'gatekeeper-admin', user: { token } }],
        contexts: [{ name: 'gatekeeper', context: { cluster: 'atrium', user: 'gatekeeper-admin' } }],
        'current-context': 'gatekeeper',
      }),
      { mode: 0o600 },
    );
    await startGatekeeper();
  });

  after(async () => {
    clearInterval(mount);
    await stopGatekeeper();
    // Gatekeeper's whole log, for a failing run: ATRIUM_GATEKEEPER_LOG=<file>.
    if (process.env.ATRIUM_GATEKEEPER_LOG) writeFileSync(process.env.ATRIUM_GATEKEEPER_LOG, gkLog);
    await fleet?.stop();
  });

  it('rotates its certificate: the Secret holds it, both webhook configurations carry its CA', async () => {
    await eventually('caBundles injected', async () => {
      const secret = JSON.parse(await kubectlOk(ws, ['get', 'secret', 'gatekeeper-webhook-server-cert', '-n', NS, '-o', 'json']));
      const ca = secret.data?.['ca.crt'];
      if (!ca) return false;
      for (const kind of ['validatingwebhookconfiguration', 'mutatingwebhookconfiguration']) {
        const cfg = JSON.parse(await kubectlOk(ws, ['get', kind, `gatekeeper-${kind.startsWith('v') ? 'validating' : 'mutating'}-webhook-configuration`, '-o', 'json']));
        if (!cfg.webhooks.every((w: any) => w.clientConfig.caBundle === ca)) return false;
      }
      return true;
    }, 60_000, 500);
  });

  it('a ConstraintTemplate becomes a CRD; its constraint denies a namespace without the label, with Gatekeeper\'s message', async () => {
    await kubectlOk(ws, ['apply', '-f', '-'], { input: demo('sync.yaml') });
    await kubectlOk(ws, ['apply', '-f', '-'], { input: demo('templates/k8srequiredlabels_template.yaml') });
    await eventually('the template created its CRD', async () => {
      const r = await ws.kubectl(['get', 'crd', 'k8srequiredlabels.constraints.gatekeeper.sh', '-o', 'json']);
      if (r.code !== 0) return false;
      const tpl = JSON.parse(await kubectlOk(ws, ['get', 'constrainttemplate', 'k8srequiredlabels', '-o', 'json']));
      return tpl.status?.created === true && (tpl.status?.byPod ?? []).length > 0;
    }, 60_000, 500).catch((e: Error) => assert.fail(`${e.message}\n${log()}`));
    await eventually('the constraint kind is served', async () => (await ws.kubectl(['get', 'k8srequiredlabels'])).code === 0, 30_000, 500);

    await kubectlOk(ws, ['apply', '-f', '-'], { input: demo('constraints/all_ns_must_have_gatekeeper.yaml') });
    await eventually('the constraint is enforced', async () => {
      const c = JSON.parse(await kubectlOk(ws, ['get', 'k8srequiredlabels', 'ns-must-have-gk', '-o', 'json']));
      return (c.status?.byPod ?? []).some((p: any) => p.enforced === true);
    }, 60_000, 500).catch((e: Error) => assert.fail(`${e.message}\n${log()}`));

    const denied = await eventually('the webhook denies bad-ns', async () => {
      const r = await ws.kubectl(['apply', '-f', '-'], { input: demo('bad/bad_ns.yaml') });
      return r.code !== 0 ? r : false;
    }, 30_000, 500);
    assert.match(
      denied.stderr,
      /admission webhook "validation\.gatekeeper\.sh" denied the request: \[ns-must-have-gk\] you must provide labels: \{"gatekeeper"\}/,
    );
    assert.notEqual((await ws.kubectl(['get', 'namespace', 'bad-ns'])).code, 0, 'bad-ns was not stored');

    assert.match(await kubectlOk(ws, ['apply', '-f', '-'], { input: demo('good/good_ns.yaml') }), /namespace\/good-ns created/);
  });

  it('--dry-run=server reaches the webhook: denied without the label, admitted (and not stored) with it', async () => {
    const r = await kubectlFails(ws, ['create', 'namespace', 'dry-bad', '--dry-run=server']);
    assert.match(r.stderr, /denied the request: \[ns-must-have-gk\] you must provide labels/);
    const good = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dry-good', labels: { gatekeeper: 'yes' } } });
    assert.equal(await kubectlOk(ws, ['create', '-f', '-', '--dry-run=server'], { input: good }), 'namespace/dry-good created (server dry run)\n');
    assert.notEqual((await ws.kubectl(['get', 'namespace', 'dry-good'])).code, 0);
  });

  it('a warn constraint admits with a Warning', async () => {
    await kubectlOk(ws, ['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps', labels: { gatekeeper: 'true' } } }) });
    await kubectlOk(ws, ['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'constraints.gatekeeper.sh/v1beta1',
        kind: 'K8sRequiredLabels',
        metadata: { name: 'cm-should-have-team' },
        spec: { enforcementAction: 'warn', match: { kinds: [{ apiGroups: [''], kinds: ['ConfigMap'] }], namespaces: ['apps'] }, parameters: { labels: ['team'] } },
      }),
    });
    const r = await eventually('the warn constraint warns', async () => {
      const name = `cm-${Date.now()}`;
      const out = await ws.kubectl(['create', 'configmap', name, '-n', 'apps', '--from-literal=a=b']);
      assert.equal(out.code, 0, out.stderr);
      return /Warning: \[cm-should-have-team\] you must provide labels: \{"team"\}/.test(out.stderr) ? out : false;
    }, 60_000, 1000);
    assert.match(r.stdout, /configmap\/cm-\d+ created/);
  });

  it('the audit reports the namespace that predates the constraint in the constraint\'s status', async () => {
    const c = await eventually('audit results', async () => {
      const c = JSON.parse(await kubectlOk(ws, ['get', 'k8srequiredlabels', 'ns-must-have-gk', '-o', 'json']));
      return (c.status?.violations ?? []).some((v: any) => v.name === 'no-label') ? c : false;
    }, 90_000, 1000).catch((e: Error) => assert.fail(`${e.message}\n${log()}`));
    assert.ok(c.status.totalViolations >= 1);
    assert.ok(c.status.auditTimestamp);
    const v = c.status.violations.find((x: any) => x.name === 'no-label');
    assert.equal(v.kind, 'Namespace');
    assert.equal(v.enforcementAction, 'deny');
    assert.match(v.message, /you must provide labels: \{"gatekeeper"\}/);
    assert.ok(!c.status.violations.some((x: any) => x.name === 'good-ns'), 'good-ns complies');
  });

  it('an AssignMetadata mutator labels new ConfigMaps through the mutating webhook', async () => {
    await kubectlOk(ws, ['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'mutations.gatekeeper.sh/v1',
        kind: 'AssignMetadata',
        metadata: { name: 'label-configmaps' },
        spec: { match: { scope: 'Namespaced', kinds: [{ apiGroups: [''], kinds: ['ConfigMap'] }], namespaces: ['apps'] }, location: 'metadata.labels.team', parameters: { assign: { value: 'platform' } } },
      }),
    });
    await eventually('the mutator labels ConfigMaps', async () => {
      const name = `m-${Date.now()}`;
      await kubectlOk(ws, ['create', 'configmap', name, '-n', 'apps', '--from-literal=a=b']);
      const cm = JSON.parse(await kubectlOk(ws, ['get', 'configmap', name, '-n', 'apps', '-o', 'json']));
      return cm.metadata.labels?.team === 'platform';
    }, 60_000, 1000).catch((e: Error) => assert.fail(`${e.message}\n${log()}`));
  });

  it('stopped: the failurePolicy Fail webhook refuses namespaces, the Ignore ones let ConfigMaps through', async () => {
    await stopGatekeeper();
    const r = await kubectlFails(ws, ['create', 'namespace', 'while-down']);
    assert.match(r.stderr, /failed calling webhook "check-ignore-label\.gatekeeper\.sh"/);
    assert.match(await kubectlOk(ws, ['create', 'configmap', 'while-down', '-n', 'apps']), /configmap\/while-down created/);
  });
});
