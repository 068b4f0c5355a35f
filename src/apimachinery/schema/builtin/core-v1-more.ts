/**
 * Built-in type descriptors for the remaining core/v1 kinds a physical cluster serves: ReplicationController,
 * PodTemplate and Endpoints. JSON names, protobuf field numbers (k8s.io/api v1.32 generated.proto), merge/apply
 * semantics from the Go struct tags and markers. Endpoints is not spec/status shaped: its subsets sit at the top.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { CORE_V1, INT32, INT64, OBJECT_META_FIELD, STRING, TIME, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

export const coreV1MoreTypes: readonly BuiltinTypeSpec[] = [
  {
    name: CORE_V1 + '.ReplicationController',
    description: 'Keeps a fixed number of pods matching an equality selector running; the predecessor of ReplicaSet.',
    gvk: [{ group: '', version: 'v1', kind: 'ReplicationController' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(CORE_V1, 'ReplicationControllerSpec'), description: 'What the replication controller should run.' },
      { name: 'status', proto: 3, type: ref(CORE_V1, 'ReplicationControllerStatus'), description: 'What the replication manager last observed; written by the server.' },
    ],
  },
  {
    name: CORE_V1 + '.ReplicationControllerSpec',
    description: 'The desired state of a ReplicationController.',
    fields: [
      { name: 'replicas', proto: 1, type: INT32, emitZero: true, description: 'How many pods to run. Unset means 1.' },
      { name: 'minReadySeconds', proto: 4, type: INT32, description: 'Seconds a new pod must stay ready before it counts as available. Default 0.' },
      { name: 'selector', proto: 2, type: map(STRING), mapType: 'atomic', description: "Labels of the pods the controller counts; taken from the template's labels when empty." },
      { name: 'template', proto: 3, type: ref(CORE_V1, 'PodTemplateSpec'), description: 'The pod to create when too few exist; its labels must match the selector.' },
    ],
  },
  {
    name: CORE_V1 + '.ReplicationControllerStatus',
    description: 'The observed state of a ReplicationController.',
    fields: [
      { name: 'replicas', proto: 1, type: INT32, required: true, emitZero: true, description: 'Pods currently counted.' },
      { name: 'fullyLabeledReplicas', proto: 2, type: INT32, description: "Pods carrying all of the template's labels." },
      { name: 'readyReplicas', proto: 4, type: INT32, description: 'Pods with a Ready condition.' },
      { name: 'availableReplicas', proto: 5, type: INT32, description: 'Pods ready for at least minReadySeconds.' },
      { name: 'observedGeneration', proto: 3, type: INT64, description: 'The metadata.generation the controller last acted on.' },
      { name: 'conditions', proto: 6, type: list(ref(CORE_V1, 'ReplicationControllerCondition')), patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'], description: 'Latest observations, such as ReplicaFailure.' },
    ],
  },
  {
    name: CORE_V1 + '.ReplicationControllerCondition',
    description: 'One observation about a ReplicationController.',
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: 'Condition type, such as ReplicaFailure.' },
      { name: 'status', proto: 2, type: STRING, required: true, emitZero: true, description: 'True, False or Unknown.' },
      { name: 'lastTransitionTime', proto: 3, type: TIME, description: 'When status last changed.' },
      { name: 'reason', proto: 4, type: STRING, description: 'CamelCase reason for the last transition.' },
      { name: 'message', proto: 5, type: STRING, description: 'Human-readable details.' },
    ],
  },
  {
    name: CORE_V1 + '.PodTemplate',
    description: 'A stored pod template that controllers and users can copy pods from.',
    gvk: [{ group: '', version: 'v1', kind: 'PodTemplate' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'template', proto: 2, type: ref(CORE_V1, 'PodTemplateSpec'), description: 'The pod metadata and spec the template describes.' },
    ],
  },
  {
    name: CORE_V1 + '.Endpoints',
    description: "The network addresses behind a Service, grouped into subsets that share ports; kept under the service's name.",
    gvk: [{ group: '', version: 'v1', kind: 'Endpoints' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'subsets', proto: 2, type: list(ref(CORE_V1, 'EndpointSubset')), listType: 'atomic', description: 'Groups of addresses, each with the ports all of its addresses serve.' },
    ],
  },
  {
    name: CORE_V1 + '.EndpointSubset',
    description: 'Addresses that all serve the same ports.',
    fields: [
      { name: 'addresses', proto: 1, type: list(ref(CORE_V1, 'EndpointAddress')), listType: 'atomic', description: 'Addresses ready to receive traffic.' },
      { name: 'notReadyAddresses', proto: 2, type: list(ref(CORE_V1, 'EndpointAddress')), listType: 'atomic', description: 'Addresses not ready yet, or failing their readiness checks.' },
      { name: 'ports', proto: 3, type: list(ref(CORE_V1, 'EndpointPort')), listType: 'atomic', description: 'Ports every address of the subset serves.' },
    ],
  },
  {
    name: CORE_V1 + '.EndpointAddress',
    description: 'One endpoint address.',
    mapType: 'atomic',
    fields: [
      { name: 'ip', proto: 1, type: STRING, required: true, emitZero: true, description: 'IP of the endpoint; not loopback, link-local or a cluster IP.' },
      { name: 'hostname', proto: 3, type: STRING, description: 'Hostname of the endpoint, published in DNS for headless services.' },
      { name: 'nodeName', proto: 4, type: STRING, emitZero: true, description: 'Node hosting the endpoint.' },
      { name: 'targetRef', proto: 2, type: ref(CORE_V1, 'ObjectReference'), description: 'The object (usually a pod) serving at this address.' },
    ],
  },
  {
    name: CORE_V1 + '.EndpointPort',
    description: 'A port of an endpoint subset.',
    mapType: 'atomic',
    fields: [
      { name: 'name', proto: 1, type: STRING, description: "Name of the port, matching the service port's name; optional when there is one port." },
      { name: 'port', proto: 2, type: INT32, required: true, emitZero: true, description: 'Port number.' },
      { name: 'protocol', proto: 3, type: STRING, description: 'TCP, UDP or SCTP. Default TCP.' },
      { name: 'appProtocol', proto: 4, type: STRING, emitZero: true, description: 'Application protocol, such as http or kubernetes.io/h2c.' },
    ],
  },
];
