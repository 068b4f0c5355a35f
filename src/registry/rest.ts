import type { FieldError } from '../apimachinery/field-errors.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { APIResourceDescriptor } from '../apimachinery/api-resource.js';

/** Who is making a request (k8s.io/apiserver pkg/authentication/user.Info). */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** Per-request context handed from the filters to the handlers and the registry. */
export interface RequestContext {
  cluster: string;
  user: UserInfo;
}

/**
 * Per-resource behaviour plugged into the generic store (k8s.io/apiserver pkg/registry/rest: RESTCreateStrategy,
 * RESTUpdateStrategy, RESTDeleteStrategy). Everything is optional except what the generic store cannot guess.
 */
export interface Strategy {
  /** Clears/sets system fields before create (e.g. status on the main endpoint, namespace phase). */
  prepareForCreate?(obj: KubeObject): void;
  /** Preserves what a main-endpoint update may not change (e.g. status). */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Type-specific validation on create; object metadata is validated generically. */
  validate?(obj: KubeObject): FieldError[];
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /** Returns warnings to send back in Warning headers. */
  warnings?(obj: KubeObject, old?: KubeObject): string[];
  /** Which name validator applies to metadata.name. */
  nameValidation: 'subdomain' | 'label' | 'path';
  /** PUT without metadata.resourceVersion is allowed (core types) or 422 (custom resources). */
  allowUnconditionalUpdate: boolean;
  /** PUT of a missing object creates it. */
  allowCreateOnUpdate: boolean;
  /** Whether writes bump metadata.generation when anything outside metadata (and status) changes. */
  tracksGeneration: boolean;
  /** Extra field-selector fields beyond metadata.name / metadata.namespace. */
  selectableFields?(obj: KubeObject): Record<string, string>;
  /** Extra reasons an object may not be removed yet (namespaces: spec.finalizers). */
  pendingFinalizers?(obj: KubeObject): boolean;
  /** Called when deletion starts (deletionTimestamp being set), e.g. namespace phase → Terminating. */
  onDeletionStarted?(obj: KubeObject): void;
}

/** How one subresource write maps onto the parent object. */
export interface SubresourceStrategy {
  /** Copies what the subresource may change from the incoming object onto the current one. */
  apply(incoming: KubeObject, current: KubeObject): KubeObject;
  validate?(obj: KubeObject, old: KubeObject): FieldError[];
}

/** A served resource: its discovery descriptor plus the behaviour the generic store needs. */
export interface ResourceDefinition extends APIResourceDescriptor {
  strategy: Strategy;
  /** Writable subresources (status, finalize) and how they change the parent. */
  subresourceStrategies: Record<string, SubresourceStrategy>;
}
