/**
 * Built-in type descriptors for node.k8s.io/v1 RuntimeClasses: JSON names, protobuf field numbers (k8s.io/api v1.32
 * generated.proto), zero-value rules from the Go struct tags. A RuntimeClass is not spec/status shaped: its fields sit
 * at the top.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { CORE_V1, OBJECT_META_FIELD, QUANTITY, STRING, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

/** OpenAPI name prefix of the node.k8s.io/v1 package. */
export const NODE_V1 = 'io.k8s.api.node.v1';

export const nodeV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: NODE_V1 + '.RuntimeClass',
    description: 'A container runtime configuration pods can ask for by name (spec.runtimeClassName): its handler, the resources it costs each pod, and the nodes that support it.',
    gvk: [{ group: 'node.k8s.io', version: 'v1', kind: 'RuntimeClass' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'handler', proto: 2, type: STRING, required: true, emitZero: true, description: 'The CRI handler that runs the pods of this class (a DNS label). Immutable.' },
      { name: 'overhead', proto: 3, type: ref(NODE_V1, 'Overhead'), description: 'The resources running a pod of this class costs beyond its containers\'; admission copies it into the pod\'s spec.overhead.' },
      { name: 'scheduling', proto: 4, type: ref(NODE_V1, 'Scheduling'), description: 'The nodes that support this class: merged into the pods\' node selector and tolerations at admission.' },
    ],
  },
  {
    name: NODE_V1 + '.Overhead',
    description: 'The resources a RuntimeClass costs each pod.',
    fields: [{ name: 'podFixed', proto: 1, type: map(QUANTITY), description: 'The fixed resources each pod of the class costs.' }],
  },
  {
    name: NODE_V1 + '.Scheduling',
    description: 'The nodes that support a RuntimeClass.',
    fields: [
      { name: 'nodeSelector', proto: 1, type: map(STRING), mapType: 'atomic', description: 'Labels the nodes supporting the class carry; merged into a pod\'s nodeSelector (a conflicting value is refused).' },
      { name: 'tolerations', proto: 2, type: list(ref(CORE_V1, 'Toleration')), listType: 'atomic', description: 'Tolerations added to the pods of the class.' },
    ],
  },
];
