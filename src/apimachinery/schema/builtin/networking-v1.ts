/**
 * Built-in type descriptors for networking.k8s.io/v1 Ingress, IngressClass and NetworkPolicy: JSON names, protobuf
 * field numbers (k8s.io/api v1.32 generated.proto), merge/apply semantics from the Go struct tags and markers.
 *
 * IngressRule embeds IngressRuleValue (JSON inlines its `http`, protobuf nests it as field 2), written as an
 * `embedded(...)` entry; see builtin-type.ts.
 */
import { embedded, type BuiltinTypeSpec } from './builtin-type.js';
import { CORE_V1, INT32, INT_OR_STRING, META_V1, OBJECT_META_FIELD, STRING, TYPE_META_FIELDS, list, ref } from './field-types.js';

/** OpenAPI name prefix of the networking.k8s.io/v1 package. */
export const NETWORKING_V1 = 'io.k8s.api.networking.v1';

export const networkingV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: NETWORKING_V1 + '.Ingress',
    description: 'Routes outside HTTP(S) traffic to services by host and path; an ingress controller implements it.',
    gvk: [{ group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(NETWORKING_V1, 'IngressSpec'), description: 'The routing rules, TLS settings and default backend.' },
      { name: 'status', proto: 3, type: ref(NETWORKING_V1, 'IngressStatus'), description: 'The addresses the ingress controller serves the ingress at; written by the controller.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.IngressSpec',
    description: 'The desired state of an Ingress.',
    fields: [
      { name: 'ingressClassName', proto: 4, type: STRING, emitZero: true, description: "The IngressClass whose controller implements this ingress; the default class's when unset." },
      { name: 'defaultBackend', proto: 1, type: ref(NETWORKING_V1, 'IngressBackend'), description: 'Where requests matching no rule go; left to the controller when unset.' },
      { name: 'tls', proto: 2, type: list(ref(NETWORKING_V1, 'IngressTLS')), listType: 'atomic', description: 'TLS settings: which hosts are served over TLS with which certificate.' },
      { name: 'rules', proto: 3, type: list(ref(NETWORKING_V1, 'IngressRule')), listType: 'atomic', description: 'Host and path rules, matched in order of specificity; without rules everything goes to defaultBackend.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.IngressBackend',
    description: 'Where matched requests go: a service port or another resource; exactly one is set.',
    fields: [
      { name: 'service', proto: 4, type: ref(NETWORKING_V1, 'IngressServiceBackend'), description: 'A Service in the ingress’s namespace, by name and port.' },
      { name: 'resource', proto: 3, type: ref(CORE_V1, 'TypedLocalObjectReference'), description: 'An object in the ingress’s namespace, such as a storage bucket, that the controller knows how to serve.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.IngressServiceBackend',
    description: 'A service port as an ingress backend.',
    fields: [
      { name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: 'Name of the Service.' },
      { name: 'port', proto: 2, type: ref(NETWORKING_V1, 'ServiceBackendPort'), description: 'The service port, by name or number.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.ServiceBackendPort',
    description: 'A service port, by name or by number (exactly one).',
    mapType: 'atomic',
    fields: [
      { name: 'name', proto: 1, type: STRING, description: 'Name of the service port.' },
      { name: 'number', proto: 2, type: INT32, description: 'Number of the service port.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.IngressTLS',
    description: 'TLS for a set of hosts.',
    fields: [
      { name: 'hosts', proto: 1, type: list(STRING), listType: 'atomic', description: 'Hosts the certificate covers, matching the rules’ hosts; the controller’s default when empty.' },
      { name: 'secretName', proto: 2, type: STRING, description: 'Secret holding the TLS certificate and key; may be omitted for SNI-less setups.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.IngressRule',
    description: 'Routes for one host (or every host when host is empty).',
    fields: [
      { name: 'host', proto: 1, type: STRING, description: 'Fully qualified domain name the rule matches, optionally with a leading "*." wildcard label; no IPs or ports.' },
      embedded(2, NETWORKING_V1 + '.IngressRuleValue'),
    ],
  },
  {
    name: NETWORKING_V1 + '.IngressRuleValue',
    description: 'How a rule routes requests. Inlined into IngressRule in JSON, field 2 of it in protobuf.',
    fields: [{ name: 'http', proto: 1, type: ref(NETWORKING_V1, 'HTTPIngressRuleValue'), description: 'HTTP routes by path.' }],
  },
  {
    name: NETWORKING_V1 + '.HTTPIngressRuleValue',
    description: 'HTTP paths and their backends.',
    fields: [
      { name: 'paths', proto: 1, type: list(ref(NETWORKING_V1, 'HTTPIngressPath')), required: true, listType: 'atomic', emitZero: true, description: 'Paths mapped to backends.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.HTTPIngressPath',
    description: 'A path and the backend its requests go to.',
    fields: [
      { name: 'path', proto: 1, type: STRING, description: "The path to match; must begin with '/' for the Exact and Prefix path types." },
      { name: 'pathType', proto: 3, type: STRING, required: true, emitZero: true, description: 'How path matches: Exact, Prefix (by "/"-separated elements) or ImplementationSpecific.' },
      { name: 'backend', proto: 2, type: ref(NETWORKING_V1, 'IngressBackend'), required: true, description: 'Where matching requests go.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.IngressStatus',
    description: 'The observed state of an Ingress.',
    fields: [{ name: 'loadBalancer', proto: 1, type: ref(NETWORKING_V1, 'IngressLoadBalancerStatus'), description: 'The load balancer addresses serving the ingress.' }],
  },
  {
    name: NETWORKING_V1 + '.IngressLoadBalancerStatus',
    description: 'Addresses of the load balancer in front of an ingress.',
    fields: [
      { name: 'ingress', proto: 1, type: list(ref(NETWORKING_V1, 'IngressLoadBalancerIngress')), listType: 'atomic', description: 'The load balancer’s ingress points.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.IngressLoadBalancerIngress',
    description: 'One ingress point of a load balancer.',
    fields: [
      { name: 'ip', proto: 1, type: STRING, description: 'IP address of the ingress point.' },
      { name: 'hostname', proto: 2, type: STRING, description: 'DNS name of the ingress point.' },
      { name: 'ports', proto: 4, type: list(ref(NETWORKING_V1, 'IngressPortStatus')), listType: 'atomic', description: 'State of the ports of the ingress point.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.IngressPortStatus',
    description: 'The state of one port of a load balancer.',
    fields: [
      { name: 'port', proto: 1, type: INT32, required: true, emitZero: true, description: 'Port number.' },
      { name: 'protocol', proto: 2, type: STRING, required: true, emitZero: true, description: 'TCP, UDP or SCTP.' },
      { name: 'error', proto: 3, type: STRING, emitZero: true, description: 'Why the port is not working, as a CamelCase reason; empty when it works.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.IngressClass',
    description: 'A kind of ingress and the controller that implements it; the is-default-class annotation marks the default.',
    gvk: [{ group: 'networking.k8s.io', version: 'v1', kind: 'IngressClass' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(NETWORKING_V1, 'IngressClassSpec'), description: 'The controller and its parameters.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.IngressClassSpec',
    description: 'The desired state of an IngressClass.',
    fields: [
      { name: 'controller', proto: 1, type: STRING, description: 'Domain-prefixed name of the controller, such as example.com/ingress-controller. Cannot change after creation.' },
      { name: 'parameters', proto: 2, type: ref(NETWORKING_V1, 'IngressClassParametersReference'), description: 'An object with further configuration for the controller.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.IngressClassParametersReference',
    description: 'The object holding an IngressClass’s parameters.',
    fields: [
      { name: 'apiGroup', proto: 1, type: STRING, emitZero: true, description: 'API group of the object; empty for the core group.' },
      { name: 'kind', proto: 2, type: STRING, required: true, emitZero: true, description: 'Kind of the object.' },
      { name: 'name', proto: 3, type: STRING, required: true, emitZero: true, description: 'Name of the object.' },
      { name: 'scope', proto: 4, type: STRING, emitZero: true, description: 'Cluster (the default) or Namespace.' },
      { name: 'namespace', proto: 5, type: STRING, emitZero: true, description: 'Namespace of the object; set exactly when scope is Namespace.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.NetworkPolicy',
    description: 'Which traffic may reach and leave a set of pods.',
    gvk: [{ group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(NETWORKING_V1, 'NetworkPolicySpec'), description: 'The pods the policy applies to and the traffic it allows.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.NetworkPolicySpec',
    description: 'The desired state of a NetworkPolicy.',
    fields: [
      { name: 'podSelector', proto: 1, type: ref(META_V1, 'LabelSelector'), required: true, description: 'Pods of the namespace the policy applies to; empty selects them all.' },
      { name: 'ingress', proto: 2, type: list(ref(NETWORKING_V1, 'NetworkPolicyIngressRule')), listType: 'atomic', description: 'Incoming traffic allowed; selected pods accept only what some policy allows.' },
      { name: 'egress', proto: 3, type: list(ref(NETWORKING_V1, 'NetworkPolicyEgressRule')), listType: 'atomic', description: 'Outgoing traffic allowed; selected pods send only what some policy allows.' },
      { name: 'policyTypes', proto: 4, type: list(STRING), listType: 'atomic', description: 'Ingress, Egress or both: which directions the policy restricts. Defaults from the rules present.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.NetworkPolicyIngressRule',
    description: 'Traffic a policy lets in: from these peers to these ports.',
    fields: [
      { name: 'ports', proto: 1, type: list(ref(NETWORKING_V1, 'NetworkPolicyPort')), listType: 'atomic', description: 'Ports the traffic may reach; empty means all.' },
      { name: 'from', proto: 2, type: list(ref(NETWORKING_V1, 'NetworkPolicyPeer')), listType: 'atomic', description: 'Sources the traffic may come from; empty means any.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.NetworkPolicyEgressRule',
    description: 'Traffic a policy lets out: to these peers on these ports.',
    fields: [
      { name: 'ports', proto: 1, type: list(ref(NETWORKING_V1, 'NetworkPolicyPort')), listType: 'atomic', description: 'Destination ports allowed; empty means all.' },
      { name: 'to', proto: 2, type: list(ref(NETWORKING_V1, 'NetworkPolicyPeer')), listType: 'atomic', description: 'Destinations allowed; empty means any.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.NetworkPolicyPort',
    description: 'A port, or range of ports, and protocol.',
    fields: [
      { name: 'protocol', proto: 1, type: STRING, emitZero: true, description: 'TCP, UDP or SCTP. Default TCP.' },
      { name: 'port', proto: 2, type: INT_OR_STRING, emitZero: true, description: "A port number or a named container port; every port when unset." },
      { name: 'endPort', proto: 3, type: INT32, emitZero: true, description: 'Makes the rule cover port through endPort; needs a numeric port.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.NetworkPolicyPeer',
    description: 'A source or destination: pods, namespaces, or an IP range.',
    fields: [
      { name: 'podSelector', proto: 1, type: ref(META_V1, 'LabelSelector'), description: "Pods selected by label, in the policy's namespace or in those namespaceSelector picks." },
      { name: 'namespaceSelector', proto: 2, type: ref(META_V1, 'LabelSelector'), description: 'Namespaces selected by label; every pod in them unless podSelector narrows it.' },
      { name: 'ipBlock', proto: 3, type: ref(NETWORKING_V1, 'IPBlock'), description: 'An IP range; cannot be combined with the selectors.' },
    ],
  },
  {
    name: NETWORKING_V1 + '.IPBlock',
    description: 'An IP range, with exceptions.',
    fields: [
      { name: 'cidr', proto: 1, type: STRING, required: true, emitZero: true, description: 'The range, in CIDR notation such as 192.168.1.0/24 or 2001:db8::/64.' },
      { name: 'except', proto: 2, type: list(STRING), listType: 'atomic', description: 'Sub-ranges of cidr that are left out.' },
    ],
  },
];
