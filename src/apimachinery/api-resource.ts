/**
 * What discovery, OpenAPI and the request router know about one served resource (one group/version/resource).
 * Built-in resources and CRD-defined resources are both described this way.
 */
export interface APISubresourceDescriptor {
  /** e.g. "status", "scale", "finalize". */
  name: string;
  /** The kind the subresource reads and writes (Namespace for status, Scale for scale). */
  kind: string;
  /** Group/version of that kind when it differs from the parent's (autoscaling/v1 for Scale). */
  group?: string;
  version?: string;
  verbs: string[];
}

export interface APIResourceDescriptor {
  group: string;
  version: string;
  /** Plural resource name, e.g. "configmaps". */
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  /** Sorted verbs as discovery lists them. */
  verbs: string[];
  shortNames: string[];
  categories: string[];
  subresources: APISubresourceDescriptor[];
  /** OpenAPI definition name of the kind (built-ins: io.k8s.api.core.v1.ConfigMap), used by OpenAPI docs. */
  definitionName: string;
  /** Whether strategic merge patch is accepted (built-ins yes, custom resources no). */
  strategicMergePatch: boolean;
  /**
   * Created by code and never stored (reviews, bindings): kube-apiserver's discovery lists no storageVersionHash for
   * such a resource, its storage having no storage version.
   */
  unstored?: boolean;
}

/** "v1" for the core group, "group/version" otherwise. */
export function groupVersionString(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}
