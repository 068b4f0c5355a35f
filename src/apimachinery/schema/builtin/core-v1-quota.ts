/**
 * Built-in type descriptors for core/v1 ResourceQuota and LimitRange: JSON names, protobuf field numbers (k8s.io/api
 * v1.32 generated.proto), list semantics from the Go markers (every list here is atomic).
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { CORE_V1, OBJECT_META_FIELD, QUANTITY, STRING, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

export const coreV1QuotaTypes: readonly BuiltinTypeSpec[] = [
  {
    name: CORE_V1 + '.ResourceQuota',
    description: 'Aggregate limits on what one namespace may consume: object counts and compute resources.',
    gvk: [{ group: '', version: 'v1', kind: 'ResourceQuota' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(CORE_V1, 'ResourceQuotaSpec'), description: 'The hard limits and the scopes that select what they count.' },
      { name: 'status', proto: 3, type: ref(CORE_V1, 'ResourceQuotaStatus'), description: 'The enforced limits and the usage observed; written by the quota controller and admission.' },
    ],
  },
  {
    name: CORE_V1 + '.ResourceQuotaSpec',
    description: 'The desired hard limits of a quota.',
    fields: [
      { name: 'hard', proto: 1, type: map(QUANTITY), description: 'The most of each named resource the namespace may use.' },
      { name: 'scopes', proto: 2, type: list(STRING), listType: 'atomic', description: 'Filters every tracked object must match (Terminating, BestEffort, ...).' },
      { name: 'scopeSelector', proto: 3, type: ref(CORE_V1, 'ScopeSelector'), description: 'Scope filters as selector expressions; ANDed with scopes.' },
    ],
  },
  {
    name: CORE_V1 + '.ScopeSelector',
    description: 'Scope selector expressions, ANDed.',
    fields: [
      { name: 'matchExpressions', proto: 1, type: list(ref(CORE_V1, 'ScopedResourceSelectorRequirement')), listType: 'atomic', description: 'Requirements by scope name.' },
    ],
  },
  {
    name: CORE_V1 + '.ScopedResourceSelectorRequirement',
    description: 'One scope requirement: a scope name, an operator and values.',
    fields: [
      { name: 'scopeName', proto: 1, type: STRING, required: true, emitZero: true, description: 'The scope this requirement applies to.' },
      { name: 'operator', proto: 2, type: STRING, required: true, emitZero: true, description: 'In, NotIn, Exists or DoesNotExist.' },
      { name: 'values', proto: 3, type: list(STRING), listType: 'atomic', description: 'Values for In and NotIn; empty for Exists and DoesNotExist.' },
    ],
  },
  {
    name: CORE_V1 + '.ResourceQuotaStatus',
    description: 'The enforced hard limits and the observed usage of a quota.',
    fields: [
      { name: 'hard', proto: 1, type: map(QUANTITY), description: 'The enforced hard limits.' },
      { name: 'used', proto: 2, type: map(QUANTITY), description: 'The observed total usage in the namespace.' },
    ],
  },
  {
    name: CORE_V1 + '.LimitRange',
    description: 'Per-object resource constraints and defaults in a namespace.',
    gvk: [{ group: '', version: 'v1', kind: 'LimitRange' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(CORE_V1, 'LimitRangeSpec'), description: 'The limits enforced.' },
    ],
  },
  {
    name: CORE_V1 + '.LimitRangeSpec',
    description: 'The limits of a LimitRange.',
    fields: [
      { name: 'limits', proto: 1, type: list(ref(CORE_V1, 'LimitRangeItem')), required: true, listType: 'atomic', emitZero: true, description: 'One item per kind of object constrained.' },
    ],
  },
  {
    name: CORE_V1 + '.LimitRangeItem',
    description: 'Min/max usage and defaults for one kind of object (Pod, Container, PersistentVolumeClaim).',
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: 'Pod, Container or PersistentVolumeClaim.' },
      { name: 'max', proto: 2, type: map(QUANTITY), description: 'Maximum usage by resource.' },
      { name: 'min', proto: 3, type: map(QUANTITY), description: 'Minimum usage by resource.' },
      { name: 'default', proto: 4, type: map(QUANTITY), description: 'Default limits when none is given.' },
      { name: 'defaultRequest', proto: 5, type: map(QUANTITY), description: 'Default requests when none is given.' },
      { name: 'maxLimitRequestRatio', proto: 6, type: map(QUANTITY), description: 'The most a limit may exceed its request, as a ratio.' },
    ],
  },
];
