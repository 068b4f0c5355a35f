/** The syncer's PriorityClass decisions: which class a synced object's pod spec names, and the cluster's copy of it. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PRIORITY_CLASS_WORKSPACE_ANNOTATION, SYNCED_PRIORITY_CLASS_LABEL, downstreamPriorityClass, priorityClassNameOf } from '../../../src/multicluster/syncer/priority-classes.js';
import type { KubeObject } from '../../../src/apimachinery/object.js';

const podSpec = { priorityClassName: 'high', containers: [] };

describe('priorityClassNameOf', () => {
  it('finds the class in every kind of pod spec holder', () => {
    assert.equal(priorityClassNameOf('pods', { spec: podSpec }), 'high');
    for (const r of ['deployments', 'replicasets', 'statefulsets', 'daemonsets', 'jobs', 'replicationcontrollers']) assert.equal(priorityClassNameOf(r, { spec: { template: { spec: podSpec } } }), 'high', r);
    assert.equal(priorityClassNameOf('cronjobs', { spec: { jobTemplate: { spec: { template: { spec: podSpec } } } } }), 'high');
    assert.equal(priorityClassNameOf('podtemplates', { template: { spec: podSpec } } as KubeObject), 'high');
  });

  it('is undefined without a class or for kinds without a pod spec', () => {
    assert.equal(priorityClassNameOf('pods', { spec: { containers: [] } }), undefined);
    assert.equal(priorityClassNameOf('pods', { spec: { priorityClassName: '' } }), undefined);
    assert.equal(priorityClassNameOf('configmaps', { spec: podSpec }), undefined);
  });
});

describe('downstreamPriorityClass', () => {
  it("copies value, policy and description, marks it the syncer's, and is never a global default", () => {
    const up: KubeObject = {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'high', uid: 'u', resourceVersion: '9', labels: { team: 'a' } },
      value: 1000,
      globalDefault: true,
      description: 'for the important',
      preemptionPolicy: 'Never',
    };
    assert.deepEqual(downstreamPriorityClass(up, 'ws-1'), {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'high', labels: { [SYNCED_PRIORITY_CLASS_LABEL]: 'true' }, annotations: { [PRIORITY_CLASS_WORKSPACE_ANNOTATION]: 'ws-1' } },
      value: 1000,
      description: 'for the important',
      preemptionPolicy: 'Never',
    });
  });
});
