/**
 * Running upstream's e2e.test on a list of spec texts and checking that each passed: shared by the conformance suites
 * that hand it a kubeconfig of their own (a simulated cluster, a workspace over clusters).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const e2eBinary = process.env.ATRIUM_E2E_TEST ?? join(process.env.ATRIUM_ANCHORS ?? join(homedir(), '.cache', 'atrium', 'anchors'), 'bin', 'e2e.test');

/**
 * The CronJob conformance specs that wait for schedules in real minutes (about two each) and touch no node: suites run
 * each in an e2e.test process of its own beside their other specs (runEachAlongside).
 */
export const CRONJOB_SPECS = [
  '[sig-apps] CronJob should replace jobs when ReplaceConcurrent [Conformance]',
  '[sig-apps] CronJob should schedule multiple jobs concurrently [Conformance]',
];

interface SpecReport {
  LeafNodeType: string;
  LeafNodeText: string;
  ContainerHierarchyTexts: string[] | null;
  State: string;
  Failure?: { Message: string };
}

export interface FocusedRun {
  code: number;
  output: string;
  /** The specs it ran (each report lists every spec of the binary; those not focused are skipped and left out). */
  reports: SpecReport[];
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Runs e2e.test against `kubeconfig` with exactly `specs` focused (full texts), in `dir` (its HOME too: kubectl, which
 * some specs run, keeps its cache there), the report under `dir/report-<name>`; killed after 13 minutes.
 */
export async function runFocusedE2E(opts: { kubeconfig: string; dir: string; name: string; specs: readonly string[]; numNodes: number }): Promise<FocusedRun> {
  const report = join(opts.dir, `report-${opts.name}`);
  const args = [
    `--kubeconfig=${opts.kubeconfig}`, '--provider=skeleton', `--num-nodes=${opts.numNodes}`, '--allowed-not-ready-nodes=-1', '--minStartupPods=0', '--e2e-verify-service-account=false',
    `--ginkgo.focus=${opts.specs.map((s) => `${escapeRegExp(s)}$`).join('|')}`, '--ginkgo.no-color', `--ginkgo.json-report=${join(report, 'report.json')}`, '--ginkgo.timeout=12m',
  ];
  const started = Date.now();
  const run = await new Promise<{ code: number; output: string }>((resolve) => {
    const child = spawn(e2eBinary, args, { cwd: opts.dir, env: { ...process.env, HOME: opts.dir }, stdio: ['ignore', 'pipe', 'pipe'] });
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
  assert.ok(existsSync(path), `no report from e2e.test (${opts.name}, exit ${run.code}):\n${run.output.slice(-4000)}`);
  const reports = (JSON.parse(readFileSync(path, 'utf8')) as { SpecReports: SpecReport[] | null }[])
    .flatMap((r) => r.SpecReports ?? [])
    .filter((s) => s.LeafNodeType === 'It' && s.State !== 'skipped');
  // Which process took how long: the suites run several side by side, and the longest sets their wall time.
  console.log(`e2e.test ${opts.name}: ${reports.length} spec(s) in ${Math.round((Date.now() - started) / 1000)} s (exit ${run.code})`);
  return { ...run, reports };
}

/**
 * Runs `specs` as ginkgo's parallel mode would, in separate e2e.test processes: the specs that may run beside others
 * dealt round-robin into `shards` processes at once, then the `[Serial]` ones alone in one more. Most specs spend their
 * time waiting (polls every 2 s, pods' start-up), so the shards cut the suite's wall time at little CPU.
 */
export async function runShardedE2E(opts: { kubeconfig: string; dir: string; name: string; specs: readonly string[]; numNodes: number; shards: number }): Promise<FocusedRun[]> {
  const parallel = opts.specs.filter((s) => !s.includes('[Serial]'));
  const serial = opts.specs.filter((s) => s.includes('[Serial]'));
  const groups = Array.from({ length: Math.max(1, opts.shards) }, (_, i) => parallel.filter((_, j) => j % Math.max(1, opts.shards) === i)).filter((g) => g.length);
  const runs = await Promise.all(groups.map((specs, i) => runFocusedE2E({ ...opts, name: `${opts.name}-shard-${i + 1}`, specs })));
  if (serial.length) runs.push(await runFocusedE2E({ ...opts, name: `${opts.name}-serial`, specs: serial }));
  return runs;
}

/** Runs each of `specs` in an e2e.test process of its own, all at once (specs that mostly wait, like CronJob's). */
export function runEachAlongside(opts: { kubeconfig: string; dir: string; name: string; specs: readonly string[]; numNodes: number }): Promise<FocusedRun[]> {
  return Promise.all(opts.specs.map((spec, i) => runFocusedE2E({ ...opts, name: `${opts.name}-${i + 1}`, specs: [spec] })));
}

/** What went wrong with `specs` in `runs`: each spec not run, or not passed (with its failure); empty when all passed. */
export function specProblems(runs: readonly FocusedRun[], specs: readonly string[]): string[] {
  const ran = new Map(runs.flatMap((r) => r.reports).map((s) => [[...(s.ContainerHierarchyTexts ?? []), s.LeafNodeText].join(' '), s]));
  // Ginkgo reports a spec's text with or without the labels its declaration added (`[sig-apps]`, `[Serial]`,
  // `[Conformance]`), depending on how it was declared: both sides are compared without any.
  const norm = (x: string) => x.replace(/\[[^\]]*\]/g, ' ').replace(/\s+/g, ' ').trim();
  const problems: string[] = [];
  for (const spec of specs) {
    const found = [...ran.entries()].find(([n]) => norm(n) === norm(spec));
    if (!found) problems.push(`not run: ${spec}`);
    else if (found[1].State !== 'passed') problems.push(`${found[1].State}: ${spec}: ${found[1].Failure?.Message ?? ''}`);
  }
  return problems;
}
