/**
 * A small, self-contained type catalog and resource set for the OpenAPI tests: a ConfigMap-like and a
 * Namespace-like core type, a few meta types, and a custom `Widget` whose fields cover every FieldType.
 * Deliberately independent of src/apimachinery/schema/builtin/ so these tests pin the converter, not
 * the catalog contents.
 */
import type { FieldDescriptor, TypeCatalog, TypeDescriptor } from '../../../src/apimachinery/schema/types.js';
import type { APIResourceDescriptor } from '../../../src/apimachinery/api-resource.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

const typeMetaFields: FieldDescriptor[] = [
  { name: 'apiVersion', type: { scalar: 'string' }, description: 'APIVersion of this representation.' },
  { name: 'kind', type: { scalar: 'string' }, description: 'Kind of this representation.' },
];

const types: TypeDescriptor[] = [
  {
    name: `${META}.ObjectMeta`,
    description: 'ObjectMeta is metadata every persisted resource has.',
    fields: [
      { name: 'name', proto: 1, type: { scalar: 'string' }, description: 'Name, unique within a namespace.' },
      { name: 'namespace', proto: 3, type: { scalar: 'string' } },
      { name: 'labels', proto: 11, type: { map: { scalar: 'string' } }, description: 'Labels for selection.' },
      { name: 'creationTimestamp', proto: 8, type: { scalar: 'time' }, description: 'When the object was created.' },
      {
        name: 'ownerReferences',
        proto: 13,
        type: { list: { ref: `${META}.OwnerReference` } },
        patchStrategy: 'merge',
        patchMergeKey: 'uid',
        listType: 'map',
        listMapKeys: ['uid'],
      },
    ],
  },
  {
    name: `${META}.OwnerReference`,
    fields: [
      { name: 'uid', type: { scalar: 'string' }, required: true },
      { name: 'kind', type: { scalar: 'string' }, required: true },
    ],
    mapType: 'atomic',
  },
  { name: `${META}.ListMeta`, fields: [{ name: 'resourceVersion', type: { scalar: 'string' } }, { name: 'continue', type: { scalar: 'string' } }] },
  {
    name: `${META}.Status`,
    description: 'Status is a return value for calls that do not return other objects.',
    fields: [...typeMetaFields, { name: 'code', type: { scalar: 'int32' } }, { name: 'message', type: { scalar: 'string' } }],
    gvk: [{ group: '', version: 'v1', kind: 'Status' }],
  },
  {
    name: `${META}.DeleteOptions`,
    fields: [...typeMetaFields, { name: 'gracePeriodSeconds', type: { scalar: 'int64' } }, { name: 'dryRun', type: { list: { scalar: 'string' } }, listType: 'atomic' }],
    gvk: [{ group: '', version: 'v1', kind: 'DeleteOptions' }, { group: 'example.atrium.dev', version: 'v1alpha1', kind: 'DeleteOptions' }],
  },
  {
    name: `${META}.WatchEvent`,
    fields: [
      { name: 'type', type: { scalar: 'string' }, required: true },
      { name: 'object', type: { scalar: 'rawExtension' }, required: true },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.ConfigMap',
    description: 'ConfigMap holds configuration data for pods to consume.',
    fields: [
      ...typeMetaFields,
      { name: 'metadata', type: { ref: `${META}.ObjectMeta` }, description: "Standard object's metadata." },
      { name: 'data', type: { map: { scalar: 'string' } }, description: 'Data contains the configuration data.' },
      { name: 'binaryData', type: { map: { scalar: 'bytes' } } },
      { name: 'immutable', type: { scalar: 'boolean' } },
    ],
    gvk: [{ group: '', version: 'v1', kind: 'ConfigMap' }],
  },
  {
    name: 'io.k8s.api.core.v1.ConfigMapList',
    description: 'ConfigMapList is a list of ConfigMaps.',
    fields: [
      ...typeMetaFields,
      { name: 'metadata', type: { ref: `${META}.ListMeta` } },
      { name: 'items', type: { list: { ref: 'io.k8s.api.core.v1.ConfigMap' } }, required: true, description: 'Items is the list of ConfigMaps.' },
    ],
    gvk: [{ group: '', version: 'v1', kind: 'ConfigMapList' }],
  },
  {
    name: 'io.k8s.api.core.v1.Namespace',
    description: 'Namespace provides a scope for Names.',
    fields: [
      ...typeMetaFields,
      { name: 'metadata', type: { ref: `${META}.ObjectMeta` } },
      { name: 'spec', type: { ref: 'io.k8s.api.core.v1.NamespaceSpec' } },
      { name: 'status', type: { ref: 'io.k8s.api.core.v1.NamespaceStatus' } },
    ],
    gvk: [{ group: '', version: 'v1', kind: 'Namespace' }],
  },
  {
    name: 'io.k8s.api.core.v1.NamespaceList',
    fields: [...typeMetaFields, { name: 'items', type: { list: { ref: 'io.k8s.api.core.v1.Namespace' } }, required: true }],
    gvk: [{ group: '', version: 'v1', kind: 'NamespaceList' }],
  },
  { name: 'io.k8s.api.core.v1.NamespaceSpec', fields: [{ name: 'finalizers', type: { list: { scalar: 'string' } }, listType: 'atomic' }] },
  {
    name: 'io.k8s.api.core.v1.NamespaceStatus',
    fields: [
      { name: 'phase', type: { scalar: 'string' }, enum: ['Active', 'Terminating'], description: 'Phase of the namespace.' },
      {
        name: 'conditions',
        type: { list: { ref: 'io.k8s.api.core.v1.NamespaceCondition' } },
        patchStrategy: 'merge',
        patchMergeKey: 'type',
        listType: 'map',
        listMapKeys: ['type'],
      },
    ],
  },
  {
    name: 'io.k8s.api.core.v1.NamespaceCondition',
    fields: [
      { name: 'type', type: { scalar: 'string' }, required: true },
      { name: 'lastTransitionTime', type: { scalar: 'time' } },
    ],
  },
  {
    name: 'io.k8s.api.autoscaling.v1.Scale',
    fields: [...typeMetaFields, { name: 'metadata', type: { ref: `${META}.ObjectMeta` } }, { name: 'replicas', type: { scalar: 'int32' } }],
    gvk: [{ group: 'autoscaling', version: 'v1', kind: 'Scale' }],
  },
  {
    name: 'dev.atrium.example.v1alpha1.Widget',
    description: 'Widget exercises every field type.',
    fields: [
      ...typeMetaFields,
      { name: 'metadata', type: { ref: `${META}.ObjectMeta` } },
      { name: 'count', type: { scalar: 'int32' }, default: 1 },
      { name: 'bigCount', type: { scalar: 'int64' } },
      { name: 'ratio', type: { scalar: 'double' } },
      { name: 'blob', type: { scalar: 'bytes' } },
      { name: 'when', type: { scalar: 'time' } },
      { name: 'whenExactly', type: { scalar: 'microTime' } },
      { name: 'timeout', type: { scalar: 'duration' } },
      { name: 'port', type: { scalar: 'intOrString' }, description: 'Port number or name.' },
      { name: 'size', type: { scalar: 'quantity' } },
      { name: 'embedded', type: { scalar: 'rawExtension' } },
      { name: 'anything', type: { scalar: 'json' } },
      { name: 'enabled', type: { scalar: 'boolean' } },
      { name: 'mode', type: { scalar: 'string' }, enum: ['Fast', 'Slow'], required: true },
      { name: 'selector', type: { map: { scalar: 'string' } }, mapType: 'atomic' },
      { name: 'groups', type: { map: { list: { scalar: 'string' } } } },
      { name: 'tags', type: { list: { scalar: 'string' } }, listType: 'set' },
    ],
    gvk: [{ group: 'example.atrium.dev', version: 'v1alpha1', kind: 'Widget' }],
  },
  {
    name: 'dev.atrium.example.v1alpha1.WidgetList',
    fields: [...typeMetaFields, { name: 'items', type: { list: { ref: 'dev.atrium.example.v1alpha1.Widget' } }, required: true }],
    gvk: [{ group: 'example.atrium.dev', version: 'v1alpha1', kind: 'WidgetList' }],
  },
];

export const fixtureCatalog: TypeCatalog = new Map(types.map((t) => [t.name, t]));

export const configMaps: APIResourceDescriptor = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  singular: 'configmap',
  namespaced: true,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  shortNames: ['cm'],
  categories: [],
  subresources: [],
  definitionName: 'io.k8s.api.core.v1.ConfigMap',
  strategicMergePatch: true,
};

export const namespaces: APIResourceDescriptor = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  singular: 'namespace',
  namespaced: false,
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  shortNames: ['ns'],
  categories: [],
  subresources: [
    { name: 'status', kind: 'Namespace', verbs: ['get', 'patch', 'update'] },
    { name: 'finalize', kind: 'Namespace', verbs: ['update'] },
  ],
  definitionName: 'io.k8s.api.core.v1.Namespace',
  strategicMergePatch: true,
};

export const widgets: APIResourceDescriptor = {
  group: 'example.atrium.dev',
  version: 'v1alpha1',
  resource: 'widgets',
  kind: 'Widget',
  listKind: 'WidgetList',
  singular: 'widget',
  namespaced: true,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  shortNames: ['wd'],
  categories: ['all'],
  subresources: [
    { name: 'status', kind: 'Widget', verbs: ['get', 'patch', 'update'] },
    { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] },
  ],
  definitionName: 'dev.atrium.example.v1alpha1.Widget',
  strategicMergePatch: false,
};
