/**
 * Built-in type descriptors for discovery.k8s.io/v1 EndpointSlices: JSON names, protobuf field numbers (k8s.io/api
 * v1.32 generated.proto), merge/apply semantics from the Go struct tags and markers. An EndpointSlice is not
 * spec/status shaped: addressType, endpoints and ports sit at the top.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { BOOLEAN, CORE_V1, INT32, OBJECT_META_FIELD, STRING, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

/** OpenAPI name prefix of the discovery.k8s.io/v1 package. */
export const DISCOVERY_V1 = 'io.k8s.api.discovery.v1';

export const discoveryV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: DISCOVERY_V1 + '.EndpointSlice',
    description: 'A slice of the endpoints behind a Service (at most 100 by default), all of one address type.',
    gvk: [{ group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'addressType', proto: 4, type: STRING, required: true, emitZero: true, description: 'IPv4, IPv6 or FQDN: the kind of every address in the slice. Cannot change after creation.' },
      { name: 'endpoints', proto: 2, type: list(ref(DISCOVERY_V1, 'Endpoint')), required: true, listType: 'atomic', emitZero: true, description: 'The endpoints of the slice; at most 1000.' },
      { name: 'ports', proto: 3, type: list(ref(DISCOVERY_V1, 'EndpointPort')), listType: 'atomic', emitZero: true, description: 'Ports every endpoint of the slice serves; empty means no port is exposed, one with no port number means all.' },
    ],
  },
  {
    name: DISCOVERY_V1 + '.Endpoint',
    description: 'One backend of a service: its addresses and state.',
    fields: [
      { name: 'addresses', proto: 1, type: list(STRING), required: true, listType: 'set', emitZero: true, description: 'Addresses of the endpoint, of the slice’s address type; consumers use the first.' },
      { name: 'conditions', proto: 2, type: ref(DISCOVERY_V1, 'EndpointConditions'), description: 'Whether the endpoint is ready, serving or terminating.' },
      { name: 'hostname', proto: 3, type: STRING, emitZero: true, description: 'Hostname of the endpoint, a DNS label, published for headless services.' },
      { name: 'targetRef', proto: 4, type: ref(CORE_V1, 'ObjectReference'), description: 'The object (usually a pod) behind the endpoint.' },
      { name: 'deprecatedTopology', proto: 5, type: map(STRING), description: 'Topology labels from v1beta1, kept for round-trips; use nodeName and zone instead.' },
      { name: 'nodeName', proto: 6, type: STRING, emitZero: true, description: 'Node hosting the endpoint.' },
      { name: 'zone', proto: 7, type: STRING, emitZero: true, description: 'Zone the endpoint is in.' },
      { name: 'hints', proto: 8, type: ref(DISCOVERY_V1, 'EndpointHints'), description: 'Routing hints for topology-aware traffic.' },
    ],
  },
  {
    name: DISCOVERY_V1 + '.EndpointConditions',
    description: 'The state of an endpoint.',
    fields: [
      { name: 'ready', proto: 1, type: BOOLEAN, emitZero: true, description: 'Ready for traffic; unset means unknown, treated as ready. Always false while terminating.' },
      { name: 'serving', proto: 2, type: BOOLEAN, emitZero: true, description: 'Passing readiness checks, whether or not terminating.' },
      { name: 'terminating', proto: 3, type: BOOLEAN, emitZero: true, description: 'Shutting down.' },
    ],
  },
  {
    name: DISCOVERY_V1 + '.EndpointHints',
    description: 'Hints on where an endpoint should be used.',
    fields: [
      { name: 'forZones', proto: 1, type: list(ref(DISCOVERY_V1, 'ForZone')), listType: 'atomic', description: 'Zones whose clients should use this endpoint.' },
    ],
  },
  {
    name: DISCOVERY_V1 + '.ForZone',
    description: 'A zone an endpoint should serve.',
    fields: [{ name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: 'Name of the zone.' }],
  },
  {
    name: DISCOVERY_V1 + '.EndpointPort',
    description: 'A port the endpoints of a slice serve.',
    mapType: 'atomic',
    fields: [
      { name: 'name', proto: 1, type: STRING, emitZero: true, description: "Name of the port, matching the service port's name; empty for a single unnamed port." },
      { name: 'protocol', proto: 2, type: STRING, emitZero: true, description: 'TCP, UDP or SCTP. Default TCP.' },
      { name: 'port', proto: 3, type: INT32, emitZero: true, description: 'Port number; unset means every port.' },
      { name: 'appProtocol', proto: 4, type: STRING, emitZero: true, description: 'Application protocol, such as http or kubernetes.io/h2c.' },
    ],
  },
];
