/**
 * Jobs, CronJobs, HorizontalPodAutoscalers and PodDisruptionBudgets in a real simulated cluster, with the
 * simulation's knobs turned for speed: Job pods run 0.5 s, the failure backoff is 0.2 s, CronJobs run on a clock 60
 * times faster (a `* * * * *` schedule fires every second), HPAs sync every 0.5 s with a 2 s scale-down window.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';
import { RestClient } from '../../src/client/rest-client.js';
import { admissionResponse, startWebhookServer } from '../helpers/webhook-server.js';

let ts: TestServer;
const batch = '/apis/batch/v1/namespaces/default';
const core = '/api/v1/namespaces/default';
const apps = '/apis/apps/v1/namespaces/default';
const merge = { headers: { 'Content-Type': 'application/merge-patch+json' } };

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-batch-'));
  const cluster = await startPcluster({
    name: 'ba',
    rootDir,
    bindAddress: '127.0.0.1',
    securePort: 0,
    nodes: 2,
    nodeCapacity: { cpu: '16', memory: '64Gi', pods: '110' },
    readyDelayMs: 200,
    jobDurationMs: 500,
    jobBackoffMs: 200,
    cronJobTimeScale: 60,
    hpaSyncPeriodMs: 500,
    hpaDownscaleStabilizationMs: 2000,
  });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
});

after(async () => {
  await ts?.stop();
});

function job(name: string, spec: Record<string, unknown> = {}, annotations: Record<string, string> = {}, restartPolicy = 'Never') {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      template: { metadata: { annotations }, spec: { restartPolicy, containers: [{ name: 'work', image: 'busybox' }] } },
      ...spec,
    },
  };
}

const getJob = async (name: string) => (await ts.request('GET', `${batch}/jobs/${name}`)).json;
const jobPods = async (name: string): Promise<any[]> => (await ts.request('GET', `${core}/pods?labelSelector=batch.kubernetes.io%2Fjob-name%3D${name}`)).json.items;
const condition = (obj: any, type: string) => obj.status?.conditions?.find((c: any) => c.type === type);
const finished = (name: string, type: 'Complete' | 'Failed', timeoutMs = 30_000) =>
  eventually(`job ${name} ${type}`, async () => {
    const j = await getJob(name);
    return condition(j, type)?.status === 'True' ? j : undefined;
  }, timeoutMs, 50);

describe('Job controller', () => {
  it('runs completions with parallelism, tracks pods with the finalizer, and completes', async () => {
    const created = await ts.request('POST', `${batch}/jobs`, job('pi', { completions: 3, parallelism: 2 }));
    assert.equal(created.status, 201, created.text);
    let maxActive = 0;
    let sawFinalizer = false;
    const j = await eventually('pi Complete', async () => {
      const pods = await jobPods('pi');
      maxActive = Math.max(maxActive, pods.filter((p) => !['Succeeded', 'Failed'].includes(p.status.phase)).length);
      sawFinalizer ||= pods.some((p) => p.metadata.finalizers?.includes('batch.kubernetes.io/job-tracking'));
      const x = await getJob('pi');
      return condition(x, 'Complete')?.status === 'True' ? x : undefined;
    }, 30_000, 25);
    assert.ok(maxActive <= 2, `parallelism 2 (saw ${maxActive})`);
    assert.ok(sawFinalizer, 'pods carry the job-tracking finalizer while running');
    assert.equal(j.status.succeeded, 3);
    assert.equal(j.status.failed, undefined);
    assert.equal(j.status.active, undefined);
    assert.equal(j.status.ready, 0);
    assert.equal(j.status.terminating, 0);
    assert.deepEqual(j.status.uncountedTerminatedPods, {});
    assert.ok(j.status.startTime && j.status.completionTime);
    assert.deepEqual(j.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message]), [
      ['SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
      ['Complete', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
    ]);
    const pods = await jobPods('pi');
    assert.equal(pods.length, 3);
    for (const p of pods) {
      assert.equal(p.status.phase, 'Succeeded');
      assert.deepEqual(p.metadata.finalizers ?? [], []);
      assert.equal(p.metadata.labels['batch.kubernetes.io/controller-uid'], j.metadata.uid);
      assert.equal(p.metadata.ownerReferences[0].kind, 'Job');
      const term = p.status.containerStatuses[0].state.terminated;
      assert.deepEqual([term.exitCode, term.reason], [0, 'Completed']);
      assert.equal(condition(p, 'Ready').reason, 'PodCompleted');
    }
    const table = (await ts.request('GET', `${batch}/jobs/pi`, undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })).json;
    assert.deepEqual(table.rows[0].cells.slice(0, 3), ['pi', 'Complete', '3/3']);
  });

  it('gives Indexed pods their completion index, hostname and variable, and reports completedIndexes', async () => {
    assert.equal((await ts.request('POST', `${batch}/jobs`, job('idx', { completions: 3, parallelism: 3, completionMode: 'Indexed' }))).status, 201);
    const j = await finished('idx', 'Complete');
    assert.equal(j.status.completedIndexes, '0-2');
    assert.equal(j.status.succeeded, 3);
    const pods = (await jobPods('idx')).sort((a, b) => a.metadata.annotations['batch.kubernetes.io/job-completion-index'].localeCompare(b.metadata.annotations['batch.kubernetes.io/job-completion-index']));
    pods.forEach((p, i) => {
      assert.equal(p.metadata.annotations['batch.kubernetes.io/job-completion-index'], String(i));
      assert.equal(p.metadata.labels['batch.kubernetes.io/job-completion-index'], String(i));
      assert.equal(p.spec.hostname, `idx-${i}`);
      assert.ok(p.metadata.name.startsWith(`idx-${i}-`));
      assert.deepEqual(p.spec.containers[0].env.find((e: any) => e.name === 'JOB_COMPLETION_INDEX').valueFrom.fieldRef.fieldPath, "metadata.annotations['batch.kubernetes.io/job-completion-index']");
    });
  });

  it('fails a Job past its backoffLimit: FailureTarget, then Failed with BackoffLimitExceeded', async () => {
    assert.equal((await ts.request('POST', `${batch}/jobs`, job('boom', { backoffLimit: 1 }, { 'sim.atrium.io/exit-code': '1' }))).status, 201);
    const j = await finished('boom', 'Failed');
    assert.equal(j.status.failed, 2);
    assert.equal(j.status.succeeded, undefined);
    assert.deepEqual(j.status.conditions.map((c: any) => [c.type, c.status, c.reason]), [
      ['FailureTarget', 'True', 'BackoffLimitExceeded'],
      ['Failed', 'True', 'BackoffLimitExceeded'],
    ]);
    assert.equal(condition(j, 'Failed').message, 'Job has reached the specified backoff limit');
    const pods = await jobPods('boom');
    assert.equal(pods.length, 2);
    for (const p of pods) {
      assert.equal(p.status.phase, 'Failed');
      assert.deepEqual([p.status.containerStatuses[0].state.terminated.exitCode, p.status.containerStatuses[0].state.terminated.reason], [1, 'Error']);
    }
  });

  it('reads a plain `exit N` command as the exit code, and fails the Job at once on a podFailurePolicy FailJob rule', async () => {
    const spec = {
      backoffLimit: 6,
      podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] },
    };
    const body = job('fail-fast', spec);
    (body.spec.template.spec.containers[0] as Record<string, unknown>).command = ['sh', '-c', 'exit 42'];
    assert.equal((await ts.request('POST', `${batch}/jobs`, body)).status, 201);
    const j = await finished('fail-fast', 'Failed');
    const [pod] = await jobPods('fail-fast');
    assert.deepEqual([pod.status.phase, pod.status.containerStatuses[0].state.terminated.exitCode], ['Failed', 42]);
    assert.equal(j.status.failed, 1, 'one failure, not backoffLimit + 1');
    assert.deepEqual(j.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message]), [
      ['FailureTarget', 'True', 'PodFailurePolicy', `Container work for pod default/${pod.metadata.name} failed with exit code 42 matching FailJob rule at index 0`],
      ['Failed', 'True', 'PodFailurePolicy', `Container work for pod default/${pod.metadata.name} failed with exit code 42 matching FailJob rule at index 0`],
    ]);
  });

  it('stops the containers of an evicted pod that its finalizer keeps, and a podFailurePolicy Ignore rule does not count it', async () => {
    const spec = {
      backoffLimit: 0,
      podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] },
    };
    const body = job('evictee', spec);
    (body.spec.template.spec.containers[0] as Record<string, unknown>).command = ['sleep', '300'];
    assert.equal((await ts.request('POST', `${batch}/jobs`, body)).status, 201);
    const running = await eventually('evictee pod Ready', async () => (await jobPods('evictee')).find((p) => condition(p, 'Ready')?.status === 'True'), 20_000, 50);
    const evicted = await ts.request('POST', `${core}/pods/${running.metadata.name}/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: running.metadata.name } });
    assert.equal(evicted.status, 201, evicted.text);
    // The kubelet stops it (exit 137, Failed), the Job ignores the failure, releases the pod and starts another.
    const replaced = await eventually('a replacement pod, the evicted one gone', async () => {
      const pods = await jobPods('evictee');
      return !pods.some((p) => p.metadata.uid === running.metadata.uid) && pods.some((p) => p.status.phase !== 'Failed') && pods;
    }, 20_000, 50);
    assert.equal(replaced.length, 1);
    const j = await getJob('evictee');
    assert.equal(condition(j, 'Failed'), undefined, 'an ignored failure does not fail a Job with backoffLimit 0');
    assert.equal(j.status.failed, undefined);
    // `sleep 300`: the replacement is still running, not completed after the default run time.
    assert.equal(condition(j, 'Complete'), undefined);
    assert.equal((await ts.request('DELETE', `${batch}/jobs/evictee?propagationPolicy=Background`)).status, 200);
  });

  it('reports the evicted pod as the kubelet does while its finalizer holds it', async () => {
    // A pod with a finalizer of its own: deletion leaves the object, the kubelet stops the containers.
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'held', finalizers: ['example.com/hold'] }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    assert.equal((await ts.request('POST', `${core}/pods`, pod)).status, 201);
    await eventually('held Ready', async () => condition((await ts.request('GET', `${core}/pods/held`)).json, 'Ready')?.status === 'True', 20_000, 50);
    assert.equal((await ts.request('DELETE', `${core}/pods/held`)).status, 200);
    const stopped = await eventually('held Failed', async () => {
      const p = (await ts.request('GET', `${core}/pods/held`)).json;
      return p.status.phase === 'Failed' && p;
    }, 20_000, 50);
    const term = stopped.status.containerStatuses[0].state.terminated;
    assert.deepEqual([term.exitCode, term.reason, stopped.status.containerStatuses[0].ready], [137, 'Error', false]);
    assert.deepEqual([condition(stopped, 'Ready').status, condition(stopped, 'Ready').reason], ['False', 'PodFailed']);
    assert.equal((await ts.request('PATCH', `${core}/pods/held`, { metadata: { finalizers: null } }, merge)).status, 200);
    await eventually('held gone', async () => (await ts.request('GET', `${core}/pods/held`)).status === 404, 20_000, 50);
  });

  it('with restartPolicy OnFailure restarts the container in place and counts restarts against backoffLimit', async () => {
    // A watch sees every restart, however briefly the pod lives.
    const client = await RestClient.fromKubeconfig(ts.kubeconfig);
    const watch = await client.watch({ group: '', version: 'v1', resource: 'pods' }, { namespace: 'default' }, { labelSelector: 'batch.kubernetes.io/job-name=flaky' });
    const restartCounts: number[] = [];
    const watching = (async () => {
      for await (const e of watch) restartCounts.push((e.object.status as any)?.containerStatuses?.[0]?.restartCount ?? 0);
    })();
    try {
      assert.equal((await ts.request('POST', `${batch}/jobs`, job('flaky', { backoffLimit: 2 }, { 'sim.atrium.io/exit-code': '3', 'sim.atrium.io/run-seconds': '0.3' }, 'OnFailure'))).status, 201);
      const j = await finished('flaky', 'Failed');
      assert.equal(condition(j, 'Failed').reason, 'BackoffLimitExceeded');
      // The pod that kept restarting was deleted as the Job failed, and counted.
      assert.equal(j.status.failed, 1);
      await eventually('flaky pod gone', async () => (await jobPods('flaky')).length === 0, 10_000);
      assert.equal(Math.max(...restartCounts), 2, `restart counts seen: ${restartCounts}`);
      const p = await ts.request('GET', `${core}/events`);
      assert.ok(p.json.items.some((e: any) => e.involvedObject.name === 'flaky' && e.reason === 'BackoffLimitExceeded' && e.type === 'Warning'));
    } finally {
      watch.stop();
      await watching.catch(() => undefined);
      client.close();
    }
  });

  it('fails a Job that runs past activeDeadlineSeconds with DeadlineExceeded', async () => {
    assert.equal((await ts.request('POST', `${batch}/jobs`, job('slow', { activeDeadlineSeconds: 1 }, { 'sim.atrium.io/run-seconds': '60' }))).status, 201);
    const j = await finished('slow', 'Failed', 20_000);
    assert.equal(condition(j, 'Failed').reason, 'DeadlineExceeded');
    assert.equal(condition(j, 'Failed').message, 'Job was active longer than specified deadline');
    assert.equal(j.status.failed, 1);
  });

  it('holds a suspended Job, runs it on resume, and deletes it after ttlSecondsAfterFinished', async () => {
    assert.equal((await ts.request('POST', `${batch}/jobs`, job('later', { suspend: true, ttlSecondsAfterFinished: 1 }))).status, 201);
    const suspended = await eventually('Suspended', async () => {
      const x = await getJob('later');
      return condition(x, 'Suspended')?.status === 'True' ? x : undefined;
    });
    assert.equal(condition(suspended, 'Suspended').reason, 'JobSuspended');
    assert.equal(suspended.status.startTime, undefined);
    assert.equal((await jobPods('later')).length, 0);
    assert.equal((await ts.request('PATCH', `${batch}/jobs/later`, { spec: { suspend: false } }, merge)).status, 200);
    const j = await finished('later', 'Complete');
    assert.deepEqual([condition(j, 'Suspended').status, condition(j, 'Suspended').reason], ['False', 'JobResumed']);
    await eventually('later deleted by its TTL', async () => (await ts.request('GET', `${batch}/jobs/later`)).status === 404, 20_000);
    await eventually('its pods too', async () => (await jobPods('later')).length === 0, 20_000);
  });

  it('stamps Complete when the Job finishes, not when the sync that finished it began, so a short TTL still lets it be seen', async () => {
    // A webhook holds the removal of the pod's job-tracking finalizer for 2.5 s, as a loaded server can be slow: the
    // sync that counts the finished pod, removes its finalizer and then records Complete ends that much after it
    // began. Stamped with the sync's start, Complete (and completionTime) lay seconds in the past when written, and
    // ttlSecondsAfterFinished: 1, counted from it, deleted the Job at once — a client polling for Complete missed it.
    const wh = await startWebhookServer();
    const tracking = 'batch.kubernetes.io/job-tracking';
    const holds = (o: any) => (o?.metadata?.finalizers ?? []).includes(tracking);
    let releasedAt = 0;
    wh.handle('/hold', async (review) => {
      if (holds(review.request.oldObject) && !holds(review.request.object)) {
        await new Promise((r) => setTimeout(r, 2500));
        releasedAt = Date.now();
      }
      return admissionResponse(review, { allowed: true });
    });
    const vwc = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
    const hook = {
      name: 'hold-finalizer-removal.example.com',
      clientConfig: { url: `${wh.url}/hold`, caBundle: wh.caBundle },
      rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      objectSelector: { matchLabels: { hold: 'finalizer-removal' } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 10,
    };
    const configured = await ts.request('POST', vwc, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'hold-finalizer-removal' }, webhooks: [hook] });
    assert.equal(configured.status, 201, configured.text);
    const client = await RestClient.fromKubeconfig(ts.kubeconfig);
    const watch = await client.watch({ group: 'batch', version: 'v1', resource: 'jobs' }, { namespace: 'default' }, { fieldSelector: 'metadata.name=held' });
    let complete: any;
    let completeSeenAt = 0;
    let goneAt = 0;
    const watching = (async () => {
      for await (const e of watch) {
        const o: any = e.object;
        if (!complete && condition(o, 'Complete')?.status === 'True') [complete, completeSeenAt] = [o, Date.now()];
        if (complete && !goneAt && (e.type === 'DELETED' || o.metadata?.deletionTimestamp)) goneAt = Date.now();
      }
    })();
    try {
      const held = job('held', { ttlSecondsAfterFinished: 1 });
      (held.spec.template as any).metadata.labels = { hold: 'finalizer-removal' };
      assert.equal((await ts.request('POST', `${batch}/jobs`, held)).status, 201);
      await eventually('held deleted by its TTL', async () => goneAt > 0, 30_000);
      assert.ok(releasedAt > 0, 'the webhook held the finalizer removal');
      // Recorded after the finalizer went: in the second it went, or a later one (the stamps have whole seconds).
      const releasedSecond = Math.floor(releasedAt / 1000) * 1000;
      assert.ok(Date.parse(condition(complete, 'Complete').lastTransitionTime) >= releasedSecond, `Complete stamped ${condition(complete, 'Complete').lastTransitionTime}, before the finalizer went at ${new Date(releasedAt).toISOString()}`);
      assert.ok(Date.parse(complete.status.completionTime) >= releasedSecond, `completionTime ${complete.status.completionTime}`);
      // So the TTL runs from when the Job finished: it is there, Complete, for about its TTL.
      assert.ok(goneAt - completeSeenAt >= 500, `deleted ${goneAt - completeSeenAt} ms after it was seen Complete`);
    } finally {
      watch.stop();
      await watching.catch(() => undefined);
      client.close();
      await ts.request('DELETE', `${vwc}/hold-finalizer-removal`);
      await wh.close();
    }
  });

  it('never reports a finished pod as active once it is recorded in uncountedTerminatedPods', async () => {
    // A watch sees every status write, however brief: each one counts a pod once — active, or finished (uncounted or
    // succeeded) — including the write that records finished pods before their finalizers go.
    const client = await RestClient.fromKubeconfig(ts.kubeconfig);
    const watch = await client.watch({ group: 'batch', version: 'v1', resource: 'jobs' }, { namespace: 'default' }, { fieldSelector: 'metadata.name=tally' });
    const statuses: any[] = [];
    const watching = (async () => {
      for await (const e of watch) statuses.push(e.object.status ?? {});
    })();
    try {
      assert.equal((await ts.request('POST', `${batch}/jobs`, job('tally', { completions: 2, parallelism: 2 }))).status, 201);
      await finished('tally', 'Complete');
      await eventually('the watch saw Complete', async () => statuses.some((s) => s.conditions?.some((c: any) => c.type === 'Complete')), 10_000);
      assert.ok(statuses.some((s) => s.uncountedTerminatedPods?.succeeded?.length), 'finished pods went through uncountedTerminatedPods');
      for (const s of statuses) {
        const uncounted = s.uncountedTerminatedPods?.succeeded?.length ?? 0;
        assert.ok((s.active ?? 0) + uncounted + (s.succeeded ?? 0) <= 2, `a pod counted twice: ${JSON.stringify(s)}`);
        assert.ok((s.ready ?? 0) <= (s.active ?? 0), `ready beyond active: ${JSON.stringify(s)}`);
      }
    } finally {
      watch.stop();
      await watching.catch(() => undefined);
      client.close();
    }
  });

  it('keeps a finished Job for all of its ttlSecondsAfterFinished, though its finish time is stamped in whole seconds', async () => {
    // The Job finishes late in a second (its Complete condition is set through the status subresource while it is
    // held suspended, so no pod runs): counted from the whole-second stamp, a 1 s TTL would delete it about half a
    // second after it finished — so soon that a client polling for Complete could miss it altogether.
    assert.equal((await ts.request('POST', `${batch}/jobs`, job('brief', { suspend: true, ttlSecondsAfterFinished: 1 }))).status, 201);
    const held = await eventually('brief Suspended', async () => {
      const x = await getJob('brief');
      return condition(x, 'Suspended')?.status === 'True' ? x : undefined;
    });
    const intoSecond = Date.now() % 1000;
    await new Promise((r) => setTimeout(r, (1550 - intoSecond) % 1000));
    const finishedAt = Date.now();
    const stamp = new Date(finishedAt).toISOString().replace(/\.\d+Z$/, 'Z');
    const done = (type: string) => ({ type, status: 'True', lastProbeTime: stamp, lastTransitionTime: stamp, reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' });
    const patched = await ts.request('PATCH', `${batch}/jobs/brief/status`, { status: { startTime: stamp, completionTime: stamp, conditions: [...held.status.conditions, done('SuccessCriteriaMet'), done('Complete')] } }, merge);
    assert.equal(patched.status, 200, patched.text);
    const goneAt = await eventually('brief deleted by its TTL', async () => {
      const r = await ts.request('GET', `${batch}/jobs/brief`);
      return r.status === 404 || r.json.metadata?.deletionTimestamp ? Date.now() : undefined;
    }, 20_000, 20);
    assert.ok(goneAt - finishedAt >= 1000, `deleted ${goneAt - finishedAt} ms after it finished, before its 1 s TTL ran out`);
  });
});

describe('CronJob controller', () => {
  it('creates Jobs on schedule with the scheduled-time name and annotation, and keeps the history limit', async () => {
    const cj = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'tick' },
      spec: { schedule: '* * * * *', successfulJobsHistoryLimit: 2, jobTemplate: { metadata: { labels: { from: 'tick' } }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } } },
    };
    assert.equal((await ts.request('POST', `${batch}/cronjobs`, cj)).status, 201);
    const jobs = await eventually('three jobs scheduled', async () => {
      const list = (await ts.request('GET', `${batch}/jobs?labelSelector=from%3Dtick`)).json.items;
      const s = (await ts.request('GET', `${batch}/cronjobs/tick`)).json.status;
      return s?.lastSuccessfulTime && list.length >= 2 ? list : undefined;
    }, 30_000, 100);
    const owner = (await ts.request('GET', `${batch}/cronjobs/tick`)).json;
    for (const j of jobs) {
      const minutes = Number(j.metadata.name.slice('tick-'.length));
      assert.ok(Number.isInteger(minutes), j.metadata.name);
      assert.equal(j.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp'], new Date(minutes * 60_000).toISOString().replace('.000Z', 'Z'));
      assert.deepEqual(j.metadata.ownerReferences[0], { apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true });
    }
    assert.match(owner.status.lastScheduleTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);
    // Completed Jobs beyond successfulJobsHistoryLimit are deleted, oldest first.
    await new Promise((r) => setTimeout(r, 4000));
    const later = (await ts.request('GET', `${batch}/jobs?labelSelector=from%3Dtick`)).json.items;
    const complete = later.filter((j: any) => j.status?.conditions?.some((c: any) => c.type === 'Complete' && c.status === 'True'));
    assert.ok(complete.length <= 2, `at most 2 completed jobs kept (saw ${complete.length})`);
    assert.ok(later.length >= 2);
    assert.equal((await ts.request('PATCH', `${batch}/cronjobs/tick`, { spec: { suspend: true } }, merge)).status, 200);
  });

  it('with concurrencyPolicy Forbid runs one Job at a time; Replace replaces the running one', async () => {
    const mk = (name: string, policy: string) => ({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name },
      spec: { schedule: '* * * * *', concurrencyPolicy: policy, jobTemplate: { spec: { template: { metadata: { annotations: { 'sim.atrium.io/run-seconds': '600' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } } },
    });
    assert.equal((await ts.request('POST', `${batch}/cronjobs`, mk('solo', 'Forbid'))).status, 201);
    assert.equal((await ts.request('POST', `${batch}/cronjobs`, mk('swap', 'Replace'))).status, 201);
    const owned = async (name: string) => (await ts.request('GET', `${batch}/jobs`)).json.items.filter((j: any) => j.metadata.ownerReferences?.[0]?.name === name);
    const first = await eventually('swap has a job', async () => (await owned('swap'))[0], 20_000);
    await eventually('swap replaced its job', async () => {
      const list = await owned('swap');
      return list.length === 1 && list[0].metadata.name !== first.metadata.name;
    }, 20_000);
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal((await owned('solo')).length, 1, 'Forbid never starts a second Job while one runs');
    const solo = (await ts.request('GET', `${batch}/cronjobs/solo`)).json;
    assert.equal(solo.status.active.length, 1);
    assert.equal(solo.status.active[0].kind, 'Job');
    for (const name of ['solo', 'swap']) assert.equal((await ts.request('DELETE', `${batch}/cronjobs/${name}`)).status, 200);
  });
});

function deployment(name: string, replicas: number, cpuUtilization: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name }, annotations: { 'sim.atrium.io/cpu-utilization': cpuUtilization } },
        spec: { containers: [{ name: 'main', image: 'nginx', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
      },
    },
  };
}

describe('HorizontalPodAutoscaler controller', () => {
  it('scales a Deployment up on high simulated CPU, capped at maxReplicas, and reports its metrics', async () => {
    assert.equal((await ts.request('POST', `${apps}/deployments`, deployment('busy', 2, '150'))).status, 201);
    const hpa = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'busy' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'busy' }, minReplicas: 1, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] },
    };
    assert.equal((await ts.request('POST', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', hpa)).status, 201);
    const h = await eventually('scaled to 5', async () => {
      const x = (await ts.request('GET', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/busy')).json;
      return x.status?.currentReplicas === 5 && x.status.desiredReplicas === 5 ? x : undefined;
    }, 30_000, 100);
    assert.deepEqual(h.status.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 150, averageValue: '150m' } } }]);
    assert.ok(h.status.lastScaleTime);
    const cond = (t: string) => h.status.conditions.find((c: any) => c.type === t);
    assert.equal(cond('AbleToScale').status, 'True');
    assert.deepEqual([cond('ScalingActive').status, cond('ScalingActive').reason, cond('ScalingActive').message], ['True', 'ValidMetricFound', 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)']);
    assert.deepEqual([cond('ScalingLimited').status, cond('ScalingLimited').reason], ['True', 'TooManyReplicas']);
    const d = (await ts.request('GET', `${apps}/deployments/busy`)).json;
    assert.equal(d.spec.replicas, 5);
    const table = (await ts.request('GET', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/busy', undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })).json;
    assert.deepEqual(table.rows[0].cells.slice(1, 6), ['Deployment/busy', 'cpu: 150%/80%', '1', 5, 5]);
    // The v1 view shows the same through conversion.
    const v1 = (await ts.request('GET', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/busy')).json;
    assert.equal(v1.status.currentCPUUtilizationPercentage, 150);
  });

  it('scales down to minReplicas after the stabilization window once usage drops', async () => {
    // New pods at 10 %: the recommendation drops to 1, held back by the (2 s) scale-down window.
    const p = await ts.request('PATCH', `${apps}/deployments/busy`, { spec: { template: { metadata: { annotations: { 'sim.atrium.io/cpu-utilization': '10' } } } } }, { headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    assert.equal(p.status, 200, p.text);
    const h = await eventually('scaled to 1', async () => {
      const x = (await ts.request('GET', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/busy')).json;
      return x.status?.desiredReplicas === 1 ? x : undefined;
    }, 40_000, 200);
    assert.deepEqual(h.status.currentMetrics[0].resource.current, { averageUtilization: 10, averageValue: '10m' });
    assert.equal(h.status.conditions.find((c: any) => c.type === 'ScalingLimited').reason, 'DesiredWithinRange');
    await eventually('deployment at 1', async () => (await ts.request('GET', `${apps}/deployments/busy`)).json.spec.replicas === 1, 10_000);
  });

  it('reports a metric it cannot compute (no CPU request) as ScalingActive False', async () => {
    const d = deployment('noreq', 1, '50');
    delete (d.spec.template.spec.containers[0] as any).resources;
    assert.equal((await ts.request('POST', `${apps}/deployments`, d)).status, 201);
    const hpa = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'noreq' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'noreq' }, maxReplicas: 3 } };
    assert.equal((await ts.request('POST', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', hpa)).status, 201);
    const h = await eventually('ScalingActive False', async () => {
      const x = (await ts.request('GET', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/noreq')).json;
      const c = x.status?.conditions?.find((y: any) => y.type === 'ScalingActive');
      return c?.status === 'False' && c.reason === 'FailedGetResourceMetric' && c.message.includes('missing request') ? x : undefined;
    }, 20_000);
    assert.match(h.status.conditions.find((y: any) => y.type === 'ScalingActive').message, /^the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu/);
    const table = (await ts.request('GET', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/noreq', undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })).json;
    assert.equal(table.rows[0].cells[2], 'cpu: <unknown>/80%');
  });
});

describe('disruption controller', () => {
  it('reports a budget against the pods and the scale of their controller', async () => {
    assert.equal((await ts.request('POST', `${apps}/deployments`, deployment('guarded', 3, '10'))).status, 201);
    const pdb = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'guarded' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'guarded' } } } };
    assert.equal((await ts.request('POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', pdb)).status, 201);
    const p = await eventually('budget with 3 healthy', async () => {
      const x = (await ts.request('GET', '/apis/policy/v1/namespaces/default/poddisruptionbudgets/guarded')).json;
      return x.status?.currentHealthy === 3 ? x : undefined;
    }, 20_000);
    assert.deepEqual(
      { expectedPods: p.status.expectedPods, currentHealthy: p.status.currentHealthy, desiredHealthy: p.status.desiredHealthy, disruptionsAllowed: p.status.disruptionsAllowed, observedGeneration: p.status.observedGeneration },
      { expectedPods: 3, currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1, observedGeneration: 1 },
    );
    const c = p.status.conditions[0];
    assert.deepEqual([c.type, c.status, c.reason, c.message, c.observedGeneration], ['DisruptionAllowed', 'True', 'SufficientPods', '', 1]);

    // maxUnavailable as a percentage scales with the Deployment: 50 % of 3 rounds up to 2 unavailable.
    assert.equal((await ts.request('PATCH', '/apis/policy/v1/namespaces/default/poddisruptionbudgets/guarded', { spec: { minAvailable: null, maxUnavailable: '50%' } }, merge)).status, 200);
    const q = await eventually('generation 2 observed', async () => {
      const x = (await ts.request('GET', '/apis/policy/v1/namespaces/default/poddisruptionbudgets/guarded')).json;
      return x.status?.observedGeneration === 2 ? x : undefined;
    }, 20_000);
    assert.deepEqual([q.status.expectedPods, q.status.desiredHealthy, q.status.disruptionsAllowed], [3, 1, 2]);

    // Too strict a budget allows nothing.
    assert.equal((await ts.request('PATCH', '/apis/policy/v1/namespaces/default/poddisruptionbudgets/guarded', { spec: { maxUnavailable: 0 } }, merge)).status, 200);
    const r = await eventually('no disruptions', async () => {
      const x = (await ts.request('GET', '/apis/policy/v1/namespaces/default/poddisruptionbudgets/guarded')).json;
      return x.status?.observedGeneration === 3 ? x : undefined;
    }, 20_000);
    assert.equal(r.status.disruptionsAllowed, 0);
    assert.deepEqual([r.status.conditions[0].status, r.status.conditions[0].reason], ['False', 'InsufficientPods']);
  });

  it('expects nothing of pods without a controller, and fails safe for pods of a controller without a scale', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'naked', labels: { app: 'naked' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
    assert.equal((await ts.request('POST', `${core}/pods`, pod)).status, 201);
    const pdb = (name: string, selector: Record<string, string>) => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { maxUnavailable: '10%', selector: { matchLabels: selector } } });
    assert.equal((await ts.request('POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', pdb('naked', { app: 'naked' }))).status, 201);
    const p = await eventually('naked budget computed', async () => {
      const x = (await ts.request('GET', '/apis/policy/v1/namespaces/default/poddisruptionbudgets/naked')).json;
      return x.status?.conditions?.length ? x : undefined;
    }, 20_000);
    assert.deepEqual([p.status.expectedPods, p.status.disruptionsAllowed, p.status.conditions[0].reason], [0, 0, 'InsufficientPods']);

    // A Job has no scale: the budget cannot be computed.
    assert.equal((await ts.request('POST', `${batch}/jobs`, job('longrun', {}, { 'sim.atrium.io/run-seconds': '600' }))).status, 201);
    await eventually('longrun pod', async () => (await jobPods('longrun')).length === 1);
    assert.equal((await ts.request('POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', pdb('batchy', { 'batch.kubernetes.io/job-name': 'longrun' }))).status, 201);
    const q = await eventually('batchy fails safe', async () => {
      const x = (await ts.request('GET', '/apis/policy/v1/namespaces/default/poddisruptionbudgets/batchy')).json;
      return x.status?.conditions?.[0]?.reason === 'SyncFailed' ? x : undefined;
    }, 20_000);
    assert.equal(q.status.disruptionsAllowed, 0);
    assert.match(q.status.conditions[0].message, /^found no controllers for pod "longrun-[a-z0-9]{5}"$/);
  });
});
