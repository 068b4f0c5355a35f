/**
 * The ratchet: every difference between kube-apiserver and atrium the differential suite may find without failing,
 * each with its reason. `case` is a case id, `*` matching any run of characters; `evidence`, when set, must match
 * one of the case's difference lines (so an entry excuses that difference, not whatever else the case shows).
 * `open` marks a difference that is not deliberate but not fixed yet (README, "Differential conformance"): it is to
 * be fixed, and its entry removed. The suite fails when an entry no longer matches any difference (with the default
 * seed and every case): fixed differences leave the list, so it only shrinks.
 */
export interface KnownDifference {
  case: string;
  evidence?: RegExp;
  /** The atrium backends the difference shows on (default: both). */
  backends?: ('sqlite' | 'etcd')[];
  reason: string;
  open?: true;
}

const CONTROL_PLANE_KNOWN_DIFFERENCES: KnownDifference[] = [
  {
    case: '*',
    evidence: /apiextensions\.JSONSchemaProps\{|\[\]apiextensions\.CustomResourceDefinitionVersion[{(]|\[\]v1\.OwnerReference\{|\[\]string\(nil\)/,
    reason:
      "an Invalid value that is a Go struct, slice or pointer is printed by kube-apiserver with Go's %#v (`apiextensions.JSONSchemaProps{ID:\"\", ...}`, " +
      '`[]string(nil)`); atrium prints its JSON type (`"object"`, `"array"`), as for quantities (README, where we deliberately differ)',
  },
  {
    case: 'int-edge/*=9223372036854775808',
    reason:
      'JSON.parse reads an integer beyond int64 as a double equal to 2^63, which cannot be told from 9223372036854775807: atrium cannot refuse it as ' +
      "Go's strconv.ParseInt does (400 `cannot unmarshal number 9223372036854775808 into ... of type int64`); it is then validated or stored as 2^63-1",
  },
  {
    case: 'int-edge/*=1e3',
    reason:
      'JSON.parse reads 1e3 as 1000, so an integer field written with an exponent is accepted; Go decodes integer fields from the number text and refuses it ' +
      '(`cannot unmarshal number 1e3 into ... of type int32`)',
  },
];

const GO_SHARP_V = /\b(v1|apps|batch|core)\.[A-Z][A-Za-z]*\{|map\[string\]string\(nil\)/;

/**
 * The workload kinds' (ATRIUM_DIFF_KINDS=workloads, against a simulated cluster's API): the deliberate differences
 * above where they occur, Go's `%#v` of the workload types' structs, and what is not done yet (`open`).
 */
const WORKLOAD_KNOWN_DIFFERENCES: KnownDifference[] = [
  ...CONTROL_PLANE_KNOWN_DIFFERENCES,
  {
    case: '*',
    evidence: GO_SHARP_V,
    reason: "Go's `%#v` of a workload type's struct or map in a validation message (`v1.LabelSelector{MatchLabels:...}`, `map[string]string(nil)`): atrium prints the value's JSON type, as above",
  },
  {
    case: '*ReplicationController*',
    evidence: /f:template\.f:metadata\.f:creationTimestamp/,
    open: true,
    reason: "a ReplicationController's template is a pointer upstream: the creator's managedFields entry lists its `creationTimestamp: null`, atrium's does not (README)",
  },
  {
    case: '*StatefulSet/spec.serviceName',
    evidence: /f:serviceName/,
    open: true,
    reason: "a StatefulSet's empty serviceName is owned by its writer on atrium, not on kube-apiserver (an omitempty string field's zero value)",
  },
  { case: 'zero/EndpointSlice/endpoints', open: true, reason: "an EndpointSlice's empty endpoints list is stored as [] (kube-apiserver: null; the field has no omitempty)" },
  { case: 'delete-preconditions/Pod', evidence: /deletionGracePeriodSeconds|deletionTimestamp/, open: true, reason: "a Pod deleted with gracePeriodSeconds=0 is answered without the deletionTimestamp and grace period kube-apiserver's graceful deletion stamps on it before removing it" },
  { case: 'delete-finalizer/*', evidence: /generation|causes/, open: true, reason: 'updates of an object held by a finalizer: its generation and the repeated metadata errors differ for EndpointSlices and PodDisruptionBudgets' },
  { case: 'discovery/api-aggregated', evidence: /subresources/, open: true, reason: 'a simulated cluster serves no nodes/proxy subresource' },
];

/** The list for the kinds under test (./kinds.ts). */
export const KNOWN_DIFFERENCES: KnownDifference[] = process.env.ATRIUM_DIFF_KINDS === 'workloads' ? WORKLOAD_KNOWN_DIFFERENCES : CONTROL_PLANE_KNOWN_DIFFERENCES;
