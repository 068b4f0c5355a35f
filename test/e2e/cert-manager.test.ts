/**
 * A real, widely used operator with admission webhooks, unmodified, in a workspace: cert-manager v1.17.4 (client-go
 * v0.32), its controller and its webhook as local processes against a kubeconfig whose server is the workspace
 * (https://.../clusters/root:certs), issuing certificates.
 *
 * The binaries are cert-manager's own cmd/controller and cmd/webhook at v1.17.4 (their sources, as released, in
 * test/e2e/cert-manager/, building github.com/cert-manager/cert-manager v1.17.4 from the Go module proxy), which
 * scripts/build-cert-manager.sh builds into $HOME/.cache/atrium/bin (.ci/run runs it; skipped when built); the suite
 * fails when they are missing. The manifests are cert-manager's release manifests: its Helm chart in the module source
 * (deploy/charts/cert-manager) rendered by `helm template` (the Helm .ci/run builds) with crds.enabled and
 * webhook.url.host=localhost:<port>, of which the CRDs and the Mutating/ValidatingWebhookConfigurations are applied to
 * the workspace. cainjector is not run: its one job here (copying the webhook's CA from the Secret named by the
 * configurations' cert-manager.io/inject-ca-from-secret annotation into their caBundle) is done by the suite.
 *
 * The webhook serves with cert-manager's dynamic serving: it creates its CA Secret in the workspace
 * (--dynamic-serving-ca-secret-*) and signs its own serving certificate for localhost. The controller runs with
 * leader election in namespace cert-manager (a Lease in the workspace). Then, through kubectl into the workspace:
 * the validating webhook denies an invalid Certificate with cert-manager's message; a self-signed Issuer turns Ready;
 * a self-signed CA Certificate is issued (its CertificateRequest carries the user the mutating webhook set); a CA
 * Issuer from its Secret issues a leaf Certificate whose chain verifies against that CA; deleting the leaf's Secret
 * makes the controller issue it again.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { accessSync, constants, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import type { TestServer } from '../helpers/harness.js';
import { startFleet, fastScheduling, type InProcessFleet } from '../helpers/fleet.js';
import { eventually } from '../helpers/eventually.js';

const CERT_MANAGER_VERSION = 'v1.17.4';
const WS = 'certs';
const NS = 'cert-manager';
const APP_NS = 'shop';

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the checkout root');
    dir = parent;
  }
  return dir;
}

const BIN_DIR = join(homedir(), '.cache', 'atrium', 'bin');
const SOURCES = join(repoRoot(), 'test', 'e2e', 'cert-manager');

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; annotations?: Record<string, string> }; [k: string]: unknown };

describe(`cert-manager ${CERT_MANAGER_VERSION} (controller and webhook, unmodified) in a workspace`, { timeout: 600_000 }, () => {
  let fleet: InProcessFleet;
  let ts: TestServer;
  let dir: string;
  let kubeconfig: string;
  const procs: { name: string; proc: ChildProcess; log: string[] }[] = [];
  let webhookPort: number;

  const api = (method: string, path: string, body?: unknown) => ts.request(method, `/clusters/root:${WS}${path}`, body);
  const kubectl = (args: string[], input?: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      const p = execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 60_000 }, (err, stdout, stderr) => done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
      if (input !== undefined) p.stdin!.end(input);
    });
  const logs = () => procs.map((p) => `--- ${p.name} (last lines)\n${p.log.join('').split('\n').slice(-40).join('\n')}`).join('\n');
  const run = (name: string, bin: string, args: string[]) => {
    const proc = spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const log: string[] = [];
    const keep = (b: Buffer) => {
      log.push(b.toString());
      if (log.length > 4000) log.splice(0, log.length - 4000);
    };
    proc.stdout!.on('data', keep);
    proc.stderr!.on('data', keep);
    procs.push({ name, proc, log });
    return proc;
  };
  const get = async (path: string) => {
    const r = await api('GET', path);
    return r.status === 200 ? (r.json as Record<string, any>) : undefined;
  };
  const ready = (o: Record<string, any> | undefined) => (o?.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');

  before(async () => {
    const controllerBin = join(BIN_DIR, 'cert-manager-controller');
    const webhookBin = join(BIN_DIR, 'cert-manager-webhook');
    const helmBin = join(BIN_DIR, 'helm');
    for (const b of [controllerBin, webhookBin, helmBin]) {
      if (!executable(b)) assert.fail(`${b} is missing: .ci/run builds it (scripts/build-cert-manager.sh for cert-manager, the helm step for helm)`);
    }
    // cert-manager's module source (its release manifests), from the module cache of the build.
    const mod = spawnSync('go', ['list', '-m', '-json', 'github.com/cert-manager/cert-manager'], { cwd: join(SOURCES, 'controller'), encoding: 'utf8', env: { ...process.env, GOFLAGS: '-mod=mod' } });
    assert.equal(mod.status, 0, `go list -m github.com/cert-manager/cert-manager: ${mod.stderr}`);
    const moduleDir = (JSON.parse(mod.stdout) as { Dir?: string }).Dir;
    assert.ok(moduleDir && existsSync(join(moduleDir, 'deploy', 'charts', 'cert-manager')), `cert-manager's module source is not downloaded: ${mod.stdout}`);

    dir = mkdtempSync(join(tmpdir(), 'atrium-cert-manager-'));
    webhookPort = await freePort();
    // The chart as its release is made: Chart.yaml from Chart.template.yaml with the version stamped in.
    const chart = join(dir, 'chart');
    cpSync(join(moduleDir, 'deploy', 'charts', 'cert-manager'), chart, { recursive: true });
    writeFileSync(join(chart, 'Chart.yaml'), readFileSync(join(chart, 'Chart.template.yaml'), 'utf8').replace('{{IS_PRERELEASE}}', 'false').replace(/^version: v0\.0\.0$/m, `version: ${CERT_MANAGER_VERSION}`).replace(/^appVersion: v0\.0\.0$/m, `appVersion: ${CERT_MANAGER_VERSION}`));
    // templates/crds.yaml: deploy/crds/*.yaml concatenated, as cert-manager's make/manifests.mk does.
    const crdSources = readdirSync(join(moduleDir, 'deploy', 'crds')).filter((f) => f.endsWith('.yaml')).sort();
    writeFileSync(join(chart, 'templates', 'crds.yaml'), crdSources.map((f) => readFileSync(join(moduleDir, 'deploy', 'crds', f), 'utf8')).join('\n---\n'));
    // The release's static manifests are `helm template` with these values; the webhook is reached at a url.
    const rendered = spawnSync(helmBin, ['template', 'cert-manager', chart, '--namespace', NS, '--set', 'crds.enabled=true', '--set', 'creator=static', '--set', 'startupapicheck.enabled=false', '--set', `webhook.url.host=localhost:${webhookPort}`], { encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(rendered.status, 0, `helm template: ${rendered.stderr}`);
    const manifests = YAML.parseAllDocuments(rendered.stdout).map((d) => d.toJS() as Manifest).filter(Boolean);
    const crds = manifests.filter((m) => m.kind === 'CustomResourceDefinition');
    const hooks = manifests.filter((m) => m.kind === 'MutatingWebhookConfiguration' || m.kind === 'ValidatingWebhookConfiguration');
    assert.equal(crds.length, 6, `CRDs in the release: ${crds.map((c) => c.metadata.name)}`);
    assert.equal(hooks.length, 2);

    // A workspace with compute (one simulated cluster bound), so that it serves what cert-manager's controllers watch
    // besides its own resources: Pods and Services (ACME HTTP-01 solvers) and Ingresses (ingress-shim).
    fleet = (await startFleet({
      name: 'cert-manager',
      clusters: [{ name: 'cluster-1', nodes: 1 }],
      workspace: `root:${WS}`,
      multicluster: fastScheduling(),
      server: { builtinControllers: true },
      bindCompute: true,
      waitReady: { resources: ['pods', 'services', 'ingresses'], timeoutMs: 60_000 },
    })) as InProcessFleet;
    ts = fleet.atrium;
    const kc = YAML.parse(readFileSync(ts.kubeconfig, 'utf8')) as { clusters: { cluster: { server: string } }[] };
    for (const c of kc.clusters) c.cluster.server = `${c.cluster.server.replace(/\/clusters\/.*$/, '').replace(/\/$/, '')}/clusters/root:${WS}`;
    kubeconfig = join(dir, 'workspace.kubeconfig');
    writeFileSync(kubeconfig, YAML.stringify(kc));

    for (const ns of [NS, APP_NS]) {
      const r = await api('POST', '/api/v1/namespaces', { metadata: { name: ns } });
      assert.ok(r.status === 201 || r.status === 409, r.text);
    }
    for (const crd of crds) {
      const r = await api('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      assert.equal(r.status, 201, `${crd.metadata.name}: ${r.text}`);
    }
    for (const crd of crds) {
      await eventually(`${crd.metadata.name} Established`, async () => ((await get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`))?.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True'));
    }

    // The webhook, serving with its dynamic CA (a Secret it creates in the workspace) on a certificate for localhost.
    const healthz = await freePort();
    run('webhook', webhookBin, [
      `--kubeconfig=${kubeconfig}`,
      `--secure-port=${webhookPort}`,
      `--healthz-port=${healthz}`,
      `--dynamic-serving-ca-secret-namespace=${NS}`,
      '--dynamic-serving-ca-secret-name=cert-manager-webhook-ca',
      '--dynamic-serving-dns-names=localhost',
      '--metrics-listen-address=0',
      '--v=2',
    ]);
    const caSecret = await eventually('the webhook creates its CA Secret', async () => (await get(`/api/v1/namespaces/${NS}/secrets/cert-manager-webhook-ca`))?.data?.['ca.crt'] as string | undefined, 60_000).catch((e) => assert.fail(`${e}\n${logs()}`));
    // What cainjector does: the CA of the Secret the annotation names goes into every webhook's caBundle.
    for (const h of hooks) {
      assert.equal(h.metadata.annotations?.['cert-manager.io/inject-ca-from-secret'], `${NS}/cert-manager-webhook-ca`);
      for (const w of h.webhooks as { clientConfig: { url?: string; caBundle?: string } }[]) {
        assert.match(w.clientConfig.url ?? '', new RegExp(`^https://localhost:${webhookPort}/(mutate|validate)$`));
        w.clientConfig.caBundle = caSecret;
      }
      const path = h.kind === 'MutatingWebhookConfiguration' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
      const r = await api('POST', `/apis/admissionregistration.k8s.io/v1/${path}`, h);
      assert.equal(r.status, 201, r.text);
    }

    const controllerHealthz = await freePort();
    const controllerMetrics = await freePort();
    run('controller', controllerBin, [
      `--kubeconfig=${kubeconfig}`,
      `--leader-election-namespace=${NS}`,
      `--cluster-resource-namespace=${NS}`,
      `--metrics-listen-address=127.0.0.1:${controllerMetrics}`,
      `--internal-healthz-listen-address=127.0.0.1:${controllerHealthz}`,
      '--v=2',
    ]);
  });

  after(async () => {
    if (process.env.CERT_MANAGER_LOG_DIR) for (const p of procs) writeFileSync(join(process.env.CERT_MANAGER_LOG_DIR, `${p.name}.log`), p.log.join(''));
    for (const { proc } of procs) {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (proc.exitCode === null) proc.kill('SIGKILL');
      }
    }
    await fleet?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the validating webhook denies an invalid Certificate with cert-manager\'s message', async () => {
    const bad = YAML.stringify({ apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'bad', namespace: APP_NS }, spec: { secretName: 'bad-tls', issuerRef: { name: 'x' } } });
    const r = await eventually('an invalid Certificate denied by webhook.cert-manager.io', async () => {
      const r = await kubectl(['apply', '-f', '-'], bad);
      return r.code !== 0 && r.stderr.includes('admission webhook "webhook.cert-manager.io" denied the request') ? r : undefined;
    }, 60_000).catch((e) => assert.fail(`${e}\n${logs()}`));
    // cert-manager: a Certificate needs at least one of commonName, dnsNames, uriSANs, emailSANs, ipAddresses or otherNames.
    assert.match(r.stderr, /denied the request: spec: Invalid value: "": at least one of commonName \(from the commonName field or from a literalSubject\), dnsNames, uriSANs, ipAddresses, emailSANs or otherNames must be set/, r.stderr);
    assert.equal((await api('GET', `/apis/cert-manager.io/v1/namespaces/${APP_NS}/certificates/bad`)).status, 404);
  });

  it('a self-signed Issuer turns Ready and issues a CA Certificate; its CertificateRequest carries the user the mutating webhook set', async () => {
    const docs = [
      { apiVersion: 'cert-manager.io/v1', kind: 'Issuer', metadata: { name: 'selfsigned', namespace: APP_NS }, spec: { selfSigned: {} } },
      { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'shop-ca', namespace: APP_NS }, spec: { isCA: true, commonName: 'shop-ca', secretName: 'shop-ca', privateKey: { algorithm: 'ECDSA', size: 256 }, issuerRef: { name: 'selfsigned', kind: 'Issuer', group: 'cert-manager.io' } } },
    ];
    const r = await kubectl(['apply', '-f', '-'], docs.map((d) => YAML.stringify(d)).join('---\n'));
    assert.equal(r.code, 0, r.stderr);
    await eventually('Issuer selfsigned Ready', async () => ready(await get(`/apis/cert-manager.io/v1/namespaces/${APP_NS}/issuers/selfsigned`)), 60_000).catch((e) => assert.fail(`${e}\n${logs()}`));
    await eventually('Certificate shop-ca Ready', async () => ready(await get(`/apis/cert-manager.io/v1/namespaces/${APP_NS}/certificates/shop-ca`)), 90_000).catch((e) => assert.fail(`${e}\n${logs()}`));
    const secret = await get(`/api/v1/namespaces/${APP_NS}/secrets/shop-ca`);
    assert.equal(secret?.type, 'kubernetes.io/tls');
    const cert = new X509Certificate(Buffer.from(secret!.data['tls.crt'], 'base64'));
    assert.ok(cert.ca, 'shop-ca is a CA');
    assert.match(cert.subject, /CN=shop-ca/);
    assert.ok(cert.verify(cert.publicKey), 'shop-ca is self-signed');
    assert.equal(secret!.metadata.annotations?.['cert-manager.io/certificate-name'], 'shop-ca');
    // The CertificateRequest the controller created: the mutating webhook stamped the requesting user into it.
    const crs = (await get(`/apis/cert-manager.io/v1/namespaces/${APP_NS}/certificaterequests`))?.items as Record<string, any>[];
    const cr = crs.find((c) => c.metadata.ownerReferences?.some((o: { name: string }) => o.name === 'shop-ca'));
    assert.ok(cr, `a CertificateRequest of shop-ca among ${crs.map((c) => c.metadata.name)}`);
    assert.equal(cr.spec.username, 'admin', JSON.stringify(cr.spec));
    assert.ok(ready(cr), JSON.stringify(cr.status));
    const printed = await kubectl(['get', 'certificate', 'shop-ca', '-n', APP_NS]);
    assert.match(printed.stdout, /^NAME\s+READY\s+SECRET\s+AGE\nshop-ca\s+True\s+shop-ca\s+/, printed.stdout);
  });

  it('a CA Issuer issues a leaf Certificate that verifies against the CA; a deleted Secret is issued again', async () => {
    const docs = [
      { apiVersion: 'cert-manager.io/v1', kind: 'Issuer', metadata: { name: 'shop-ca', namespace: APP_NS }, spec: { ca: { secretName: 'shop-ca' } } },
      { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'web', namespace: APP_NS }, spec: { secretName: 'web-tls', dnsNames: ['web.shop.example.com', 'shop.example.com'], duration: '2160h', issuerRef: { name: 'shop-ca' } } },
    ];
    const r = await kubectl(['apply', '-f', '-'], docs.map((d) => YAML.stringify(d)).join('---\n'));
    assert.equal(r.code, 0, r.stderr);
    await eventually('Certificate web Ready', async () => ready(await get(`/apis/cert-manager.io/v1/namespaces/${APP_NS}/certificates/web`)), 90_000).catch((e) => assert.fail(`${e}\n${logs()}`));
    const caCert = new X509Certificate(Buffer.from((await get(`/api/v1/namespaces/${APP_NS}/secrets/shop-ca`))!.data['tls.crt'], 'base64'));
    const leafOf = async () => {
      const s = await get(`/api/v1/namespaces/${APP_NS}/secrets/web-tls`);
      return s ? { cert: new X509Certificate(Buffer.from(s.data['tls.crt'], 'base64')), ca: Buffer.from(s.data['ca.crt'], 'base64').toString() } : undefined;
    };
    const leaf = (await leafOf())!;
    assert.equal(leaf.cert.subjectAltName, 'DNS:web.shop.example.com, DNS:shop.example.com');
    assert.ok(leaf.cert.verify(caCert.publicKey), 'the leaf is signed by shop-ca');
    assert.equal(leaf.ca.trim(), caCert.toString().trim(), 'ca.crt of the leaf Secret is shop-ca');
    const days = (Date.parse(leaf.cert.validTo) - Date.parse(leaf.cert.validFrom)) / 86_400_000;
    assert.ok(Math.abs(days - 90) < 1, `valid for ${days} days`);

    // The Secret deleted: the controller notices (it watches Secrets) and issues the certificate again.
    assert.equal((await kubectl(['delete', 'secret', 'web-tls', '-n', APP_NS])).code, 0);
    const again = await eventually('web-tls issued again', async () => {
      const l = await leafOf();
      return l && l.cert.serialNumber !== leaf.cert.serialNumber ? l : undefined;
    }, 90_000).catch((e) => assert.fail(`${e}\n${logs()}`));
    assert.ok(again.cert.verify(caCert.publicKey));
    await eventually('Certificate web Ready again', async () => ready(await get(`/apis/cert-manager.io/v1/namespaces/${APP_NS}/certificates/web`)), 60_000);
  });

  it('ingress-shim: an annotated Ingress gets its Certificate issued', async () => {
    const ingress = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'shop', namespace: APP_NS, annotations: { 'cert-manager.io/issuer': 'shop-ca' } },
      spec: {
        tls: [{ hosts: ['www.shop.example.com'], secretName: 'shop-ingress-tls' }],
        rules: [{ host: 'www.shop.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
      },
    };
    const r = await kubectl(['apply', '-f', '-'], YAML.stringify(ingress));
    assert.equal(r.code, 0, r.stderr);
    const cert = await eventually('Certificate shop-ingress-tls Ready', async () => {
      const c = await get(`/apis/cert-manager.io/v1/namespaces/${APP_NS}/certificates/shop-ingress-tls`);
      return ready(c) ? c : undefined;
    }, 90_000).catch((e) => assert.fail(`${e}\n${logs()}`));
    assert.deepEqual(cert.spec.dnsNames, ['www.shop.example.com']);
    assert.equal(cert.metadata.ownerReferences?.[0]?.kind, 'Ingress');
    const secret = await get(`/api/v1/namespaces/${APP_NS}/secrets/shop-ingress-tls`);
    assert.equal(new X509Certificate(Buffer.from(secret!.data['tls.crt'], 'base64')).subjectAltName, 'DNS:www.shop.example.com');
  });

  it('the controller holds its leader election Lease in the workspace; it listed and watched everything; neither process died', async () => {
    const lease = await get(`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/cert-manager-controller`);
    assert.ok(lease?.spec?.holderIdentity, JSON.stringify(lease));
    for (const p of procs) assert.equal(p.proc.exitCode, null, `${p.name} exited: ${logs()}`);
    // Every informer of every controller synced: no list or watch the workspace refused (the compute-less workspace
    // refused Pods, Services and Ingresses, which the logs showed as reflector errors).
    const controllerLog = procs.find((p) => p.name === 'controller')!.log.join('');
    const failures = controllerLog.split('\n').filter((l) => /Failed to watch|failed to list|Unhandled Error/.test(l));
    assert.deepEqual(failures, []);
  });
});
