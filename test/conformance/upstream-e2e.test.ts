/**
 * Upstream's own conformance tests against atrium (#20): `e2e.test`, built from k8s.io/kubernetes v1.32.4 by
 * bench/kube/build-anchors.sh (`.ci/run` builds it once into ~/.cache/atrium/anchors/bin), runs the
 * `[sig-api-machinery]` `[Conformance]` specs and the CustomResource and FieldValidation specs that apply to a control
 * plane without nodes (./upstream-e2e-specs.ts lists them, and why the others cannot apply) against `atrium start`.
 *
 * The specs run in a workspace of their own with compute (a SyncTarget no cluster has joined): it serves the Kubernetes
 * workload types as kube-apiserver does (Deployments, ReplicaSets, PodTemplates, Pods, ...), but no pod ever runs.
 * Every spec that applies must pass, except those KNOWN_FAILING lists, which must fail (the list only shrinks).
 *
 * ATRIUM_E2E_TEST=<path> runs another e2e.test binary; ATRIUM_UPSTREAM_E2E_SHARDS (default 3) how many e2e.test
 * processes share the parallel specs (the `[Serial]` ones run alone afterwards).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../helpers/eventually.js';
import { pluginBinDir, runKubectl } from '../helpers/harness.js';
import { Proc } from '../helpers/processes.js';
import { APPLIES, KNOWN_FAILING, NOT_APPLICABLE, NOT_RUN, SELECTION } from './upstream-e2e-specs.js';

const PREFIX = '[sig-api-machinery] ';
const WORKSPACE = 'conformance';
const e2eBinary = process.env.ATRIUM_E2E_TEST ?? join(process.env.ATRIUM_ANCHORS ?? join(homedir(), '.cache', 'atrium', 'anchors'), 'bin', 'e2e.test');
const shards = Math.max(1, Number(process.env.ATRIUM_UPSTREAM_E2E_SHARDS ?? 3));
/** Flags that let the suite start against a control plane without nodes (no node, kube-system pod or SA waits). */
const NODELESS = ['--provider=skeleton', '--num-nodes=1', '--allowed-not-ready-nodes=-1', '--minStartupPods=0', '--e2e-verify-service-account=false'];

let dir: string;
let atrium: Proc | undefined;
const running = new Set<ChildProcess>();

interface Run {
  code: number;
  output: string;
}

/** Runs e2e.test with `args` to completion (killed after timeoutMs); never rejects. */
function runE2E(args: string[], timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    // HOME: kubectl, which some specs run, keeps its discovery cache there.
    const child = spawn(e2eBinary, args, { cwd: dir, env: { ...process.env, HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let output = '';
    child.stdout.on('data', (b) => (output += b));
    child.stderr.on('data', (b) => (output += b));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => (output += String(err)));
    child.on('close', (code) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code: code ?? -1, output });
    });
  });
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A ginkgo focus that selects exactly these specs (a spec's text, matched to its end; `^` never matches in ginkgo's full text). */
const focusOf = (specs: string[]): string => specs.map((s) => `${escapeRegExp(PREFIX + s)}$`).join('|');

interface SpecReport {
  ContainerHierarchyTexts: string[] | null;
  LeafNodeText: string;
  LeafNodeType: string;
  State: string;
  RunTime: number;
  Failure?: { Message: string; Location: { FileName: string; LineNumber: number } };
}

function readReport(path: string): SpecReport[] {
  if (!existsSync(path)) return [];
  const reports = JSON.parse(readFileSync(path, 'utf8')) as { SpecReports: SpecReport[] | null }[];
  return reports.flatMap((r) => r.SpecReports ?? []).filter((s) => s.LeafNodeType === 'It');
}
const nameOf = (s: SpecReport): string => [...(s.ContainerHierarchyTexts ?? []), s.LeafNodeText].join(' ');

before(async () => {
  if (!existsSync(e2eBinary)) throw new Error(`upstream's e2e.test is missing: ${e2eBinary} (build it with bench/kube/build-anchors.sh; .ci/run does)`);
  dir = mkdtempSync(join(tmpdir(), 'atrium-upstream-e2e-'));
  const rootDir = join(dir, 'atrium');
  atrium = new Proc('atrium', () => [join(pluginBinDir, 'atrium'), 'start', '--root-dir', rootDir, '--secure-port', '0'], (o) => o.includes('atrium is serving at'));
  await atrium.start(60_000);
  const admin = join(rootDir, 'admin.kubeconfig');
  const kubectl = async (kubeconfig: string, args: string[], input?: string): Promise<string> => {
    const r = await runKubectl(kubeconfig, args, input === undefined ? {} : { input });
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  await kubectl(admin, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: WORKSPACE } }));
  await eventually(`workspace root:${WORKSPACE} Ready`, async () => (await kubectl(admin, ['get', 'workspace', WORKSPACE, '-o', 'jsonpath={.status.phase}'])) === 'Ready', 60_000, 200);
  // The specs' kubeconfig: atrium's admin, in the workspace (what `kubectl ws` would point it at).
  const server = (await kubectl(admin, ['config', 'view', '--minify', '--raw', '-o', 'jsonpath={.clusters[0].cluster.server}'])).trim();
  const kubeconfig = join(dir, 'workspace.kubeconfig');
  writeFileSync(kubeconfig, readFileSync(admin, 'utf8').replace(`server: ${server}`, `server: ${server}:${WORKSPACE}`));
  assert.match(readFileSync(kubeconfig, 'utf8'), new RegExp(`server: .*/clusters/root:${WORKSPACE}\\n`));
  // Compute without a cluster: the workspace serves the workload types (and no pod runs).
  await kubectl(kubeconfig, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', metadata: { name: 'no-cluster' }, spec: {} }));
  await eventually('the workspace to serve apps/v1 deployments', async () => (await kubectl(kubeconfig, ['api-resources', '--api-group=apps', '-o', 'name'])).includes('deployments.apps'), 60_000, 200);
});

after(async () => {
  for (const c of running) c.kill('SIGKILL');
  await atrium?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("upstream's e2e conformance specs (k8s.io/kubernetes v1.32.4) against a workspace", { timeout: 45 * 60_000 }, async () => {
  // The selection, read from the binary itself: every spec it holds is accounted for exactly once.
  const listed = await runE2E(['--list-tests'], 120_000);
  assert.equal(listed.code, 0, `e2e.test --list-tests failed:\n${listed.output.slice(-3000)}`);
  const selected = listed.output
    .split('\n')
    .map((l) => /^\s+\S+\.go:\d+: (.*)$/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined && SELECTION.test(n))
    .map((n) => n.slice(PREFIX.length));
  const entries = [
    ...APPLIES.map((spec) => ({ spec, kind: 'applies' })),
    ...NOT_RUN.map((e) => ({ spec: e.spec, kind: 'not run' })),
    ...NOT_APPLICABLE.map((e) => ({ spec: e.spec, kind: 'not applicable' })),
  ];
  const matches = (entry: string, name: string): boolean => (entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : name === entry);
  const problems: string[] = [];
  for (const name of selected) {
    const found = entries.filter((e) => matches(e.spec, name));
    if (found.length !== 1) problems.push(`${found.length === 0 ? 'not in upstream-e2e-specs.ts' : `listed ${found.length} times (${found.map((f) => f.kind).join(', ')})`}: ${name}`);
  }
  for (const e of entries) if (!selected.some((name) => matches(e.spec, name))) problems.push(`upstream-e2e-specs.ts names a spec e2e.test does not select: ${e.spec}`);
  for (const k of KNOWN_FAILING) if (!APPLIES.includes(k.spec)) problems.push(`KNOWN_FAILING names a spec that is not in APPLIES: ${k.spec}`);
  assert.deepEqual(problems, [], 'the spec lists and the binary disagree');

  // The parallel specs in shards of separate e2e.test processes, then the [Serial] ones alone.
  const kubeconfig = join(dir, 'workspace.kubeconfig');
  const parallel = APPLIES.filter((s) => !s.includes('[Serial]'));
  const serial = APPLIES.filter((s) => s.includes('[Serial]'));
  const groups = Array.from({ length: shards }, (_, i) => parallel.filter((_, j) => j % shards === i)).filter((g) => g.length);
  const runGroup = async (specs: string[], name: string): Promise<{ name: string; run: Run; reports: SpecReport[] }> => {
    const out = join(dir, name);
    mkdirSync(out, { recursive: true });
    const report = join(out, 'report.json');
    const run = await runE2E(
      ['--kubeconfig', kubeconfig, ...NODELESS, '--ginkgo.no-color', '--ginkgo.timeout=40m', `--ginkgo.focus=${focusOf(specs)}`, `--ginkgo.json-report=${report}`, `--report-dir=${out}`],
      42 * 60_000,
    );
    return { name, run, reports: readReport(report) };
  };
  const started = Date.now();
  const results = await Promise.all(groups.map((g, i) => runGroup(g, `shard-${i + 1}`)));
  if (serial.length) results.push(await runGroup(serial, 'serial'));
  const seconds = Math.round((Date.now() - started) / 1000);

  // Each process reports every spec of the binary, those it did not select as skipped: keep the runs.
  const byName = new Map<string, SpecReport>();
  for (const s of results.flatMap((r) => r.reports)) {
    const name = nameOf(s).slice(PREFIX.length);
    if (s.State !== 'skipped' || !byName.has(name)) byName.set(name, s);
  }
  const known = new Map(KNOWN_FAILING.map((k) => [k.spec, k.reason]));
  const failures: string[] = [];
  let passed = 0;
  for (const spec of APPLIES) {
    const s = byName.get(spec);
    if (!s) {
      failures.push(`did not run: ${spec}`);
      continue;
    }
    if (s.State === 'passed') passed++;
    if (known.has(spec)) {
      if (s.State === 'passed') failures.push(`passes now: remove it from KNOWN_FAILING: ${spec}`);
      else if (s.State !== 'failed') failures.push(`${s.State} (a known failure must fail): ${spec}`);
    } else if (s.State !== 'passed') {
      failures.push(`${s.State}: ${spec}\n    ${s.Failure?.Message.split('\n').slice(0, 12).join('\n    ') ?? ''}\n    at ${s.Failure?.Location.FileName ?? '?'}:${s.Failure?.Location.LineNumber ?? '?'}`);
    }
  }
  console.log(
    `upstream e2e (v1.32.4): ${selected.length} specs selected, ${APPLIES.length + NOT_RUN.length} apply, ${APPLIES.length} run, ${passed} passed, ` +
      `${KNOWN_FAILING.length} known failures, ${NOT_RUN.length} not run, ${selected.length - APPLIES.length - NOT_RUN.length} cannot apply; ${seconds} s in ${groups.length} shard(s) + serial`,
  );
  if (failures.length) {
    const tails = results.filter((r) => r.run.code !== 0).map((r) => `--- ${r.name} (exit ${r.run.code}), the end of its output:\n${r.run.output.slice(-4000)}`);
    assert.fail(`${failures.length} problem(s) with upstream's specs:\n${failures.join('\n')}\n${tails.join('\n')}`);
  }
});
