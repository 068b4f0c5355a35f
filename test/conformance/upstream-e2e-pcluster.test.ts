/**
 * Upstream's own `[sig-apps]` conformance specs against the simulated cluster (`atrium pcluster`, 2 nodes): the specs
 * below need running pods and the workload controllers, which a workspace without clusters (./upstream-e2e.test.ts)
 * lacks, and they cover what the pcluster answers as a real cluster would — pods/eviction and the disruption
 * controller, ReplicaSets', ReplicationControllers' and Jobs' adoption and release of pods by labels, a Job's status
 * subresource; and `[sig-scheduling]`'s PriorityClass endpoints spec. Each must pass.
 *
 * Not run here: specs that need real images serving HTTP through pods/proxy (`should serve a basic image ...`), real
 * image pulls (an unknown image never fails in the simulation), or long schedules (CronJob); the rest of sig-apps is
 * exercised by atrium's own suites. e2e.test is built by bench/kube/build-anchors.sh (`.ci/run` builds it).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pluginBinDir } from '../helpers/harness.js';
import { Proc } from '../helpers/processes.js';

const e2eBinary = process.env.ATRIUM_E2E_TEST ?? join(process.env.ATRIUM_ANCHORS ?? join(homedir(), '.cache', 'atrium', 'anchors'), 'bin', 'e2e.test');

/** The specs (full texts), each of which must pass. */
const SPECS = [
  '[sig-apps] DisruptionController Listing PodDisruptionBudgets for all namespaces should list and delete a collection of PodDisruptionBudgets [Conformance]',
  '[sig-apps] DisruptionController should block an eviction until the PDB is updated to allow it [Conformance]',
  '[sig-apps] DisruptionController should create a PodDisruptionBudget [Conformance]',
  '[sig-apps] DisruptionController should observe PodDisruptionBudget status updated [Conformance]',
  '[sig-apps] DisruptionController should update/patch PodDisruptionBudget status [Conformance]',
  '[sig-apps] Job should adopt matching orphans and release non-matching pods [Conformance]',
  '[sig-apps] Job should apply changes to a job status [Conformance]',
  '[sig-apps] ReplicaSet should adopt matching pods on creation and release no longer matching pods [Conformance]',
  '[sig-apps] ReplicationController should adopt matching pods on creation [Conformance]',
  '[sig-apps] ReplicationController should release no longer matching pods [Conformance]',
  // PriorityClasses (scheduling.k8s.io/v1) with every verb, the system classes kept; the other SchedulerPreemption
  // specs need the scheduler to preempt, which the simulated one does not.
  '[sig-scheduling] SchedulerPreemption [Serial] PriorityClass endpoints verify PriorityClass endpoints can be operated with different HTTP methods [Conformance]',
];

let dir: string;
let pcluster: Proc | undefined;

before(async () => {
  if (!existsSync(e2eBinary)) throw new Error(`upstream's e2e.test is missing: ${e2eBinary} (build it with bench/kube/build-anchors.sh; .ci/run does)`);
  dir = mkdtempSync(join(tmpdir(), 'atrium-upstream-e2e-pcluster-'));
  const rootDir = join(dir, 'pcluster');
  pcluster = new Proc('pcluster', () => [join(pluginBinDir, 'atrium'), 'pcluster', '--name', 'conformance', '--root-dir', rootDir, '--nodes', '2', '--ready-delay', '200ms'], (o) => o.includes('is serving at') && existsSync(join(rootDir, 'admin.kubeconfig')));
  await pcluster.start(60_000);
});

after(async () => {
  await pcluster?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test("upstream's sig-apps conformance specs (k8s.io/kubernetes v1.32.4) against atrium pcluster", { timeout: 15 * 60_000 }, async () => {
  const kubeconfig = join(dir, 'pcluster', 'admin.kubeconfig');
  const report = join(dir, 'report');
  const args = [
    `--kubeconfig=${kubeconfig}`, '--provider=skeleton', '--num-nodes=2', '--allowed-not-ready-nodes=-1', '--minStartupPods=0', '--e2e-verify-service-account=false',
    `--ginkgo.focus=${SPECS.map((s) => `${escapeRegExp(s)}$`).join('|')}`, '--ginkgo.no-color', `--ginkgo.json-report=${join(report, 'report.json')}`, '--ginkgo.timeout=12m',
  ];
  const run = await new Promise<{ code: number; output: string }>((resolve) => {
    const child = spawn(e2eBinary, args, { cwd: dir, env: { ...process.env, HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (b) => (output += b));
    child.stderr.on('data', (b) => (output += b));
    const timer = setTimeout(() => child.kill('SIGKILL'), 13 * 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, output });
    });
  });
  const path = join(report, 'report.json');
  assert.ok(existsSync(path), `no report from e2e.test (exit ${run.code}):\n${run.output.slice(-4000)}`);
  const specs = (JSON.parse(readFileSync(path, 'utf8')) as { SpecReports: { LeafNodeType: string; LeafNodeText: string; ContainerHierarchyTexts: string[] | null; State: string; Failure?: { Message: string } }[] | null }[])
    .flatMap((r) => r.SpecReports ?? [])
    .filter((s) => s.LeafNodeType === 'It');
  const ran = new Map(specs.map((s) => [[...(s.ContainerHierarchyTexts ?? []), s.LeafNodeText].join(' '), s]));
  const problems: string[] = [];
  // Ginkgo reports the text without the leading `[sig-…]` container label or the trailing `[Conformance]` label
  // depending on how the spec was declared: both sides are compared without them.
  const norm = (x: string) => x.replace(/^\[sig-[a-z-]+\] /, '').replace(/ \[Conformance\]$/, '');
  for (const spec of SPECS) {
    const found = [...ran.entries()].find(([n]) => norm(n) === norm(spec));
    if (!found) problems.push(`not run: ${spec}`);
    else if (found[1].State !== 'passed') problems.push(`${found[1].State}: ${spec}: ${found[1].Failure?.Message ?? ''}`);
  }
  assert.deepEqual(problems, [], `e2e.test exit ${run.code}\n${run.output.slice(-3000)}`);
});
