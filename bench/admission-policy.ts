/**
 * Issue 16 benchmark: ConfigMap creates while a ValidatingAdmissionPolicy of three CEL validations (labels, data
 * size, name) applies to them, against the same creates with no policy, both measured in this run on the same server
 * (without, with, then without again; the reference is the better of the two runs without). Target: the policy costs
 * at most 15% of the throughput (ratio >= 0.85).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Figure, runLoad } from './lib.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const concurrency = 32;
const total = 4000;

function configMap(run: string, i: number): Buffer {
  const data: Record<string, string> = {};
  for (let k = 0; k < 6; k++) data[`key-${k}`] = `value-${k}-`.padEnd(40, 'x');
  return Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${run}-${i}`, namespace: 'bench', labels: { app: 'bench', env: 'test' } }, data }));
}

const policy = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'bench-policy' },
  spec: {
    matchConstraints: { resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
    validations: [
      { expression: "has(object.metadata.labels) && 'app' in object.metadata.labels", message: 'configmaps need an app label' },
      { expression: '!has(object.data) || size(object.data) <= 20', messageExpression: "'too many keys: ' + string(size(object.data))" },
      { expression: "object.metadata.name.startsWith('cm-')", message: 'names start with cm-' },
    ],
  },
};
const binding = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'bench-policy' },
  spec: { policyName: 'bench-policy', validationActions: ['Deny'] },
};

function startServerChild(rootDir: string): Promise<{ proc: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const proc = fork(join(here, 'server-child.js'), [rootDir], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    proc.once('message', (m: { url: string }) => resolve({ proc, url: m.url }));
    proc.once('exit', (code) => reject(new Error(`server-child exited with ${code}`)));
  });
}

function stop(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    proc.removeAllListeners('exit');
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
  });
}

export async function runAdmissionPolicyBenchmarks(): Promise<Figure[]> {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-bench-vap-'));
  const child = await startServerChild(rootDir);
  const pki = join(rootDir, 'pki');
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) });
  const target = { base: child.url, agent };
  const creates = (run: string, n = total) => runLoad(target, n, concurrency, (i) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: configMap(run, i) }));
  const post = (path: string, body: unknown) => runLoad(target, 1, 1, () => ({ method: 'POST', path, body: Buffer.from(JSON.stringify(body)) }));
  try {
    await post('/api/v1/namespaces', { metadata: { name: 'bench' } });
    await creates('warm', 1000);
    const without1 = await creates('without1');
    await post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', policy);
    await post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', binding);
    // The policy is in force once a create it refuses is refused.
    for (let i = 0; ; i++) {
      const bad = await runLoad(target, 1, 1, () => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps?dryRun=All', body: Buffer.from('{"metadata":{"name":"nolabel"}}') }));
      if (bad.errors === 1) break;
      if (i > 100) throw new Error('the policy never came into force');
      await new Promise((r) => setTimeout(r, 50));
    }
    await creates('warm-with', 1000);
    const withPolicy = await creates('with');
    await runLoad(target, 1, 1, () => ({ method: 'DELETE', path: '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/bench-policy' }));
    await new Promise((r) => setTimeout(r, 200));
    const without2 = await creates('without2');
    for (const r of [without1, withPolicy, without2]) if (r.errors) throw new Error(`${r.errors} creates failed`);
    const reference = without1.rate > without2.rate ? without1 : without2;
    const ratio = withPolicy.rate / reference.rate;
    return [
      {
        benchmark: 'admission-policy/configmap-create-3-cel-rules',
        metric: `creates/s with the policy (c=${concurrency}, p99 ${withPolicy.p99ms.toFixed(1)} ms)`,
        value: withPolicy.rate,
        unit: 'ops/s',
        reference: `creates without a policy (p99 ${reference.p99ms.toFixed(1)} ms)`,
        referenceValue: reference.rate,
        ratio,
        target: '>= 0.85 (cost <= 15%)',
        pass: ratio >= 0.85,
      },
    ];
  } finally {
    agent.destroy();
    await stop(child.proc);
    rmSync(rootDir, { recursive: true, force: true });
  }
}

// Run on its own: `node dist/bench/admission-policy.js`.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { printFigure } = await import('./lib.js');
  for (const f of await runAdmissionPolicyBenchmarks()) printFigure(f);
}
