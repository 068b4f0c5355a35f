import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { isAssigned, keepDownstreamAllocations, mergePatch, toDownstream } from '../../../src/multicluster/syncer/transform.js';
import { finishedRun, upstreamStatus } from '../../../src/multicluster/syncer/resource-syncer.js';
import { UPSTREAM_UID_ANNOTATION } from '../../../src/multicluster/api/types.js';

const target = { name: 'st-a', key: 'ka' };
const placedNs: KubeObject = { metadata: { name: 'shop', labels: { 'state.workload.kcp.io/ka': 'Sync' }, annotations: { 'scheduling.atrium.io/split-workloads': 'true' } } };
const handNs: KubeObject = { metadata: { name: 'demo', labels: { 'state.workload.kcp.io/ka': 'Sync' } } };

describe('isAssigned in a placed namespace: the object\'s own state labels decide for the kinds of the table', () => {
  const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
  const job: KubeObject = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' } };
  const widget: KubeObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
  it('a kind of the table is not assigned by its namespace\'s labels there', () => {
    assert.equal(isAssigned(cm, placedNs, target, { group: '', resource: 'configmaps' }), false);
    assert.equal(isAssigned(job, placedNs, target, { group: 'batch', resource: 'jobs' }), false);
  });
  it('its own state label assigns it', () => {
    const own = { ...job, metadata: { name: 'j', labels: { 'state.workload.kcp.io/ka': 'Sync' } } };
    assert.equal(isAssigned(own, placedNs, target, { group: 'batch', resource: 'jobs' }), true);
    assert.equal(isAssigned(own, placedNs, { name: 'st-b', key: 'kb' }, { group: 'batch', resource: 'jobs' }), false);
  });
  it('a kind outside the table (an operator\'s type) still goes where its namespace goes', () => {
    assert.equal(isAssigned(widget, placedNs, target, { group: 'example.com', resource: 'widgets' }), true);
  });
  it('a namespace assigned by hand keeps the namespace-wide rule', () => {
    assert.equal(isAssigned(cm, handNs, target, { group: '', resource: 'configmaps' }), true);
  });
});

describe('toDownstream: what the cluster generates or allocates is left to it', () => {
  it('a Job without manualSelector loses the selector and labels generated from the upstream uid', () => {
    const up: KubeObject = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'pi', namespace: 'shop', uid: 'UP', labels: { app: 'pi' } },
      spec: {
        manualSelector: false,
        selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'UP' } },
        template: { metadata: { labels: { app: 'pi', 'controller-uid': 'UP', 'batch.kubernetes.io/controller-uid': 'UP', 'job-name': 'pi', 'batch.kubernetes.io/job-name': 'pi' } }, spec: { containers: [] } },
      },
    };
    const down = toDownstream(up, 'jobs', 'kcp-x', 'ka');
    const spec = down.spec as { selector?: unknown; template: { metadata: { labels: Record<string, string> } } };
    assert.equal(spec.selector, undefined);
    assert.deepEqual(spec.template.metadata.labels, { app: 'pi' });
    // The upstream uid is kept in one place only: the annotation that tells a re-created object's copy from the old one.
    const { [UPSTREAM_UID_ANNOTATION]: madeFrom, ...annotations } = down.metadata!.annotations!;
    assert.equal(madeFrom, 'UP');
    assert.equal(JSON.stringify({ ...down, metadata: { ...down.metadata, annotations } }).includes('"UP"'), false);
    // A rewrite keeps what the cluster generated (the selector is immutable there).
    const existing: KubeObject = { spec: { selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'DOWN' } }, template: { metadata: { labels: { app: 'pi', 'controller-uid': 'DOWN', 'batch.kubernetes.io/controller-uid': 'DOWN', 'job-name': 'pi', 'batch.kubernetes.io/job-name': 'pi' } } } } };
    keepDownstreamAllocations('jobs', down, existing);
    assert.deepEqual((down.spec as { selector: unknown }).selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'DOWN' } });
    assert.equal((down.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels['controller-uid'], 'DOWN');
  });

  it('a Job with manualSelector keeps its selector', () => {
    const up: KubeObject = { metadata: { name: 'm' }, spec: { manualSelector: true, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } } } } };
    assert.deepEqual((toDownstream(up, 'jobs', 'ns', 'ka').spec as { selector: unknown }).selector, { matchLabels: { a: 'b' } });
  });

  it('a PVC\'s volumeName and a Pod\'s nodeName are the cluster\'s; kept on rewrite', () => {
    const pvc = toDownstream({ metadata: { name: 'c' }, spec: { volumeName: 'pv-upstream', resources: {} } }, 'persistentvolumeclaims', 'ns', 'ka');
    assert.equal((pvc.spec as { volumeName?: string }).volumeName, undefined);
    keepDownstreamAllocations('persistentvolumeclaims', pvc, { spec: { volumeName: 'pv-7' } });
    assert.equal((pvc.spec as { volumeName?: string }).volumeName, 'pv-7');
    const pod = toDownstream({ metadata: { name: 'p' }, spec: { nodeName: 'n1', containers: [] } }, 'pods', 'ns', 'ka');
    assert.equal((pod.spec as { nodeName?: string }).nodeName, undefined);
    keepDownstreamAllocations('pods', pod, { spec: { nodeName: 'node-3' } });
    assert.equal((pod.spec as { nodeName?: string }).nodeName, 'node-3');
  });

  it('what the cluster\'s RuntimeClass admission gave a pod is kept on rewrite: overhead, node selector, tolerations', () => {
    const up: KubeObject = { metadata: { name: 'p' }, spec: { runtimeClassName: 'kata', nodeSelector: { disk: 'ssd' }, tolerations: [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }], containers: [] } };
    const pod = toDownstream(up, 'pods', 'ns', 'ka');
    const existing = { spec: { overhead: { cpu: '250m' }, nodeSelector: { disk: 'ssd', runtime: 'kata' }, tolerations: [{ key: 'a', operator: 'Exists' }, { key: 'sandboxed', operator: 'Exists' }] } };
    keepDownstreamAllocations('pods', pod, existing);
    const spec = pod.spec as Record<string, unknown>;
    assert.deepEqual(spec.overhead, { cpu: '250m' });
    assert.deepEqual(spec.nodeSelector, { disk: 'ssd', runtime: 'kata' });
    assert.deepEqual(spec.tolerations, [{ key: 'a', operator: 'Exists' }, { key: 'sandboxed', operator: 'Exists' }, { key: 'b', operator: 'Exists' }], 'the copy\'s first, then the ones upstream added');
  });

  it('pod specs and templates pinned to this cluster\'s workspace nodes name its own nodes; a bare Pod\'s binding stays outside the hash', () => {
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'shop', uid: 'U' }, spec: { nodeName: 'east--n1', containers: [] } };
    const down = toDownstream(pod, 'pods', 'kcp-x', 'ka', 'east');
    assert.equal((down.spec as { nodeName?: string }).nodeName, 'n1');
    const unbound = toDownstream({ ...pod, spec: { containers: [] } }, 'pods', 'kcp-x', 'ka', 'east');
    assert.equal(down.metadata?.annotations?.['internal.workload.kcp.io/spec-hash'], unbound.metadata?.annotations?.['internal.workload.kcp.io/spec-hash'], 'the cluster binding it later, mirrored up, rewrites nothing');
    assert.equal((toDownstream(pod, 'pods', 'kcp-x', 'kb', 'west').spec as { nodeName?: string }).nodeName, undefined, 'another cluster\'s node: the cluster schedules');
    const cron: KubeObject = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c', namespace: 'shop' }, spec: { jobTemplate: { spec: { template: { spec: { nodeSelector: { 'kubernetes.io/hostname': 'east--n2' } } } } } } };
    assert.deepEqual((toDownstream(cron, 'cronjobs', 'kcp-x', 'ka', 'east').spec as any).jobTemplate.spec.template.spec.nodeSelector, { 'kubernetes.io/hostname': 'n2' });
    const sts: KubeObject = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's', namespace: 'shop' }, spec: { template: { spec: { nodeName: 'east--n3' } } } };
    assert.equal((toDownstream(sts, 'statefulsets', 'kcp-x', 'ka', 'east').spec as any).template.spec.nodeName, 'n3');
    assert.equal((toDownstream(sts, 'statefulsets', 'kcp-x', 'ka').spec as any).template.spec.nodeName, 'east--n3', 'without the cluster\'s name nothing is rewritten');
  });

  it('a Service loses its addresses and ports allocated upstream, but a headless one stays headless', () => {
    const svc = toDownstream({ metadata: { name: 's' }, spec: { clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'], healthCheckNodePort: 31000, ports: [{ port: 80, nodePort: 30080 }] } }, 'services', 'ns', 'ka');
    assert.deepEqual(svc.spec, { ports: [{ port: 80 }] });
    const headless = toDownstream({ metadata: { name: 'h' }, spec: { clusterIP: 'None', clusterIPs: ['None'], ports: [{ port: 80 }] } }, 'services', 'ns', 'ka');
    assert.equal((headless.spec as { clusterIP: string }).clusterIP, 'None');
  });

  it('applies its own entry of the per-cluster spec and drops the placement bookkeeping', () => {
    const up: KubeObject = {
      metadata: {
        name: 'web',
        annotations: {
          keep: 'me',
          'scheduling.atrium.io/scheduled': '{"type":"Scheduled"}',
          'scheduling.atrium.io/cluster-spec': JSON.stringify({ ka: { minAvailable: 2 }, kb: { minAvailable: 1 } }),
          'status.workload.kcp.io/ka': '{}',
        },
      },
      spec: { minAvailable: 3, selector: { matchLabels: { app: 'web' } } },
    };
    const a = toDownstream(up, 'poddisruptionbudgets', 'ns', 'ka');
    const b = toDownstream(up, 'poddisruptionbudgets', 'ns', 'kb');
    assert.deepEqual([(a.spec as { minAvailable: number }).minAvailable, (b.spec as { minAvailable: number }).minAvailable], [2, 1]);
    assert.deepEqual(Object.keys(a.metadata!.annotations!).sort(), ['internal.workload.kcp.io/spec-hash', 'keep']);
    assert.notEqual(a.metadata!.annotations!['internal.workload.kcp.io/spec-hash'], b.metadata!.annotations!['internal.workload.kcp.io/spec-hash']);
  });

  it('mergePatch merges objects, replaces the rest, deletes on null', () => {
    assert.deepEqual(mergePatch({ a: { b: 1, c: 2 }, d: [1], e: 1 }, { a: { b: 9 }, d: [2], e: null }), { a: { b: 9, c: 2 }, d: [2] });
  });
});

describe('upstreamStatus: a CronJob\'s active Jobs in upstream terms', () => {
  it('names them in the upstream namespace, without the cluster\'s uid and resourceVersion', () => {
    const up: KubeObject = { metadata: { name: 'tick', namespace: 'shop' } };
    const down: KubeObject = { metadata: { name: 'tick', namespace: 'kcp-x' }, status: { lastScheduleTime: 't', active: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'tick-1', namespace: 'kcp-x', uid: 'u', resourceVersion: '9' }] } };
    assert.deepEqual(upstreamStatus(up, down, 'cronjobs'), { lastScheduleTime: 't', active: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'tick-1', namespace: 'shop' }] });
  });
});

describe('finishedRun: what is never started again', () => {
  it('a Job Complete or Failed, a Pod Succeeded or Failed', () => {
    assert.equal(finishedRun('jobs', { status: { conditions: [{ type: 'Complete', status: 'True' }] } }), true);
    assert.equal(finishedRun('jobs', { status: { conditions: [{ type: 'Failed', status: 'True' }] } }), true);
    assert.equal(finishedRun('jobs', { status: { conditions: [{ type: 'Complete', status: 'False' }], active: 1 } }), false);
    assert.equal(finishedRun('jobs', { status: {} }), false);
    assert.equal(finishedRun('pods', { status: { phase: 'Succeeded' } }), true);
    assert.equal(finishedRun('pods', { status: { phase: 'Running' } }), false);
    assert.equal(finishedRun('statefulsets', { status: { phase: 'Succeeded' } }), false);
  });
});
