import type { FieldError } from '../apimachinery/field-errors.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { APIResourceDescriptor } from '../apimachinery/api-resource.js';
import type { SsaSchema } from '../patch/apply/schema.js';
import type { PatchType } from '../patch/apply-patch.js';
import type { StrategicMergePatchSchema } from '../patch/strategic-merge-patch.js';
import type { TablePrinter } from '../apimachinery/table/builtin-printers.js';

import type { UserInfo } from '../apimachinery/user.js';


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
  /**
   * Clears/sets system fields before create (e.g. status on the main endpoint, namespace phase). `ctx` carries the
   * requesting user, as upstream's request context does (a CSR records its requestor).
   */
  prepareForCreate?(obj: KubeObject, ctx: RequestContext): void;
  /** Preserves what a main-endpoint update may not change (e.g. status). */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Type-specific validation on create; object metadata is validated generically. */
  validate?(obj: KubeObject): FieldError[];
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /** Returns warnings to send back in Warning headers. */
  warnings?(obj: KubeObject, old?: KubeObject): string[];
  /** Which name validator applies to metadata.name. */
  nameValidation: 'subdomain' | 'label' | 'path' | 'dns1035';
  /** PUT without metadata.resourceVersion is allowed (core types) or 422 (custom resources). */
  allowUnconditionalUpdate: boolean;
  /** PUT of a missing object creates it. */
  allowCreateOnUpdate: boolean;
  /** Whether writes bump metadata.generation when anything outside metadata (and status) changes. */
  tracksGeneration: boolean;
  /**
   * For a kind without tracksGeneration whose PrepareForUpdate still bumps generation (CSIDriver: the stored value,
   * 0 when unset, plus one when the spec changed; nothing sets it on create): whether this update bumps it.
   */
  bumpsGeneration?(obj: KubeObject, old: KubeObject): boolean;
  /**
   * For a kind deleted gracefully (RESTGracefulDeleteStrategy.CheckGracefulDelete: pods on a cluster whose kubelet
   * stops them): the grace period of a delete of `obj` given the one asked for (undefined: none sent). 0 deletes at once.
   */
  gracefulDeletePeriod?(obj: KubeObject, requested: number | undefined): number;
  /** Extra field-selector fields beyond metadata.name / metadata.namespace. */
  selectableFields?(obj: KubeObject): Record<string, string>;
  /**
   * The fields this endpoint resets, so no writer owns them in managedFields (GetResetFields), as dotted paths.
   * Unset: `status` when the kind has a status subresource.
   */
  resetFields?: readonly string[];
  /** Extra reasons an object may not be removed yet (namespaces: spec.finalizers). */
  pendingFinalizers?(obj: KubeObject): boolean;
  /**
   * The first DELETE only marks the object deleting (deletionTimestamp, onDeletionStarted, GC finalizers) and never
   * removes it, even with nothing pending; a later DELETE removes it once nothing is pending (namespace REST.Delete).
   */
  markDeletingFirst?: boolean;
  /**
   * With markDeletingFirst: that first DELETE leaves the finalizers to onDeletionStarted alone, whatever the
   * propagation policy (customresourcedefinition REST.Delete sets deletionTimestamp, its cleanup finalizer and the
   * Terminating condition, nothing else: no grace period, no generation bump).
   */
  markDeletingWithoutGC?: boolean;
  /**
   * rest.GarbageCollectionDeleteStrategy's DefaultGarbageCollectionPolicy when it is not DeleteDependents: a DELETE
   * that names no propagation policy (and an object without the orphan or foregroundDeletion finalizer) orphans the
   * object's dependents, as batch/v1 Jobs and core/v1 ReplicationControllers do for backward compatibility.
   */
  defaultGarbageCollectionPolicy?: 'OrphanDependents';
  /**
   * Which metadata checks the kind's ValidateXUpdate repeats after rest.BeforeUpdate's own, so each metadata error is
   * listed that many times among an update's causes (the message names it once). Default: core's pattern
   * (ValidateObjectMetaUpdate, then the kind's ValidateObjectMeta). `update`: ValidateObjectMetaUpdate only (apps,
   * batch, autoscaling, discovery kinds, PodTemplates); `claim`: ValidateObjectMeta, ValidateObjectMetaUpdate and
   * ValidateObjectMeta again (PersistentVolumeClaims); `none`: nothing more (PodDisruptionBudgets validate their spec).
   */
  metadataRevalidation?: 'update' | 'claim' | 'none';
  /**
   * Warnings a DELETE (or DELETE of a collection) gets from the kind's REST itself, given the options it was sent
   * with (a Job's when the request names no propagation policy).
   */
  deleteWarnings?(sent: { propagationPolicy?: string; orphanDependents?: boolean }): string[];
  /**
   * The detail of a 409 for a failed DELETE precondition when the type words it itself (namespace REST.Delete); it is
   * then reported on the resource. Unset: rest.BeforeDelete's wording, reported on the Kind.
   */
  deletePreconditionFailure?(field: 'UID' | 'ResourceVersion', inPrecondition: string, inObject: string): string;
  /** Called when deletion starts (deletionTimestamp being set), e.g. namespace phase → Terminating. */
  onDeletionStarted?(obj: KubeObject): void;
  /** Fills defaults into an object read from storage (custom resources default on read as well as on write). */
  defaultOnRead?(obj: KubeObject): void;
  /** A DELETE that removes the object answers with the object rather than a Status (upstream's ReturnDeletedObject). */
  returnDeletedObject?: boolean;
  /**
   * Why a DELETE of `name` is refused (403 Forbidden) before anything is read, as a kind's own REST.Delete refuses
   * (the system PriorityClasses); undefined lets it through. deletecollection does not ask, as upstream's does not.
   */
  deleteRefusal?(name: string): string | undefined;
}

/** How one subresource write maps onto the parent object. */
export interface SubresourceStrategy {
  /** Copies what the subresource may change from the incoming object onto the current one. */
  apply(incoming: KubeObject, current: KubeObject): KubeObject;
  /** The fields this subresource resets (GetResetFields), as dotted paths. Unset: `spec` for /status. */
  resetFields?: readonly string[];
  validate?(obj: KubeObject, old: KubeObject): FieldError[];
  /**
   * Set when the subresource reads and writes another kind than its parent (autoscaling/v1 Scale for /scale): GET
   * answers view(parent), PUT and PATCH bodies are that kind (a patch applies to the view), `apply` receives the
   * incoming view, and responses are the view of the updated parent. `viewDefinitionName` is the view kind's OpenAPI
   * definition name (used to patch it strategically).
   */
  view?(parent: KubeObject): KubeObject;
  viewDefinitionName?: string;
  /**
   * The body is the parent's kind, decoded as a write of the parent is (wrong types refused, unknown fields dropped,
   * defaults applied): pods/ephemeralcontainers, whose new containers come without the defaults upstream's decoder
   * gives them. Other subresources leave their bodies as sent.
   */
  decodedAsParent?: boolean;
  /**
   * A write leaves managedFields as stored: pods/ephemeralcontainers, whose upstream strategy rebuilds the pod from the
   * stored one (dropNonEphemeralContainerUpdates), dropping the entry the field manager recorded for the write.
   */
  keepsManagedFields?: boolean;
}

/** A served resource: its discovery descriptor plus the behaviour the generic store needs. */
export interface ResourceDefinition extends APIResourceDescriptor {
  strategy: Strategy;
  /** Writable subresources (status, finalize) and how they change the parent. */
  subresourceStrategies: Record<string, SubresourceStrategy>;
  /** How request objects are decoded: type errors, unknown fields, defaults (see ResourceCodec). */
  codec: ResourceCodec;
  /** Converts objects into Table rows: a built-in kind's printer, a CRD's additionalPrinterColumns. */
  tableConvertor: TablePrinter;
  /** Sent as a Warning header with every request to this resource (deprecated CRD versions). */
  deprecationWarning?: string;
  /**
   * Custom resources of a CRD being deleted. Discovery then lists only `verbs` (read and delete), but, as
   * apiextensions-apiserver's serveResource, the handler still serves every verb but create, so finalizers can be
   * removed and the deletion can finish.
   */
  terminating?: boolean;
  /**
   * Creates answered by code rather than storage, by subresource ('' = the resource itself): access and token reviews
   * (create-only, never stored) and serviceaccounts/token. The handler decodes the body, calls it and answers 201 with
   * the returned object; nothing is stored and admission does not run.
   */
  computedCreates?: Record<string, ComputedCreate>;
  /**
   * How server-side apply merges and tracks this resource's fields (list/map types). Custom resources set it from
   * their structural schema (src/patch/apply/structural-schema.ts ssaSchemaFromStructural); built-ins leave it unset
   * and get it from the type catalog by definitionName.
   */
  ssaSchema?: SsaSchema;
  /**
   * Where and in what shape objects are stored when that differs from what this endpoint serves: events.k8s.io/v1
   * Events live in core/v1 Events' storage and are converted on the way in and out, as kube-apiserver does.
   */
  storage?: StorageMapping;
  /**
   * Set for a resource bound from an APIExport (apis.kcp.io): the logical cluster of the export. As in kcp, requests
   * on it are reviewed by that workspace's admission webhooks and policies rather than the binding workspace's.
   */
  apiExportCluster?: string;
  /**
   * OpenAPI schemas the resource brings itself, by definition name, per document version (custom resources, kinds
   * outside the built-in type catalog); built-in kinds get theirs from the catalog by `definitionName`.
   */
  openAPISchemas?: OpenAPISchemas;
}

/** OpenAPI schema objects by definition name, for /openapi/v2 (`#/definitions/…`) and /openapi/v3 (`#/components/schemas/…`). */
export interface OpenAPISchemas {
  v2: Record<string, Record<string, unknown>>;
  v3: Record<string, Record<string, unknown>>;
}

/**
 * How a resource's request objects are decoded, as upstream's codecs do it: a built-in kind into its Go type (here:
 * checked against the built-in type catalog), a custom resource as an unstructured object its structural schema
 * prunes and defaults. The handlers call it alike for every resource. `subresource` is the request's ('' for the
 * resource itself): a subresource may read and write another kind (Scale).
 */
export interface ResourceCodec {
  /**
   * Why a create or update body cannot be decoded into the type: the first value of the wrong JSON type, in
   * encoding/json's words. Undefined when it can (always for a custom resource, which decodes into an unstructured
   * object).
   */
  decodeError(obj: KubeObject, subresource: string): string | undefined;
  /**
   * Decodes the fields of a request object in place, whatever fieldValidation says: drops what the type (or a custom
   * resource's schema) does not declare and, for a custom resource with `withDefaults` (the default), fills in the
   * schema's defaults. Returns the dropped fields as strict decoding reports them (`spec.foo`), found in `decodedAs`
   * (the same document in the key order upstream decodes it in; by default obj).
   */
  decodeFields(obj: KubeObject, subresource: string, opts?: { decodedAs?: KubeObject; withDefaults?: boolean }): string[];
  /**
   * Fills the schema's defaults into an object, in place. A server-side apply prunes its configuration without
   * defaulting it and defaults the merged object instead (structuredMergeManager), so the applier owns only what it
   * sent and a default never conflicts with another manager's value.
   */
  applyDefaults(obj: KubeObject, subresource: string): void;
  /**
   * Decodes a patch's result into the type (handlers/patch.go): why it cannot be, in the decoder's words (the handler
   * answers the patch's 422 with it). When it can, apiVersion and kind are defaulted in place as decoding does.
   */
  decodePatched(patched: KubeObject, original: KubeObject, patchType: PatchType, subresource: string): string | undefined;
  /**
   * What encoding an object of the resource (never a subresource's view) for storage and decoding it again drops,
   * in place: the empty omitempty lists and maps of a built-in kind, the empty labels, annotations, ... of a custom
   * resource's metadata (omit-empty.ts). The store applies it to what it writes, after validation (which sees the
   * empty values, as Go's does), and the field manager reads the write as it will be stored. Returns whether
   * anything was (with `check`: would be) dropped; with `check` the object is left as it is.
   */
  roundTrip?(obj: KubeObject, check?: boolean): boolean;
  /**
   * The part of roundTrip that decoding alone does, applied before validation: a built-in kind's zero scalars that
   * Go leaves out go and the fields it always writes are filled in (omit-empty.ts decodeAsGo), so the validation of
   * an update compares the new object with the stored one in the same form.
   */
  decodeAsGo?(obj: KubeObject): void;
  /** The type a strategic merge patch of the resource (or of its subresource's kind) follows. */
  strategicMergePatchSchema(subresource: string): StrategicMergePatchSchema;
  /**
   * Set when strict decoding reports unknown and duplicate fields together in the order it meets them in the body (a
   * built-in kind: Go's strict JSON decoder); unset, duplicates come first (a custom resource: the unstructured
   * decoder finds the duplicates, pruning the unknown fields afterwards).
   */
  strictErrorsInDocumentOrder?: boolean;
  /**
   * Set when the kind's list is a typed list (a built-in kind's Go list type): its items carry no apiVersion and kind,
   * which clients take from the list. Unset, items keep them (a custom resource's unstructured list).
   */
  typedList?: boolean;
}

export interface StorageMapping {
  /** The group and resource whose storage keys hold the objects. */
  group: string;
  resource: string;
  toStorage(obj: KubeObject): KubeObject;
  fromStorage(obj: KubeObject): KubeObject;
  /**
   * Set when converting between the served and the stored form calls out (a CRD with `conversion.strategy: Webhook`):
   * the store then converts asynchronously, a list page or the watch events that arrive together in one call, and
   * toStorage/fromStorage are not used. Resources without it keep the synchronous paths.
   */
  converter?: ObjectConverter;
}

/**
 * Converts objects between versions of one resource, several at a time (a CRD's conversion webhook: one
 * ConversionReview per call). `objects` may be of any version (stored objects keep the version they were written in);
 * those already in `apiVersion` come back as they are. `cluster` is the logical cluster the objects live in (where a
 * webhook's Service is looked up). Fails with a ConversionError, whose message is upstream's
 * (`conversion webhook for <group>/<version>, Kind=<kind> failed: ...`).
 */
export interface ObjectConverter {
  /** The apiVersion objects are stored in (`<group>/<storage version>`). */
  readonly storageAPIVersion: string;
  convert(cluster: string, objects: KubeObject[], apiVersion: string): Promise<KubeObject[]>;
}

/** A conversion that failed; the store answers it as kube-apiserver answers a codec error (see GenericStore). */
export class ConversionError extends Error {}

/** What a computed create receives: the URL's namespace and name (empty for collection POSTs) and the decoded body. */
export interface ComputedCreateRequest {
  namespace: string;
  name: string;
  subresource: string;
  object: KubeObject;
  /** An admitted computed create only: the request's dryRun=All. */
  dryRun?: boolean;
  /** An admitted computed create only: validating admission of the (mutated) object (rest.ValidateObjectFunc). */
  validate?: (obj: KubeObject) => Promise<void>;
}

/**
 * Answers a computed create; throws a StatusError to refuse it. A returned Status with a code is answered with that
 * code. `admitted`: the create goes through admission (mutating before the call, validating through
 * request.validate) and reads dryRun, as pods/eviction does upstream; reviews and token requests do neither.
 */
export type ComputedCreate = ((ctx: RequestContext, request: ComputedCreateRequest) => Promise<KubeObject>) & { admitted?: boolean };
