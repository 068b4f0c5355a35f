import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinCatalog, builtinProtobufHints } from '../../../src/apimachinery/schema/builtin/index.js';
import { roundTripAsGo } from '../../../src/apimachinery/schema/omit-empty.js';

const drop = (obj: unknown, type: string, check = false) => roundTripAsGo(obj, builtinCatalog, type, builtinProtobufHints.emitZero, check);

describe('roundTripAsGo (the typed round trip of a built-in object)', () => {
  it('drops empty and null omitempty lists and maps, through nested types, list items and map values', () => {
    const created = '2026-11-27T00:00:00Z';
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', creationTimestamp: created, labels: {}, annotations: null, finalizers: [], ownerReferences: [] }, data: {}, binaryData: { k: '' } };
    assert.equal(drop(cm, 'io.k8s.api.core.v1.ConfigMap'), true);
    assert.deepEqual(cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', creationTimestamp: created }, binaryData: { k: '' } });
    const role = { metadata: { creationTimestamp: created }, rules: [{ verbs: [], apiGroups: [], resources: ['pods'], resourceNames: [] }, {}] };
    drop(role, 'io.k8s.api.rbac.v1.Role');
    // verbs has no omitempty (an item without it gets Go's null); list items stay even when empty.
    assert.deepEqual(role, { metadata: { creationTimestamp: created }, rules: [{ verbs: [], resources: ['pods'] }, { verbs: null }] });
  });

  it('keeps the lists and maps Go always writes, and leaves managedFields to the field manager', () => {
    const role = { metadata: { creationTimestamp: '2026-11-27T00:00:00Z', managedFields: [] }, rules: [] };
    assert.equal(drop(role, 'io.k8s.api.rbac.v1.Role'), false);
    assert.deepEqual(role, { metadata: { creationTimestamp: '2026-11-27T00:00:00Z', managedFields: [] }, rules: [] });
  });

  it('walks CRD schemas, a list of schemas in items included', () => {
    const crd = {
      spec: {
        versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object', required: [], properties: { a: { type: 'array', items: [{ type: 'string', enum: [] }] } } } } }],
      },
    };
    drop(crd, 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition');
    assert.deepEqual(crd.spec.versions[0]!.schema.openAPIV3Schema, { type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } } });
  });

  it('with check, only answers whether anything would go', () => {
    const cm = { metadata: { name: 'x' }, data: { a: 'b' }, binaryData: {} };
    assert.equal(drop(cm, 'io.k8s.api.core.v1.ConfigMap', true), true);
    assert.deepEqual(cm.binaryData, {});
    assert.equal(drop({ metadata: { name: 'x', creationTimestamp: '2026-11-27T00:00:00Z' }, data: { a: 'b' } }, 'io.k8s.api.core.v1.ConfigMap', true), false);
    // A struct Go always writes, unset, is a change too; a null it would write is not (nobody reads or owns it).
    assert.equal(drop({ metadata: { name: 'x' }, data: { a: 'b' } }, 'io.k8s.api.core.v1.ConfigMap', true), false);
    assert.equal(drop({ metadata: { name: 'x' }, spec: {} }, 'io.k8s.api.core.v1.Service', true), true);
  });

  it('drops zero scalars held by value with omitempty; keeps those of pointers and of fields without omitempty', () => {
    const spec = {
      hostNetwork: false,
      hostIPC: null,
      nodeName: '',
      enableServiceLinks: false,
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 0,
      containers: [{ name: 'c', image: 'x', resources: {}, livenessProbe: { initialDelaySeconds: 0, periodSeconds: 0, httpGet: { port: 80, path: '' } }, volumeMounts: [{ name: 'v', mountPath: '/v', subPath: '', readOnly: false }] }],
    };
    drop(spec, 'io.k8s.api.core.v1.PodSpec');
    assert.deepEqual(spec, {
      enableServiceLinks: false,
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 0,
      containers: [{ name: 'c', image: 'x', resources: {}, livenessProbe: { httpGet: { port: 80 } }, volumeMounts: [{ name: 'v', mountPath: '/v' }] }],
    });
  });

  it('fills in what Go always writes: structs held by value, their times as null, quantities as "0"', () => {
    const deployment = {
      metadata: { name: 'd', creationTimestamp: '2026-11-27T00:00:00Z' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x', env: [{ name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } }] }] } } },
    };
    assert.equal(drop(deployment, 'io.k8s.api.apps.v1.Deployment'), true);
    assert.deepEqual(deployment, {
      metadata: { name: 'd', creationTimestamp: '2026-11-27T00:00:00Z' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: {
          metadata: { labels: { a: 'b' }, creationTimestamp: null },
          spec: { containers: [{ name: 'c', image: 'x', resources: {}, env: [{ name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '0' } } }] }] },
        },
        strategy: {},
      },
      status: {},
    });
    // A second round trip changes nothing.
    assert.equal(drop(deployment, 'io.k8s.api.apps.v1.Deployment', true), false);
  });
});
