/**
 * Differential checks of PriorityClasses and Priority admission: the same requests go to kube-apiserver v1.32.4 (the
 * reference, started for this suite; a missing binary fails the suite, as ./differential.test.ts's does) and to
 * `atrium pcluster`, which serves the kind (atrium's root workspace, which ./differential.test.ts compares, does not).
 * Answers are normalised as there (./normalise.ts) and must be equal: PriorityClasses whole (managedFields included),
 * Status bodies whole, created pods on the fields Priority admission sets, Tables but for their Age cells (each server's
 * clock since its own create). One known difference: a Table's column descriptions are atrium's own words
 * (kube-apiserver prints the fields' OpenAPI descriptions).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type HttpResponse } from '../helpers/harness.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';
import { differences, normaliseResponse, recordGeneratedNames, type Answer } from './normalise.js';
import { startReference, type Target } from './targets.js';

const PC = '/apis/scheduling.k8s.io/v1/priorityclasses';
const NS = 'prio-diff';
const PODS = `/api/v1/namespaces/${NS}/pods`;
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const TABLE = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

const pc = (name: string, value: number, extra: Record<string, unknown> = {}) => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, ...extra });
const pod = (name: string, spec: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } });

/** What of an answer is compared: a pod only on what Priority admission sets (the rest is other plugins' and controllers'). */
function compared(a: Answer): Answer {
  const body = a.body as any;
  if (body?.kind === 'Pod') return { ...a, body: { name: body.metadata.name, priorityClassName: body.spec.priorityClassName, priority: body.spec.priority, preemptionPolicy: body.spec.preemptionPolicy } };
  if (body?.kind === 'Table') {
    // The Age cell is each server's clock since its own create: the two run side by side and may be a second apart.
    const age = body.columnDefinitions.findIndex((c: any) => c.name === 'Age');
    const rows = body.rows.map((r: any) => ({ ...r, cells: r.cells.map((c: unknown, i: number) => (i === age ? '<age>' : c)) }));
    return { ...a, body: { ...body, rows, columnDefinitions: body.columnDefinitions.map(({ description: _d, ...c }: any) => c) } };
  }
  return a;
}

const STEPS: [string, string, unknown?, Record<string, string>?][] = [
  ['GET', `${PC}/system-node-critical`],
  ['GET', `${PC}/system-cluster-critical`],
  ['DELETE', `${PC}/system-cluster-critical`],
  ['POST', PC, pc('too-high', 1_000_000_001)],
  ['POST', PC, pc('system-mine', 5)],
  ['POST', PC, pc('system-node-critical', 5)],
  ['POST', PC, pc('system-cluster-critical', 2_000_000_000, { globalDefault: true })],
  ['POST', PC, pc('bad-policy', 5, { preemptionPolicy: 'Sometimes' })],
  ['POST', PC, pc('empty-policy', 5, { preemptionPolicy: '' })],
  ['POST', PC, pc('batch', 100, { description: 'batch work' })],
  ['PATCH', `${PC}/batch`, { value: 101 }, MERGE],
  ['PATCH', `${PC}/batch`, { preemptionPolicy: 'Never' }, MERGE],
  ['PATCH', `${PC}/batch`, { description: 'changed', metadata: { generation: 7 } }, MERGE],
  ['POST', PC, pc('default-low', 10, { globalDefault: true })],
  ['POST', PC, pc('default-other', 20, { globalDefault: true })],
  ['PATCH', `${PC}/batch`, { globalDefault: true }, MERGE],
  ['PATCH', `${PC}/default-low`, { description: 'still the default' }, MERGE],
  ['GET', `${PC}/batch`, undefined, TABLE],
  ['POST', `${PC}?dryRun=All`, pc('dry', 1)],
  ['POST', PODS, pod('lost', { priorityClassName: 'nope' })],
  ['POST', PODS, { ...pod(''), metadata: { generateName: 'gen-' }, spec: { priorityClassName: 'nope', containers: [{ name: 'c', image: 'busybox' }] } }],
  ['POST', PC, pc('polite', 500, { preemptionPolicy: 'Never' })],
  ['POST', PODS, pod('polite-pod', { priorityClassName: 'polite' })],
  ['POST', PODS, pod('liar', { priorityClassName: 'polite', priority: 7 })],
  ['POST', PODS, pod('pushy', { priorityClassName: 'polite', preemptionPolicy: 'PreemptLowerPriority' })],
  ['POST', PODS, pod('honest', { priorityClassName: 'polite', priority: 500, preemptionPolicy: 'Never' })],
  ['POST', PODS, pod('critical', { priorityClassName: 'system-node-critical' })],
  ['POST', PODS, pod('plain')],
  ['DELETE', `${PC}/default-low`],
  ['POST', PODS, pod('zero')],
];

async function pclusterTarget(): Promise<Target> {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-diff-priority-'));
  const cluster = await startPcluster({ name: 'diff', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 1 });
  const ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
  return { name: 'sqlite', request: (method, path, body, headers) => ts.request(method, path, body, { headers }), stop: () => ts.stop() };
}

/** The namespace and its default ServiceAccount (kube-apiserver's ServiceAccount admission needs it; no controller makes it there). */
async function prepare(t: Target): Promise<void> {
  await t.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await t.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
}

async function run(t: Target): Promise<Answer[]> {
  await prepare(t);
  const generated = new Map<string, string>();
  const out: Answer[] = [];
  for (const [method, path, body, headers] of STEPS) {
    const r: HttpResponse = await t.request(method, path, body, headers);
    recordGeneratedNames(r.json, generated, (body as any)?.metadata?.generateName);
    out.push(compared(normaliseResponse(r, generated)));
    // Priority admission reads PriorityClasses from a cache on both servers (kube-apiserver's informer, ours): the
    // next step's answer (a second global default refused, a pod's default class) must not depend on which cache
    // caught up first.
    if (method !== 'GET' && path.startsWith(PC) && r.status < 300) await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return out;
}

describe('PriorityClasses and Priority admission: atrium pcluster vs kube-apiserver v1.32.4', () => {
  let kube: Target;
  let atrium: Target;

  before(async () => {
    kube = await startReference();
    atrium = await pclusterTarget();
  });

  after(async () => {
    await atrium?.stop();
    await kube?.stop();
  });

  it('answer alike', async () => {
    const [want, got] = [await run(kube), await run(atrium)];
    const problems = STEPS.flatMap(([method, path, body], i) => {
      const d = differences(want[i], got[i]);
      return d.length ? [`${method} ${path} ${JSON.stringify(body ?? '')}: ${d.join('; ')}\n  kube:   ${JSON.stringify(want[i])}\n  atrium: ${JSON.stringify(got[i])}`] : [];
    });
    assert.deepEqual(problems, []);
  });
});
