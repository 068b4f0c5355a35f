/**
 * Which of upstream's e2e specs (k8s.io/kubernetes v1.32.4 test/e2e) ./upstream-e2e.test.ts runs against atrium, and
 * why the others cannot apply. The selection is every `[sig-api-machinery]` spec that is `[Conformance]` or names
 * CustomResource or FieldValidation; the test checks that this file accounts for each of them exactly once (so a
 * spec list that drifts from the binary fails, rather than quietly running fewer specs).
 *
 * Names are the specs' full texts without the leading `[sig-api-machinery] `. A `*` at the end of a NOT_APPLICABLE
 * entry matches every spec that starts with the text before it.
 */

export const SELECTION = /^\[sig-api-machinery\] (?:.*\[Conformance\]|.*CustomResource|.*FieldValidation)/;

/** Specs that apply to atrium (a workspace with compute, see the test) and run in the suite. */
export const APPLIES: string[] = [
  'AggregatedDiscovery should support aggregated discovery interface for CRDs [Conformance]',
  'AggregatedDiscovery should support raw aggregated discovery request for CRDs [Conformance]',
  'CustomResourceDefinition Watch [Privileged:ClusterAdmin] CustomResourceDefinition Watch watch on custom resource definition objects [Conformance]',
  'CustomResourceDefinition resources [Privileged:ClusterAdmin] Simple CustomResourceDefinition creating/deleting custom resource definition objects works [Conformance]',
  'CustomResourceDefinition resources [Privileged:ClusterAdmin] Simple CustomResourceDefinition getting/updating/patching custom resource definition status sub-resource works [Conformance]',
  'CustomResourceDefinition resources [Privileged:ClusterAdmin] Simple CustomResourceDefinition listing custom resource definition objects works [Conformance]',
  'CustomResourceDefinition resources [Privileged:ClusterAdmin] custom resource defaulting for requests and from storage works [Conformance]',
  'CustomResourceDefinition resources [Privileged:ClusterAdmin] should include custom resource definition resources in discovery documents [Conformance]',
  'CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] removes definition from spec when one version gets changed to not be served [Conformance]',
  'CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] updates the published spec when one version gets renamed [Conformance]',
  'CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] works for CRD preserving unknown fields at the schema root [Conformance]',
  'CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] works for CRD preserving unknown fields in an embedded object [Conformance]',
  'CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] works for CRD with validation schema [Conformance]',
  'CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] works for CRD without validation schema [Conformance]',
  'CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] works for multiple CRDs of different groups [Conformance]',
  'CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] works for multiple CRDs of same group and version but different kinds [Conformance]',
  'CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] works for multiple CRDs of same group but different versions [Conformance]',
  'CustomResourceValidationRules [Privileged:ClusterAdmin] MUST NOT fail validation for create of a custom resource that satisfies the x-kubernetes-validations rules',
  'CustomResourceValidationRules [Privileged:ClusterAdmin] MUST fail create of a custom resource definition that contains a x-kubernetes-validations rule that refers to a property that do not exist',
  'CustomResourceValidationRules [Privileged:ClusterAdmin] MUST fail create of a custom resource definition that contains an x-kubernetes-validations rule that contains a syntax error',
  'CustomResourceValidationRules [Privileged:ClusterAdmin] MUST fail create of a custom resource definition that contains an x-kubernetes-validations rule that exceeds the estimated cost limit',
  'CustomResourceValidationRules [Privileged:ClusterAdmin] MUST fail create of a custom resource that exceeds the runtime cost limit for x-kubernetes-validations rule execution',
  'CustomResourceValidationRules [Privileged:ClusterAdmin] MUST fail update of a custom resource that does not satisfy a x-kubernetes-validations transition rule',
  'CustomResourceValidationRules [Privileged:ClusterAdmin] MUST fail validation for create of a custom resource that does not satisfy the x-kubernetes-validations rules',
  'Discovery should validate PreferredVersion for each APIGroup [Conformance]',
  'FieldValidation should create/apply a CR with unknown fields for CRD with no validation schema [Conformance]',
  'FieldValidation should create/apply a valid CR for CRD with validation schema [Conformance]',
  'FieldValidation should create/apply an invalid CR with extra properties for CRD with validation schema [Conformance]',
  'FieldValidation should detect duplicates in a CR when preserving unknown fields [Conformance]',
  'FieldValidation should detect unknown and duplicate fields of a typed object [Conformance]',
  'FieldValidation should detect unknown metadata fields in both the root and embedded object of a CR [Conformance]',
  'FieldValidation should detect unknown metadata fields of a typed object [Conformance]',
  'Garbage collector should not be blocked by dependency circle [Conformance]',
  'Namespaces [Serial] should apply a finalizer to a Namespace [Conformance]',
  'Namespaces [Serial] should apply an update to a Namespace [Conformance]',
  'Namespaces [Serial] should apply changes to a namespace status [Conformance]',
  'Namespaces [Serial] should ensure that all services are removed when a namespace is deleted [Conformance]',
  'Namespaces [Serial] should patch a Namespace [Conformance]',
  'OpenAPIV3 should publish OpenAPI V3 for CustomResourceDefinition',
  'ResourceQuota should apply changes to a resourcequota status [Conformance]',
  'ResourceQuota should be able to update and delete ResourceQuota. [Conformance]',
  'ResourceQuota should create a ResourceQuota and capture the life of a configMap. [Conformance]',
  'ResourceQuota should create a ResourceQuota and capture the life of a pod. [Conformance]',
  'ResourceQuota should create a ResourceQuota and capture the life of a replica set. [Conformance]',
  'ResourceQuota should create a ResourceQuota and capture the life of a replication controller. [Conformance]',
  'ResourceQuota should create a ResourceQuota and capture the life of a secret. [Conformance]',
  'ResourceQuota should create a ResourceQuota and capture the life of a service. [Conformance]',
  'ResourceQuota should create a ResourceQuota and ensure its status is promptly calculated. [Conformance]',
  'ResourceQuota should manage the lifecycle of a ResourceQuota [Conformance]',
  'ResourceQuota should verify ResourceQuota with best effort scope. [Conformance]',
  'ResourceQuota should verify ResourceQuota with terminating scopes. [Conformance]',
  'Servers with support for API chunking should return chunks of results for list calls [Conformance]',
  'Servers with support for Table transformation should return a 406 for a backend which does not implement metadata [Conformance]',
  'ValidatingAdmissionPolicy [Privileged:ClusterAdmin] should allow expressions to refer variables. [Conformance]',
  'ValidatingAdmissionPolicy [Privileged:ClusterAdmin] should support ValidatingAdmissionPolicy API operations [Conformance]',
  'ValidatingAdmissionPolicy [Privileged:ClusterAdmin] should support ValidatingAdmissionPolicyBinding API operations [Conformance]',
  'ValidatingAdmissionPolicy [Privileged:ClusterAdmin] should validate against a Deployment [Conformance]',
  'Watchers should be able to restart watching from the last resource version observed by the previous watch [Conformance]',
  'Watchers should be able to start watching from a specific resource version [Conformance]',
  'Watchers should observe add, update, and delete watch notifications on configmaps [Conformance]',
  'Watchers should observe an object deletion if it stops meeting the requirements of the selector [Conformance]',
  'Watchers should receive events on concurrent watches in same order [Conformance]',
  'server version should find the server version [Conformance]',
];

/**
 * Specs of APPLIES that fail today, each with the reason: the ratchet. The suite requires them to fail (a spec that
 * starts passing must leave this list), so it only shrinks.
 */
export const KNOWN_FAILING: { spec: string; reason: string }[] = [];

/** Specs that apply but are not run by `npm test`, and why. */
export const NOT_RUN: { spec: string; reason: string }[] = [
  {
    spec: 'Servers with support for API chunking should support continue listing from the last key if the original version has been compacted away, though the list is inconsistent [Slow] [Conformance]',
    reason:
      "[Slow]: it polls every 20 s for up to 10 minutes until the store's history is compacted under its continue token (kube-apiserver compacts etcd every 5 minutes); " +
      'atrium compacts only on etcd, every --etcd-compaction-interval',
  },
];

const NEEDS_PODS = 'runs a server in a Pod (agnhost) and waits for it to be Ready: it needs nodes and a kubelet, which a control plane without clusters has not';

/** Specs that cannot apply to atrium, and why. */
export const NOT_APPLICABLE: { spec: string; reason: string }[] = [
  { spec: 'AdmissionWebhook [Privileged:ClusterAdmin] *', reason: `every spec of the group first deploys the sample webhook: it ${NEEDS_PODS}` },
  { spec: 'CustomResourceConversionWebhook [Privileged:ClusterAdmin] *', reason: `every spec of the group first deploys the sample conversion webhook: it ${NEEDS_PODS}` },
  { spec: 'CustomResourceFieldSelectors [Privileged:ClusterAdmin] *', reason: `first deploys the sample conversion webhook: it ${NEEDS_PODS}` },
  {
    spec: 'Aggregator Should be able to support the 1.17 Sample API Server using the current Aggregator [Conformance]',
    reason: `runs the sample API server in a Pod behind an APIService: it ${NEEDS_PODS}; and atrium, like kcp, serves no API aggregation (apiregistration.k8s.io)`,
  },
  {
    spec: 'API priority and fairness *',
    reason: 'flowcontrol.apiserver.k8s.io is not served: as in kcp, which leaves its storage out of every workspace until priority and fairness is wired per workspace',
  },
  {
    spec: 'AggregatedDiscovery should support aggregated discovery interface [Conformance]',
    reason:
      "expects a fixed list of kube-apiserver's resources, among them apiregistration.k8s.io apiservices (no API aggregation, as in kcp), " +
      'runtimeclasses, priorityclasses and csinodes, which a control plane without nodes does not serve',
  },
  {
    spec: 'AggregatedDiscovery should support raw aggregated discovery endpoint Accept headers [Conformance]',
    reason: 'expects the same fixed list of kube-apiserver resources (apiservices, runtimeclasses, priorityclasses, csinodes)',
  },
  {
    spec: 'Discovery should locate the groupVersion and a resource within each APIGroup [Conformance]',
    reason: 'expects a fixed list of kube-apiserver groups, among them apiregistration.k8s.io (no API aggregation, as in kcp), scheduling.k8s.io and storage.k8s.io csinodes',
  },
  {
    spec: 'CustomResourcePublishOpenAPI [Privileged:ClusterAdmin] [Flaky] kubectl explain works for CR with the same resource name as built-in object.',
    reason: '[Flaky] upstream: kubectl 1.32 answers `the server doesn\'t have a resource type "ksvc-..."` on kube-apiserver v1.32.4 as on atrium',
  },
  { spec: 'Garbage collector should delete pods created by rc when not orphaning [Conformance]', reason: 'waits for the ReplicationController to create pods: kube-controller-manager runs them on nodes' },
  { spec: 'Garbage collector should orphan pods created by rc if delete options say so [Conformance]', reason: 'waits for the ReplicationController to create pods' },
  { spec: 'Garbage collector should keep the rc around until all its pods are deleted if the deleteOptions says so [Conformance]', reason: 'waits for the ReplicationController to create pods' },
  {
    spec: "Garbage collector should not delete dependents that have both valid owner and owner that's waiting for dependents to be deleted [Conformance]",
    reason: 'waits for the ReplicationControllers to create pods',
  },
  {
    spec: 'Garbage collector should delete RS created by deployment when not orphaning [Conformance]',
    reason: "waits for the Deployment controller's ReplicaSet: a workspace's Deployments run on its clusters, and a workspace without a Ready cluster has none",
  },
  {
    spec: 'Garbage collector should orphan RS created by deployment when deleteOptions.PropagationPolicy is Orphan [Conformance]',
    reason: "waits for the Deployment controller's ReplicaSet (as above)",
  },
  { spec: 'Namespaces [Serial] should ensure that all pods are removed when a namespace is deleted [Conformance]', reason: 'waits for a Pod to be Running' },
];
