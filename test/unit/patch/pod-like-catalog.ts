/**
 * A small hand-written TypeCatalog for the patch tests: a Pod-like kind whose fields cover every
 * strategic-merge-patch shape (merge lists by key, a primitive merge list, atomic lists, maps of
 * strings, retainKeys, a replace-strategy struct, an untyped JSON field, and two deliberately odd
 * fields for error paths).
 */

import type { TypeCatalog, TypeDescriptor } from '../../../src/apimachinery/schema/types.js';

export const POD_TYPE = 'test.v1.Pod';

const types: TypeDescriptor[] = [
  {
    name: POD_TYPE,
    fields: [
      { name: 'apiVersion', type: { scalar: 'string' } },
      { name: 'kind', type: { scalar: 'string' } },
      { name: 'metadata', type: { ref: 'test.v1.ObjectMeta' } },
      { name: 'spec', type: { ref: 'test.v1.PodSpec' } },
    ],
  },
  {
    name: 'test.v1.ObjectMeta',
    fields: [
      { name: 'name', type: { scalar: 'string' } },
      { name: 'resourceVersion', type: { scalar: 'string' } },
      { name: 'labels', type: { map: { scalar: 'string' } } },
      { name: 'annotations', type: { map: { scalar: 'string' } } },
      { name: 'finalizers', type: { list: { scalar: 'string' } }, patchStrategy: 'merge' },
      { name: 'ownerReferences', type: { list: { ref: 'test.v1.OwnerReference' } }, patchStrategy: 'merge', patchMergeKey: 'uid' },
      { name: 'managedFields', type: { list: { ref: 'test.v1.ManagedFieldsEntry' } } },
    ],
  },
  {
    name: 'test.v1.OwnerReference',
    fields: [
      { name: 'apiVersion', type: { scalar: 'string' } },
      { name: 'kind', type: { scalar: 'string' } },
      { name: 'name', type: { scalar: 'string' } },
      { name: 'uid', type: { scalar: 'string' } },
      { name: 'controller', type: { scalar: 'boolean' } },
    ],
  },
  {
    name: 'test.v1.ManagedFieldsEntry',
    fields: [
      { name: 'manager', type: { scalar: 'string' } },
      { name: 'operation', type: { scalar: 'string' } },
    ],
  },
  {
    name: 'test.v1.PodSpec',
    fields: [
      { name: 'containers', type: { list: { ref: 'test.v1.Container' } }, patchStrategy: 'merge', patchMergeKey: 'name' },
      { name: 'volumes', type: { list: { ref: 'test.v1.Volume' } }, patchStrategy: 'merge,retainKeys', patchMergeKey: 'name' },
      { name: 'imagePullSecrets', type: { list: { ref: 'test.v1.LocalObjectReference' } } },
      { name: 'nodeSelector', type: { map: { scalar: 'string' } } },
      { name: 'strategy', type: { ref: 'test.v1.Strategy' }, patchStrategy: 'retainKeys' },
      { name: 'securityContext', type: { ref: 'test.v1.SecurityContext' }, patchStrategy: 'replace' },
      { name: 'extra', type: { scalar: 'json' } },
      // Odd shapes that only exist to reach apimachinery's error paths.
      { name: 'matrix', type: { list: { list: { scalar: 'string' } } }, patchStrategy: 'merge' },
      { name: 'keylessMergeList', type: { list: { ref: 'test.v1.LocalObjectReference' } }, patchStrategy: 'merge' },
      { name: 'badStrategyList', type: { list: { scalar: 'string' } }, patchStrategy: 'merge,replace' },
    ],
  },
  {
    name: 'test.v1.Container',
    fields: [
      { name: 'name', type: { scalar: 'string' } },
      { name: 'image', type: { scalar: 'string' } },
      { name: 'args', type: { list: { scalar: 'string' } } },
      { name: 'env', type: { list: { ref: 'test.v1.EnvVar' } }, patchStrategy: 'merge', patchMergeKey: 'name' },
      { name: 'ports', type: { list: { ref: 'test.v1.ContainerPort' } }, patchStrategy: 'merge', patchMergeKey: 'containerPort' },
    ],
  },
  {
    name: 'test.v1.EnvVar',
    fields: [
      { name: 'name', type: { scalar: 'string' } },
      { name: 'value', type: { scalar: 'string' } },
    ],
  },
  {
    name: 'test.v1.ContainerPort',
    fields: [
      { name: 'containerPort', type: { scalar: 'int32' } },
      { name: 'protocol', type: { scalar: 'string' } },
    ],
  },
  {
    name: 'test.v1.Volume',
    fields: [
      { name: 'name', type: { scalar: 'string' } },
      { name: 'emptyDir', type: { ref: 'test.v1.EmptyDir' } },
      { name: 'hostPath', type: { ref: 'test.v1.HostPath' } },
    ],
  },
  { name: 'test.v1.EmptyDir', fields: [{ name: 'medium', type: { scalar: 'string' } }] },
  { name: 'test.v1.HostPath', fields: [{ name: 'path', type: { scalar: 'string' } }] },
  { name: 'test.v1.LocalObjectReference', fields: [{ name: 'name', type: { scalar: 'string' } }] },
  {
    name: 'test.v1.Strategy',
    fields: [
      { name: 'type', type: { scalar: 'string' } },
      { name: 'rollingUpdate', type: { ref: 'test.v1.RollingUpdate' } },
    ],
  },
  { name: 'test.v1.RollingUpdate', fields: [{ name: 'maxSurge', type: { scalar: 'intOrString' } }] },
  {
    name: 'test.v1.SecurityContext',
    fields: [
      { name: 'runAsUser', type: { scalar: 'int64' } },
      { name: 'runAsGroup', type: { scalar: 'int64' } },
    ],
  },
];

export const podLikeCatalog: TypeCatalog = new Map(types.map((t) => [t.name, t]));

export const podSchema = { catalog: podLikeCatalog, typeName: POD_TYPE };
