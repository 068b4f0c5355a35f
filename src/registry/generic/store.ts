import { randomUUID } from 'node:crypto';
import type { FieldError } from '../../apimachinery/field-errors.js';
import * as fe from '../../apimachinery/field-errors.js';
import { generateName } from '../../apimachinery/names/generate-name.js';
import { type KubeObject, type ObjectMeta, deepCopy, formatRFC3339, isPlainObject, jsonEqual, metaOf, nowRFC3339 } from '../../apimachinery/object.js';
import { errors, type GroupResource, StatusError, successStatus, type Status } from '../../apimachinery/status.js';
import { validateKubeFinalizerNames, validateObjectMeta, validateObjectMetaUpdate } from '../../apimachinery/validation/object-meta.js';
import { groupVersionString } from '../../apimachinery/api-resource.js';
import type { KeyValue, ListResult as StorageListResult, Storage, StorageWatchEvent, WatchHandle } from '../../storage/interface.js';
import { isStorageError, StorageError } from '../../storage/errors.js';
import type { CachedList, WatchCache } from '../../storage/cacher/watch-cache.js';
import { compareUtf8 } from '../../storage/cacher/key-index.js';
import { ConversionError, type ObjectConverter, type RequestContext, type ResourceDefinition } from '../rest.js';
import { clusterOfKey, collectionPrefix, objectKey } from './keys.js';
import { continueExpiredMessage, decodeContinue, encodeContinue, listExpiredMessage } from './continue-token.js';
import { rawLabelPrefilter } from './raw-label-prefilter.js';
import { sharedReadCache } from './read-cache.js';
import { type Selection, objectFields, selectionEmpty, selectionMatches } from './selection.js';
import { translateStorageError } from './storage-errors.js';
import { fieldManagerFor } from './field-manager-for.js';
import { builtinFieldLabels, DEFAULT_FIELD_LABELS, type FieldLabelSupport } from '../../apimachinery/fields/field-labels.js';

export interface ListOptions {
  selection: Selection;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /**
   * The caller only serialises the items (the list handler): unchanged objects may come from the shared read cache
   * (read-cache.ts) and must not be mutated. The result says whether they did (ListResult.shared).
   */
  sharedItems?: boolean;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
  /** The items may be shared with other requests (ListOptions.sharedItems): read them, never mutate them. */
  shared?: boolean;
}

/**
 * The API groups whose kinds upstream validates with pkg/apis/core/validation.ValidateObjectMeta, which adds to the
 * generic rules that a finalizer without a domain must be a standard one (coordination, admissionregistration and
 * apiextensions use the generic validation only, as custom resources do).
 */
const KUBE_FINALIZER_GROUPS = new Set(['', 'apps', 'autoscaling', 'batch', 'certificates.k8s.io', 'discovery.k8s.io', 'flowcontrol.apiserver.k8s.io', 'networking.k8s.io', 'node.k8s.io', 'rbac.authorization.k8s.io', 'resource.k8s.io', 'scheduling.k8s.io', 'storage.k8s.io', 'events.k8s.io']);

export interface WriteOptions {
  dryRun: boolean;
  /**
   * A create request (POST) whose body carries a resourceVersion fails as upstream's storage refuses it, once
   * validation and admission passed: a 500 `resourceVersion should not be set on objects to be created`. Dry runs
   * never reach storage and pass.
   */
  rejectResourceVersion?: boolean;
  /**
   * Records the write in metadata.managedFields as an Update by this field manager (server-side apply bookkeeping).
   * Unset for writes that did their own bookkeeping (apply) and for internal writes, which keep managedFields as they are.
   */
  fieldManager?: string;
  /**
   * create() only: the caller hands the input over (a request body decoded for this call alone), so the store may
   * write into it instead of copying it first. Internal callers that pass shared or reused objects leave it unset.
   */
  inputHandedOver?: boolean;
  /**
   * Validating admission (rest.ValidateObjectFunc): called with the object as it will be stored, after the strategy
   * prepared and validated it and before it is written (also on dry runs), with the stored object for an update (null
   * for a create); throwing refuses the write. Retries after a storage conflict call it again.
   */
  validateAdmission?: (obj: KubeObject, old: KubeObject | null) => Promise<void>;
  /**
   * update() only: mutating admission of a PUT, run inside the read-modify-write with the stored object (null when
   * the PUT creates), as upstream's update handler admits; returns the object to store.
   */
  admitUpdate?: (obj: KubeObject, old: KubeObject | null) => Promise<KubeObject>;
  /**
   * Mutating admission of a create or of a main-resource update (PUT, PATCH), run once managedFields record the write
   * and before the strategy prepares it: upstream's handlers run the field manager's transformer before admission's
   * (create.go, update.go, patch.go), so what admission adds (a claim's default class, a pod's service account volume)
   * is owned by no manager. Called with the stored object for an update, null for a create; returns the object to
   * store. Retries after a storage conflict call it again.
   */
  admit?: (obj: KubeObject, old: KubeObject | null) => Promise<KubeObject>;
  /**
   * Collects the strategy's warnings for the write (WarningsOnCreate / WarningsOnUpdate), computed once the object
   * passed validation as upstream's rest.BeforeCreate and BeforeUpdate add them; a retry replaces them. Subresource
   * writes have none (every upstream subresource strategy returns nil).
   */
  warnings?: string[];
}

export interface DeleteOptions {
  dryRun: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  /** The deprecated field; when set it decides alone (true: orphan, false: neither orphan nor foreground). */
  orphanDependents?: boolean;
  /** The grace period asked for (kinds with a gracefulDeletePeriod strategy only; negative counts as 1). */
  gracePeriodSeconds?: number;
  /** Validating admission of the deletion (rest.ValidateObjectFunc), called with the stored object once its preconditions hold. */
  validateAdmission?: (old: KubeObject) => Promise<void>;
}

export interface DeleteResult {
  /** The object as it now stands (deletion pending finalizers) or as it was before removal. */
  object: KubeObject;
  /** True when the object is gone from storage; false when deletion waits on finalizers. */
  deleted: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchSink {
  /** One event; returns false when the consumer can take no more (the store then stops the watch). */
  event(type: WatchEventType, object: KubeObject): boolean;
  /** Terminal error (e.g. 410 Expired); no events follow. */
  error(status: StatusError): void;
  /**
   * The resource stopped being served (its CRD was deleted or the version removed): the watch ends cleanly, as
   * upstream's CRD handler destroys the resource's cacher and its watchers' result channels close. No events follow.
   */
  end?(): void;
}

export interface WatchOptions {
  selection: Selection;
  resourceVersion?: string;
  sendInitialEvents?: boolean;
  allowBookmarks: boolean;
}

/**
 * What a guaranteedUpdate tryUpdate returns when the update leaves the current object exactly as it is (e.g. a
 * server-side apply of an unchanged configuration): the store then answers with the current object untouched.
 */
export const NO_CHANGE: unique symbol = Symbol('no change');

/** The finalizers a DELETE releases by itself: set by a plugin through ResourceRegistry.releaseFinalizersOnDelete. */
export interface DeletionRelease {
  releases?: (resource: GroupResource, finalizer: string, obj: KubeObject) => boolean;
}

/**
 * deletionFinalizersForGarbageCollection (store.go): the object's finalizers with `orphan` and `foregroundDeletion`
 * as the options ask (orphanDependents, else propagationPolicy, else whichever of the two the object carries first),
 * or undefined when that leaves the set as it is.
 */
function deletionFinalizersForGarbageCollection(existing: string[], opts: DeleteOptions, defaultPolicy?: 'OrphanDependents'): string[] | undefined {
  let orphan: boolean;
  let foreground: boolean;
  if (opts.orphanDependents !== undefined) {
    orphan = opts.orphanDependents;
    foreground = false;
  } else if (opts.propagationPolicy !== undefined) {
    orphan = opts.propagationPolicy === 'Orphan';
    foreground = opts.propagationPolicy === 'Foreground';
  } else {
    const first = existing.find((f) => f === 'orphan' || f === 'foregroundDeletion');
    orphan = first === 'orphan' || (first === undefined && defaultPolicy === 'OrphanDependents');
    foreground = first === 'foregroundDeletion';
  }
  const next = existing.filter((f) => f !== 'orphan' && f !== 'foregroundDeletion');
  if (orphan) next.push('orphan');
  if (foreground) next.push('foregroundDeletion');
  const before = new Set(existing);
  const after = new Set(next);
  if (before.size === after.size && [...after].every((f) => before.has(f))) return undefined;
  return next;
}

/** Sets the finalizers deletionFinalizersForGarbageCollection asks for on a metadata; true when they changed. */
function applyGarbageCollectionFinalizers(meta: ObjectMeta, opts: DeleteOptions, defaultPolicy?: 'OrphanDependents'): boolean {
  const finalizers = deletionFinalizersForGarbageCollection(meta.finalizers ?? [], opts, defaultPolicy);
  if (!finalizers) return false;
  if (finalizers.length) meta.finalizers = finalizers;
  else delete meta.finalizers;
  return true;
}

/** Name used to identify a not-yet-named object in errors. */
function displayName(obj: KubeObject): string {
  return obj.metadata?.name || obj.metadata?.generateName || '';
}

const maxGenerateNameAttempts = 8;
/** Concurrent deletes within one deletecollection. */
const deleteCollectionWorkers = 16;
let nextStoreId = 1;
const bookmarkIntervalMs = 5_000;

/**
 * The generic store: CRUD, list and watch for any resource, with per-resource behaviour from its Strategy
 * (k8s.io/apiserver pkg/registry/generic/registry/store.go). It stores JSON without resourceVersion, which is
 * always derived from the storage revision on read.
 */
export class GenericStore {
  readonly gr: GroupResource;
  readonly apiVersion: string;
  /**
   * The last watch event decoded, for plain [0] and wildcard [1] watches. The watch cache hands one event object
   * to every watcher of a resource in turn, so its JSON is parsed once per event instead of once per watcher.
   * Watch sinks therefore receive shared objects and must not mutate them (none does: they serialise or read).
   */
  private readonly lastWatchDecode: [DecodedWatchEvent | undefined, DecodedWatchEvent | undefined] = [undefined, undefined];
  /**
   * Ends of this resource's open watches. Successive stores of one custom resource (a CRD update yields a new
   * definition and store) share one set, so a watch opened on an older store ends when the resource stops being served.
   */
  private watchEnds = new Set<() => void>();
  /**
   * Set for resources whose conversion calls out (CRD conversion webhooks): every read, write and watch event then
   * goes through the async paths below (decodeConverted, encodeConverted, the watch's event queue); every other
   * resource keeps the synchronous decode/encode.
   */
  private readonly converter: ObjectConverter | undefined;
  /** Watch events converted once for every watcher that receives them (see lastWatchDecode), and their previous objects. */
  private readonly convertedEvents = new WeakMap<StorageWatchEvent, Promise<KubeObject>>();
  private readonly convertedPrevious = new WeakMap<StorageWatchEvent, Promise<KubeObject>>();
  /** This store's entries in the shared read cache are keyed `<id>:<wildcard>:<storage key>` (a new definition, a new id). */
  private readonly readCacheId = `${nextStoreId++}:`;

  constructor(
    readonly def: ResourceDefinition,
    private readonly storage: Storage,
    private readonly watchCache: WatchCache,
    /** Ends of open watches by logical cluster, shared by a registry's stores (see ResourceRegistry.endWatchesIn). */
    private readonly clusterWatches?: Map<string, Set<() => void>>,
    /** Finalizers a DELETE releases by itself (ResourceRegistry.releaseFinalizersOnDelete). */
    private readonly deletionRelease: DeletionRelease = {},
  ) {
    this.gr = { group: def.group, resource: def.resource };
    this.apiVersion = groupVersionString(def.group, def.version);
    this.converter = def.storage?.converter;
  }

  private key(ctx: RequestContext, namespace: string, name: string): string {
    const where = this.def.storage ?? this.def;
    return objectKey(where.group, where.resource, ctx.cluster, this.def.namespaced ? namespace : '', name);
  }

  private prefix(cluster: string, namespace: string): string {
    const where = this.def.storage ?? this.def;
    return collectionPrefix(where.group, where.resource, cluster, this.def.namespaced ? namespace : '');
  }

  /** Turns stored bytes into the wire object: resourceVersion from the revision, apiVersion/kind of this endpoint. */
  decode(kv: KeyValue | { value: string; modRevision: number; key: string }, wildcard = false): KubeObject {
    const stored = JSON.parse(kv.value) as KubeObject;
    const obj = this.def.storage ? this.def.storage.fromStorage(stored) : stored;
    return this.finish(obj, kv, wildcard);
  }

  /** An object in this endpoint's version as a read returns it: kind, defaults on read, resourceVersion, the wildcard annotation. */
  private finish(obj: KubeObject, kv: { modRevision: number; key: string }, wildcard: boolean): KubeObject {
    obj.apiVersion = this.apiVersion;
    obj.kind = this.def.kind;
    this.def.strategy.defaultOnRead?.(obj);
    const meta = metaOf(obj);
    meta.resourceVersion = String(kv.modRevision);
    // kcp annotates every object it reads; atrium only those of wildcard reads, where the workspace is otherwise
    // unknown to the client (a deliberate difference, README "Where we deliberately differ").
    if (wildcard) {
      meta.annotations = { ...(meta.annotations ?? {}), 'kcp.io/cluster': clusterOfKey(kv.key) };
    }
    return obj;
  }

  /**
   * The object a write just stored, as a read would return it, without parsing back what was stored: it is our own
   * copy, already prepared and defaulted, so only the revision is new.
   */
  private written(obj: KubeObject, revision: number): KubeObject {
    obj.apiVersion = this.apiVersion;
    obj.kind = this.def.kind;
    metaOf(obj).resourceVersion = String(revision);
    return obj;
  }

  /** The stored form: no resourceVersion (derived from the revision), no wildcard annotation. */
  private encode(obj: KubeObject): string {
    const meta = obj.metadata ?? {};
    const { resourceVersion: _rv, ...rest } = meta;
    void _rv;
    const served: KubeObject = { ...obj, apiVersion: this.apiVersion, kind: this.def.kind, metadata: rest };
    return JSON.stringify(this.def.storage ? this.def.storage.toStorage(served) : served);
  }

  private translate(err: unknown, name: string): unknown {
    return translateStorageError(err, this.gr, name);
  }

  /**
   * decode() through the converter: the stored objects converted to this version, one conversion call per logical
   * cluster among them (one for any non-wildcard read). A failure is the 500 kube-apiserver answers for a codec error
   * (the conversion error's text, no reason), as its storage decode returns it unwrapped.
   */
  private async decodeConverted(kvs: ReadonlyArray<{ value: string; modRevision: number; key: string }>, wildcard = false): Promise<KubeObject[]> {
    const converted = await this.convertStored(kvs, this.apiVersion).catch(codecFailure);
    return converted.map((obj, i) => this.finish(obj, kvs[i]!, wildcard));
  }

  /** The stored objects of `kvs` converted to `apiVersion`, in order; objects already there are not sent. */
  private async convertStored(kvs: ReadonlyArray<{ value: string; key: string }>, apiVersion: string): Promise<KubeObject[]> {
    const objects = kvs.map((kv) => JSON.parse(kv.value) as KubeObject);
    if (objects.every((o) => o.apiVersion === apiVersion)) return objects;
    const byCluster = new Map<string, number[]>();
    kvs.forEach((kv, i) => {
      const cluster = clusterOfKey(kv.key);
      (byCluster.get(cluster) ?? byCluster.set(cluster, []).get(cluster)!).push(i);
    });
    const out: KubeObject[] = new Array(objects.length);
    await Promise.all(
      [...byCluster].map(async ([cluster, indexes]) => {
        const converted = await this.converter!.convert(cluster, indexes.map((i) => objects[i]!), apiVersion);
        indexes.forEach((i, j) => (out[i] = converted[j]!));
      }),
    );
    return out;
  }

  /**
   * encode() through the converter: the served object converted to the storage version (storage-version migration:
   * whatever version the stored object was in, a write stores the current storage version). Returns the stored form.
   */
  private async encodeConverted(cluster: string, obj: KubeObject): Promise<KubeObject> {
    const { resourceVersion: _rv, ...rest } = obj.metadata ?? {};
    void _rv;
    const served: KubeObject = { ...obj, apiVersion: this.apiVersion, kind: this.def.kind, metadata: rest };
    const [stored] = await this.converter!.convert(cluster, [served], this.converter!.storageAPIVersion).catch(codecFailure);
    return stored!;
  }

  /**
   * What a converting write answers: the stored form converted back to this version, as upstream's storage decodes
   * what it wrote (also for a dry run, whose storage encodes and decodes the object: DryRunnableStorage.copyInto).
   */
  private async writtenConverted(cluster: string, stored: KubeObject, revision: number | undefined): Promise<KubeObject> {
    const [obj] = await this.converter!.convert(cluster, [stored], this.apiVersion).catch(codecFailure);
    this.def.strategy.defaultOnRead?.(obj!);
    obj!.apiVersion = this.apiVersion;
    obj!.kind = this.def.kind;
    const meta = metaOf(obj!);
    if (revision === undefined) delete meta.resourceVersion;
    else meta.resourceVersion = String(revision);
    return obj!;
  }

  /**
   * GET. A resourceVersion other than "0" means "not older than" (never a read of history): wait until storage has
   * reached it (504 after 3 s, like a list), then read the current object.
   */
  async get(ctx: RequestContext, namespace: string, name: string, resourceVersion?: string): Promise<KubeObject> {
    if (resourceVersion && resourceVersion !== '0') await this.waitForRevision(parseRequestResourceVersion(resourceVersion));
    try {
      const kv = await this.storage.get(this.key(ctx, namespace, name));
      if (!kv) throw errors.notFound(this.gr, name);
      return this.converter ? (await this.decodeConverted([kv]))[0]! : this.decode(kv);
    } catch (err) {
      throw this.translate(err, name);
    }
  }

  async list(ctx: RequestContext, namespace: string, opts: ListOptions, wildcard = false): Promise<ListResult> {
    const cluster = wildcard ? '*' : ctx.cluster;
    const prefix = this.prefix(cluster, namespace);
    let revision = 0;
    let afterKey: string | undefined;
    let cached: CachedList | undefined;
    let ignoreLimit = false;
    if (opts.continue) {
      // As upstream's storage: the token is decoded first (a bad one wins), then a resourceVersion beside it is a 400.
      const token = decodeContinue(opts.continue);
      if (opts.resourceVersion && opts.resourceVersion !== '0') {
        throw errors.badRequest('specifying resource version is not allowed when using continue');
      }
      // A negative revision is the token a compacted continue answered with: carry on at the current revision.
      revision = token.revision > 0 ? token.revision : 0;
      afterKey = token.afterKey;
    } else {
      const plan = this.planList(opts.resourceVersion, opts.resourceVersionMatch, opts.limit);
      if (plan.fromCache) {
        cached = await this.listFromCache(prefix, plan);
        // As upstream's cacher (computeListLimit): a list at resourceVersion 0 served from the cache is never paged.
        // Also when storage answers for an etcd the cache cannot trust: resourceVersion=0 keeps its upstream meaning.
        ignoreLimit = (cached !== undefined || this.storage.progressNotifyReliable?.() === false) && !plan.consistent && plan.minRevision === 0;
      }
      if (!cached) {
        if (plan.fromCache && plan.minRevision > 0 && !plan.consistent) await this.waitForRevision(plan.minRevision);
        revision = plan.fromCache ? 0 : plan.revision;
      }
    }
    const limit = !ignoreLimit && opts.limit && opts.limit > 0 ? opts.limit : 0;
    const filtering = !selectionEmpty(opts.selection);
    const prefilter = filtering ? rawLabelPrefilter(opts.selection) : undefined;
    // Unchanged objects are decoded once and shared by every list that returns them (never for converting resources,
    // whose conversion is a webhook's to answer each time).
    const shared = opts.sharedItems === true && !this.converter;
    const cachePrefix = wildcard ? `${this.readCacheId}*:` : this.readCacheId;
    const items: KubeObject[] = [];
    let more = false;
    let remaining: number | undefined;
    let lastKey = afterKey;
    let readRevision = revision;
    try {
      for (;;) {
        const chunk = limit ? Math.max(limit - items.length, filtering ? 256 : 0) : 0;
        const page = cached
          ? cachedPage(cached, chunk, lastKey)
          : await this.storage.list(prefix, { revision: revision || undefined, limit: chunk || undefined, afterKey: lastKey });
        readRevision = page.revision;
        if (!revision) revision = page.revision;
        // A converting resource converts the page's candidates in one call (one ConversionReview per page).
        const converted = this.converter ? await this.convertPage(page.items, prefilter, wildcard) : undefined;
        let i = 0;
        for (; i < page.items.length; i++) {
          const kv = page.items[i]!;
          if (prefilter && !prefilter(kv.value)) {
            lastKey = kv.key;
            continue;
          }
          const obj = converted ? converted[i]! : shared ? this.decodeShared(cachePrefix, kv, wildcard) : this.decode(kv, wildcard);
          if (filtering && !selectionMatches(opts.selection, obj, this.def.strategy.selectableFields)) {
            lastKey = kv.key;
            continue;
          }
          if (limit && items.length >= limit) break;
          items.push(obj);
          lastKey = kv.key;
        }
        if (limit && items.length >= limit) {
          more = i < page.items.length || page.more;
          if (more && !filtering) remaining = (page.remaining ?? 0) + (page.items.length - i);
          break;
        }
        if (!page.more) break;
      }
    } catch (err) {
      if (isStorageError(err, 'Compacted') && afterKey !== undefined) {
        // Like handleCompactedErrorForPaging: the 410 carries a token that resumes after the same key at the latest
        // revision, for a client that accepts an inconsistent remainder.
        const e = errors.expired(continueExpiredMessage);
        e.status.metadata.continue = encodeContinue({ revision: -1, afterKey });
        throw e;
      }
      // Only an exact read (Exact, or the legacy limit + resourceVersion list) reaches a compacted revision; upstream
      // serves those from etcd, whose list error text this is.
      if (isStorageError(err, 'Compacted')) throw errors.expired(listExpiredMessage);
      throw this.translate(err, '');
    }
    const result: ListResult = { items, resourceVersion: String(readRevision) };
    if (shared) result.shared = true;
    if (more && lastKey !== undefined) {
      result.continue = encodeContinue({ revision: readRevision, afterKey: lastKey });
      if (remaining !== undefined) result.remainingItemCount = remaining;
    }
    return result;
  }

  /** decode() through the shared read cache: the object decoded before for this key at this revision, else a new one. */
  private decodeShared(cachePrefix: string, kv: KeyValue, wildcard: boolean): KubeObject {
    const id = cachePrefix + kv.key;
    const hit = sharedReadCache.get(id, kv.modRevision);
    if (hit !== undefined) return hit;
    const obj = this.decode(kv, wildcard);
    sharedReadCache.set(id, kv.modRevision, obj, kv.value.length + id.length);
    return obj;
  }

  /** The items of a list page that pass the prefilter, converted in one call (by index; the others undefined). */
  private async convertPage(items: KeyValue[], prefilter: ((raw: string) => boolean) | undefined, wildcard: boolean): Promise<(KubeObject | undefined)[]> {
    const picked = prefilter ? items.filter((kv) => prefilter(kv.value)) : items;
    const decoded = await this.decodeConverted(picked, wildcard);
    if (!prefilter) return decoded;
    const out: (KubeObject | undefined)[] = new Array(items.length);
    let j = 0;
    items.forEach((kv, i) => {
      if (picked[j] === kv) out[i] = decoded[j++];
    });
    return out;
  }

  /**
   * Where a first page comes from, from resourceVersion + resourceVersionMatch, as upstream's cacher decides
   * (shouldDelegateList): Exact N, and N with a limit and no resourceVersionMatch (the legacy rule for paged lists),
   * read storage at exactly N; everything else is served by the watch cache: unset (a consistent read) once the cache
   * has reached the store's current revision, "0" as the cache is, N (NotOlderThan) once it has reached N.
   */
  private planList(rv: string | undefined, match: string | undefined, limit?: number): ListPlan {
    const revision = this.resolveListRevision(rv, match, limit);
    if (revision > 0) return { fromCache: false, revision };
    if (!rv) return { fromCache: true, consistent: true, minRevision: 0 };
    return { fromCache: true, consistent: false, minRevision: rv === '0' ? 0 : parseRequestResourceVersion(rv) };
  }

  /**
   * A list's keys from the watch cache (undefined: read storage). A consistent read first takes the store's current
   * revision (as upstream's GetCurrentResourceVersionFromStorage) and falls back to storage when the cache does not
   * reach it in time, as upstream does; a NotOlderThan read that times out is upstream's 504.
   */
  private async listFromCache(prefix: string, plan: Extract<ListPlan, { fromCache: true }>): Promise<CachedList | undefined> {
    let min = plan.minRevision;
    // On an etcd whose progress notifications may run ahead of the events, the cache cannot prove what revision its
    // contents are at — not only for consistent reads: a list at a revision the cache reached by such a notification
    // could lack events at or below it, which the watch that follows from that revision never delivers. Storage
    // answers every list there (as kube-apiserver needs a fixed etcd for its cache).
    if (this.storage.progressNotifyReliable?.() === false) return undefined;
    if (plan.consistent) {
      try {
        min = await this.storage.currentRevision();
      } catch (err) {
        throw this.translate(err, '');
      }
    }
    try {
      return await this.watchCache.list(prefix, min);
    } catch (err) {
      if (isStorageError(err, 'FutureRevision') && !plan.consistent) throw tooLargeResourceVersion(min, err.revision ?? 0);
      // A consistent read the cache could not serve in time, or a cache whose storage watch failed: storage answers.
      return undefined;
    }
  }

  /**
   * The revision a list reads at, from resourceVersion + resourceVersionMatch (0 = current).
   * Semantics: unset/"0" → current; N (NotOlderThan) → current, once N is reached; Exact → N; N with a limit and
   * no resourceVersionMatch → N, kube-apiserver's legacy rule for paged lists (read from etcd at exactly N).
   */
  private resolveListRevision(rv: string | undefined, match: string | undefined, limit?: number): number {
    if (match && !rv) {
      throw listOptionsInvalid([fe.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided')]);
    }
    if (match && match !== 'Exact' && match !== 'NotOlderThan') {
      throw listOptionsInvalid([fe.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', ''])]);
    }
    if (!rv || rv === '0') {
      if (match === 'Exact') {
        throw listOptionsInvalid([fe.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"')]);
      }
      return 0;
    }
    const exact = match === 'Exact' || (!match && limit !== undefined && limit > 0);
    const n = parseRequestResourceVersion(rv, exact);
    if (exact) return n;
    return 0;
  }

  /** A read "not older than N" beyond what storage has waits up to 3 s, then 504 like kube-apiserver. */
  private async waitForRevision(n: number): Promise<void> {
    const deadline = Date.now() + 3000;
    for (;;) {
      let current: number;
      try {
        current = await this.storage.currentRevision();
      } catch (err) {
        throw this.translate(err, '');
      }
      if (current >= n) return;
      if (Date.now() >= deadline) throw tooLargeResourceVersion(n, current);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Validates and stores a new object. Returns the stored object (with resourceVersion unless dry-run). */
  async create(ctx: RequestContext, namespace: string, input: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    // A deep copy of a 2 KB object costs ~20 µs, a tenth of a create: skipped when the caller hands the input over.
    const owned = opts.inputHandedOver === true;
    const sentResourceVersion = opts.rejectResourceVersion === true && !!input.metadata?.resourceVersion;
    let obj = opts.fieldManager !== undefined ? this.trackCreate(input, opts.fieldManager, owned) : owned ? input : deepCopy(input);
    if (opts.admit) obj = await opts.admit(obj, null);
    this.def.codec.decodeAsGo?.(obj);
    const meta = metaOf(obj);
    this.prepareCreateMeta(obj, namespace);
    // As Store.create, expand generateName before the strategy's PrepareForCreate (a Job labels its pod template with
    // its name) and before validating (ObjectMeta validation requires a name). A retry after a collision changes only
    // the name.
    const generated = !meta.name && !!meta.generateName;
    if (generated) meta.name = generateName(meta.generateName!);
    this.def.strategy.prepareForCreate?.(obj, ctx);
    const errs = this.validateCreate(obj);
    if (errs.length) throw errors.invalid(this.def.group, this.def.kind, displayName(obj), errs);
    if (opts.warnings) opts.warnings.splice(0, opts.warnings.length, ...(this.def.strategy.warnings?.(obj) ?? []));
    if (opts.validateAdmission) await opts.validateAdmission(obj, null);
    // Validated as decoded, stored (and answered) as Go's round trip leaves it: without empty omitempty lists and maps.
    this.def.codec.roundTrip?.(obj);
    if (sentResourceVersion && !opts.dryRun) {
      // etcd3 store.Create's plain error: a 500 Status without a reason.
      throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'resourceVersion should not be set on objects to be created', code: 500 });
    }
    if (generated) {
      // Retry collisions with fresh suffixes (the suffix alphabet cannot make a valid name invalid).
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.commitCreate(ctx, obj, opts);
        } catch (err) {
          if (isStatusError409Exists(err) && attempt < maxGenerateNameAttempts) {
            meta.name = generateName(meta.generateName!);
            continue;
          }
          throw err;
        }
      }
    }
    return this.commitCreate(ctx, obj, opts);
  }

  private async commitCreate(ctx: RequestContext, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    const meta = metaOf(obj);
    const name = meta.name!;
    if (opts.dryRun) {
      let existing: KeyValue | null;
      try {
        existing = await this.storage.get(this.key(ctx, meta.namespace ?? '', name));
      } catch (err) {
        throw this.translate(err, name);
      }
      if (existing) throw errors.alreadyExists(this.gr, name);
      if (this.converter) return this.writtenConverted(ctx.cluster, await this.encodeConverted(ctx.cluster, obj), undefined);
      return obj;
    }
    if (this.converter) {
      const stored = await this.encodeConverted(ctx.cluster, obj);
      let kv: KeyValue;
      try {
        kv = await this.storage.create(this.key(ctx, meta.namespace ?? '', name), JSON.stringify(stored));
      } catch (err) {
        throw this.translate(err, name);
      }
      return this.writtenConverted(ctx.cluster, stored, kv.modRevision);
    }
    try {
      const kv = await this.storage.create(this.key(ctx, meta.namespace ?? '', name), this.encode(obj));
      return this.written(obj, kv.modRevision);
    } catch (err) {
      throw this.translate(err, name);
    }
  }

  private prepareCreateMeta(obj: KubeObject, namespace: string): void {
    const meta = metaOf(obj);
    meta.uid = randomUUID();
    meta.creationTimestamp = nowRFC3339();
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete (meta as Record<string, unknown>).selfLink;
    if (this.def.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    // A kind that does not track generation keeps whatever the client sent (BeforeCreate leaves it alone).
    if (this.def.strategy.tracksGeneration) meta.generation = 1;
    obj.apiVersion = this.apiVersion;
    obj.kind = this.def.kind;
  }

  private validateCreate(obj: KubeObject): FieldError[] {
    const meta = metaOf(obj);
    const errs = validateObjectMeta(meta, { namespaced: this.def.namespaced, nameValidator: this.def.strategy.nameValidation });
    if (this.kubeFinalizerNames) errs.push(...validateKubeFinalizerNames(meta.finalizers));
    errs.push(...(this.def.strategy.validate?.(obj) ?? []));
    return errs;
  }

  /** Whether upstream validates this kind's metadata with pkg/apis/core/validation, which also checks finalizer names. */
  private get kubeFinalizerNames(): boolean {
    return !this.def.ssaSchema && KUBE_FINALIZER_GROUPS.has(this.def.group);
  }

  private validateUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
    // rest.BeforeUpdate validates the metadata (ValidateObjectMetaAccessor and ...Update), and then every strategy's
    // ValidateUpdate does again (ValidateObjectMetaUpdate, then the kind's ValidateObjectMeta): each metadata error is
    // listed that many times among the causes, while the message names it once.
    // Which metadata checks the strategy repeats depends on the kind's validation package: core's (ValidateObjectMetaUpdate,
    // which checks the finalizer names too, then the kind's ValidateObjectMeta), RBAC's (ValidateRole, then
    // ValidateRoleUpdate = ValidateRole + ValidateObjectMetaUpdate) or the generic one (ValidateObjectMetaUpdate only).
    const meta = validateObjectMeta(metaOf(obj), { namespaced: this.def.namespaced, nameValidator: this.def.strategy.nameValidation });
    const metaUpdate = validateObjectMetaUpdate(metaOf(obj), metaOf(old));
    const errs = [...meta, ...metaUpdate];
    if (this.def.strategy.metadataRevalidation === 'none') {
      // The kind's ValidateUpdate checks only its spec.
    } else if (!this.kubeFinalizerNames) errs.push(...metaUpdate);
    else {
      const fin = validateKubeFinalizerNames(metaOf(obj).finalizers);
      const again = this.def.strategy.metadataRevalidation;
      if (this.def.group === 'rbac.authorization.k8s.io') errs.push(...meta, ...fin, ...meta, ...fin, ...metaUpdate, ...fin);
      else if (again === 'update') errs.push(...metaUpdate, ...fin);
      else if (again === 'claim') errs.push(...meta, ...fin, ...metaUpdate, ...fin, ...meta, ...fin);
      else if (again !== 'none') errs.push(...metaUpdate, ...fin, ...meta, ...fin);
    }
    errs.push(...(this.def.strategy.validateUpdate?.(obj, old) ?? this.def.strategy.validate?.(obj) ?? []));
    return errs;
  }

  /**
   * PUT: replaces the object. An empty metadata.resourceVersion is an unconditional update where the strategy allows it.
   * Returns the new object and whether it was created.
   */
  async update(
    ctx: RequestContext,
    namespace: string,
    name: string,
    input: KubeObject,
    opts: WriteOptions,
    subresource = '',
  ): Promise<{ object: KubeObject; created: boolean }> {
    const rv = input.metadata?.resourceVersion;
    const expected = rv ? parseResourceVersion(rv, 'metadata.resourceVersion') : undefined;
    return this.guaranteedUpdate(
      ctx,
      namespace,
      name,
      async (current) => {
        // A uid in a PUT body is a storage precondition (rest.defaultUpdatedObjectInfo.Preconditions), checked before
        // anything else; a patch has none (its objInfo carries no object), so a patched uid fails validation instead.
        const uid = isPlainObject(input.metadata) ? input.metadata.uid : undefined;
        if (current && uid && uid !== current.metadata?.uid) {
          throw errors.conflict(this.gr, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata?.uid}`);
        }
        // Store.Update answers NotFound for a missing object before it looks at the resourceVersion, and names the
        // resource (not the Kind) in the Invalid error, printing the uint64 zero with %#v.
        if (current && !subresource && !rv && !this.def.strategy.allowUnconditionalUpdate) {
          throw errors.invalid(this.gr.group, this.gr.resource, name, [
            { ...fe.invalid('metadata.resourceVersion', 0, 'must be specified for an update'), renderedValue: '0x0' },
          ]);
        }
        if (current && expected !== undefined && String(expected) !== current.metadata?.resourceVersion) {
          throw errors.conflictModified(this.gr, name);
        }
        return opts.admitUpdate ? await opts.admitUpdate(deepCopy(input), current) : deepCopy(input);
      },
      opts,
      subresource,
      !subresource && this.def.strategy.allowCreateOnUpdate,
    );
  }

  /**
   * Read-modify-write with optimistic concurrency, retried on storage conflicts (storage.GuaranteedUpdate).
   * tryUpdate receives a private copy of the current object (null if absent and creation is allowed) and returns the
   * desired object, or NO_CHANGE when it knows the current object is the result and left its copy untouched (no
   * validation, no write, that copy is returned); throwing aborts. Subresource writes only change what the subresource strategy copies over.
   */
  async guaranteedUpdate(
    ctx: RequestContext,
    namespace: string,
    name: string,
    tryUpdate: (current: KubeObject | null) => KubeObject | typeof NO_CHANGE | Promise<KubeObject | typeof NO_CHANGE>,
    opts: WriteOptions,
    subresource = '',
    allowCreate = false,
  ): Promise<{ object: KubeObject; created: boolean }> {
    const key = this.key(ctx, namespace, name);
    // As upstream's cacher hands GuaranteedUpdate the watch cache's object, the first attempt starts from the cached
    // value, saving a storage read per update. What it concludes from possibly stale data, an error or "nothing to
    // write", is checked against a fresh read (upstream's origStateIsCurrent); a stale revision fails the write's
    // compare-and-swap and the next attempt reads storage. Not for converting resources, whose reads call out anyway.
    let cached = this.converter ? undefined : this.watchCache.cachedValue(key);
    /** The current value, read to check an attempt that started from the cache, for the next attempt. */
    let fresh: KeyValue | null | undefined;
    for (let attempt = 0; attempt < 64; attempt++) {
      let kv: KeyValue | null;
      const stale = cached !== undefined;
      if (cached !== undefined) {
        kv = cached;
        cached = undefined;
      } else if (fresh !== undefined) {
        kv = fresh;
        fresh = undefined;
      } else {
        kv = await this.readCurrent(key, name);
      }
      if (!kv) {
        if (!allowCreate) throw errors.notFound(this.gr, name);
        const desired = await tryUpdate(null);
        if (desired === NO_CHANGE) throw errors.internal('an update of a missing object reported no change');
        this.checkIdentity(desired, namespace, name);
        try {
          return { object: await this.create(ctx, namespace, desired, opts), created: true };
        } catch (err) {
          if (err instanceof StatusError && err.reason === 'AlreadyExists') continue;
          throw err;
        }
      }
      let outcome: UpdateAttempt;
      try {
        outcome = await this.attemptUpdate(ctx, namespace, name, key, kv, tryUpdate, opts, subresource);
      } catch (err) {
        if (!stale) throw err;
        fresh = await this.readCurrent(key, name);
        if (fresh?.modRevision === kv.modRevision) throw err;
        continue;
      }
      if (outcome === RETRY) continue;
      if (outcome.notWritten && stale) {
        fresh = await this.readCurrent(key, name);
        if (fresh?.modRevision !== kv.modRevision) continue;
        fresh = undefined;
      }
      return { object: outcome.object, created: false };
    }
    throw errors.conflictModified(this.gr, name);
  }

  /** The stored value of key now (null when absent), storage errors as the Status they stand for. */
  private async readCurrent(key: string, name: string): Promise<KeyValue | null> {
    try {
      return await this.storage.get(key);
    } catch (err) {
      throw this.translate(err, name);
    }
  }

  /**
   * One attempt of guaranteedUpdate from the stored value kv: the object written, or not written (nothing to write,
   * or a dry run), or RETRY when the write lost a compare-and-swap.
   */
  private async attemptUpdate(
    ctx: RequestContext,
    namespace: string,
    name: string,
    key: string,
    kv: KeyValue,
    tryUpdate: (current: KubeObject | null) => KubeObject | typeof NO_CHANGE | Promise<KubeObject | typeof NO_CHANGE>,
    opts: WriteOptions,
    subresource: string,
  ): Promise<UpdateAttempt> {
    // A converting resource converts the stored object once; its copies stand for the decodes below.
    const pristine = this.converter ? (await this.decodeConverted([kv]))[0]! : undefined;
    const given = pristine ? deepCopy(pristine) : this.decode(kv);
    const proposed = await tryUpdate(given);
    // The caller vouches that the current object stands as is (and that it left its copy untouched): the stored
    // revision was validated when it was written, so there is nothing to validate or write, unless it is only
    // waiting to be removed.
    if (proposed === NO_CHANGE && !this.readyToRemove(given)) return { notWritten: true, object: given };
    // A second decode is the pristine current object: cheaper than a deep copy made before tryUpdate.
    const current = pristine ? deepCopy(pristine) : this.decode(kv);
    let desired = proposed === NO_CHANGE ? (pristine ? deepCopy(pristine) : this.decode(kv)) : proposed;
    this.checkIdentity(desired, namespace, name);
    // As decoded into the Go type, before the strategy compares it with the stored object (generation, immutable
    // fields): a writer that leaves out what Go always writes changes nothing by that.
    this.def.codec.decodeAsGo?.(desired);
    if (!subresource) desired = this.trackMainUpdate(current, desired, opts);
    if (!subresource && opts.admit) {
      // Admission reads the stored object as oldObject and never writes it (as upstream's, which gets the live object).
      desired = await opts.admit(desired, current);
      this.def.codec.decodeAsGo?.(desired);
    }
    let next = subresource ? this.applySubresource(subresource, desired, current) : this.prepareUpdate(desired, current);
    if (subresource && !this.def.subresourceStrategies[subresource]?.keepsManagedFields) next = this.trackSubresourceUpdate(subresource, current, desired, next, opts);
    const errs = subresource
      ? (this.def.subresourceStrategies[subresource]?.validate?.(next, current) ?? validateObjectMetaUpdate(metaOf(next), metaOf(current)))
      : this.validateUpdate(next, current);
    if (errs.length) throw errors.invalid(this.def.group, this.def.kind, name, errs);
    if (opts.warnings) opts.warnings.splice(0, opts.warnings.length, ...(subresource ? [] : (this.def.strategy.warnings?.(next, current) ?? [])));
    if (opts.validateAdmission) await opts.validateAdmission(next, current);
    // Validated as decoded, stored (and answered) as Go's round trip leaves it: without empty omitempty lists and maps.
    this.def.codec.roundTrip?.(next);

    // An update that clears the last finalizer of an object being deleted removes it.
    if (this.readyToRemove(next)) {
      if (opts.dryRun) return { notWritten: true, object: next };
      try {
        const deleted = await this.storage.delete(key, kv.modRevision);
        if (this.converter) return { notWritten: false, object: this.finish(next, deleted, false) };
        return { notWritten: false, object: this.decode({ ...deleted, value: this.encode(next) }) };
      } catch (err) {
        if (isStorageError(err, 'Conflict')) return RETRY;
        throw this.translate(err, name);
      }
    }
    // An unchanged object is not written, unless it is stored in an older storage version of a converting resource:
    // as upstream compares the encoded bytes, such a write migrates it to the current storage version.
    if (jsonEqual(stripRV(next), stripRV(current)) && (!this.converter || storedAPIVersion(kv.value) === this.converter.storageAPIVersion)) {
      return { notWritten: true, object: current };
    }
    if (this.converter) {
      const stored = await this.encodeConverted(ctx.cluster, next);
      if (opts.dryRun) return { notWritten: true, object: await this.writtenConverted(ctx.cluster, stored, kv.modRevision) };
      let updated: KeyValue;
      try {
        updated = await this.storage.update(key, JSON.stringify(stored), kv.modRevision);
      } catch (err) {
        if (isStorageError(err, 'Conflict')) return RETRY;
        throw this.translate(err, name);
      }
      return { notWritten: false, object: await this.writtenConverted(ctx.cluster, stored, updated.modRevision) };
    }
    if (opts.dryRun) return { notWritten: true, object: next };
    try {
      const updated = await this.storage.update(key, this.encode(next), kv.modRevision);
      return { notWritten: false, object: this.written(next, updated.modRevision) };
    } catch (err) {
      if (isStorageError(err, 'Conflict')) {
        // The caller's own precondition (resourceVersion in the body) decides whether a conflict is final.
        return RETRY;
      }
      throw this.translate(err, name);
    }
  }

  /** managedFields of a create by `manager` (see storedForm). */
  private trackCreate(input: KubeObject, manager: string, owned: boolean): KubeObject {
    const fm = fieldManagerFor(this.def);
    const stored = this.storedForm(input);
    if (stored === input) return fm.update(null, input, manager, owned);
    const obj = owned ? input : deepCopy(input);
    copyManagedFields(fm.update(null, stored, manager, true), obj);
    return obj;
  }

  /**
   * A write as it will be stored, which is what the field manager records (upstream's reads the object converted to
   * unstructured, which leaves out the empty omitempty fields the storage round trip drops): `obj` itself when
   * codec.roundTrip drops nothing from it, else a copy without what it drops. The object itself keeps its empty
   * values until it has been validated.
   */
  private storedForm(obj: KubeObject): KubeObject {
    const codec = this.def.codec;
    if (!codec.roundTrip?.(obj, true)) return obj;
    const copy = deepCopy(obj);
    codec.roundTrip(copy);
    return copy;
  }

  /**
   * managedFields of a main-resource write: an Update by opts.fieldManager when set; otherwise (apply, internal writes)
   * the desired object's own, or the current ones when it carries none.
   */
  private trackMainUpdate(current: KubeObject, desired: KubeObject, opts: WriteOptions): KubeObject {
    if (opts.fieldManager !== undefined) {
      const fm = fieldManagerFor(this.def);
      const stored = this.storedForm(desired);
      if (stored === desired) return fm.update(current, desired, opts.fieldManager);
      // The caller's object is not ours to change (a retry may hand it over again).
      const out = deepCopy(desired);
      copyManagedFields(fm.update(current, stored, opts.fieldManager, true), out);
      return out;
    }
    const meta = metaOf(desired);
    if (meta.managedFields === undefined && current.metadata?.managedFields !== undefined) meta.managedFields = current.metadata.managedFields;
    return desired;
  }

  /**
   * managedFields of a subresource write, computed on the parent after the subresource strategy ran: an Update by
   * opts.fieldManager, or else those of the desired object when it carries them (an apply did its own bookkeeping).
   */
  private trackSubresourceUpdate(subresource: string, current: KubeObject, desired: KubeObject, next: KubeObject, opts: WriteOptions): KubeObject {
    if (opts.fieldManager !== undefined) {
      const fm = fieldManagerFor(this.def, subresource);
      const stored = this.storedForm(next);
      if (stored === next) return fm.update(current, next, opts.fieldManager);
      // next is this write's own object (the subresource strategy's result).
      copyManagedFields(fm.update(current, stored, opts.fieldManager, true), next);
      return next;
    }
    if (isPlainObject(desired.metadata) && 'managedFields' in desired.metadata) {
      const meta = metaOf(next);
      if (desired.metadata.managedFields === undefined) delete meta.managedFields;
      else meta.managedFields = deepCopy(desired.metadata.managedFields);
    }
    return next;
  }

  /** The URL's name and namespace win; a body that names something else is rejected. */
  private checkIdentity(obj: KubeObject, namespace: string, name: string): void {
    if (!isPlainObject(obj)) throw errors.badRequest('the object provided is not a JSON object');
    const meta = metaOf(obj);
    if (meta.name && meta.name !== name) {
      throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    }
    meta.name = name;
    if (this.def.namespaced) {
      if (meta.namespace && meta.namespace !== namespace) {
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = namespace;
    }
  }

  /** Carries over system fields an update may not set (k8s rest.BeforeUpdate) and bumps generation. */
  private prepareUpdate(desired: KubeObject, current: KubeObject): KubeObject {
    const next = desired;
    const meta = metaOf(next);
    const old = metaOf(current);
    next.apiVersion = this.apiVersion;
    next.kind = this.def.kind;
    // An empty uid means "the existing object" (rest.BeforeUpdate); a different one is left for validation to refuse
    // as immutable (what a patch gets). A PUT body's uid was already checked as a precondition in update().
    if (!meta.uid) meta.uid = old.uid;
    meta.creationTimestamp = old.creationTimestamp;
    if (old.deletionTimestamp) meta.deletionTimestamp = old.deletionTimestamp;
    else delete meta.deletionTimestamp;
    if (old.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
    else delete meta.deletionGracePeriodSeconds;
    delete (meta as Record<string, unknown>).selfLink;
    this.def.strategy.prepareForUpdate?.(next, current);
    if (this.def.strategy.tracksGeneration) {
      meta.generation = old.generation ?? 1;
      // Without a status subresource, status is part of the spec as far as generation goes
      // (customResourceStrategy.PrepareForUpdate); every type with one keeps status writes out of it.
      const specOf = this.def.subresourceStrategies.status ? withoutMetaAndStatus : withoutMeta;
      if (!jsonEqual(specOf(next), specOf(current))) meta.generation = (old.generation ?? 1) + 1;
    } else if (this.def.strategy.bumpsGeneration?.(next, current)) {
      meta.generation = (old.generation ?? 0) + 1;
    } else if (old.generation !== undefined) {
      // rest.BeforeUpdate: a request never sets generation; what the kind set on create (a PriorityClass's 1) stays.
      meta.generation = old.generation;
    } else {
      delete meta.generation;
    }
    meta.resourceVersion = old.resourceVersion;
    return next;
  }

  private applySubresource(subresource: string, desired: KubeObject, current: KubeObject): KubeObject {
    const strategy = this.def.subresourceStrategies[subresource];
    if (!strategy) throw errors.notFoundPath();
    const next = strategy.apply(desired, deepCopy(current));
    metaOf(next).resourceVersion = current.metadata?.resourceVersion;
    // Upstream's /scale (CRs, Deployments, ReplicaSets) writes through the main store, whose PrepareForUpdate bumps
    // generation when the spec changed; /status strategies keep the spec and never bump it.
    if (subresource !== 'status' && this.def.strategy.tracksGeneration) {
      const specOf = this.def.subresourceStrategies.status ? withoutMetaAndStatus : withoutMeta;
      if (!jsonEqual(specOf(next), specOf(current))) metaOf(next).generation = (current.metadata?.generation ?? 1) + 1;
    }
    return next;
  }

  private hasPendingFinalizers(obj: KubeObject): boolean {
    return (obj.metadata?.finalizers?.length ?? 0) > 0 || (this.def.strategy.pendingFinalizers?.(obj) ?? false);
  }

  private readyToRemove(obj: KubeObject): boolean {
    return !!obj.metadata?.deletionTimestamp && !this.hasPendingFinalizers(obj);
  }

  /**
   * DELETE: with finalizers pending (or a propagation policy that needs the garbage collector), marks the object
   * deleting and returns it; otherwise removes it.
   */
  async delete(ctx: RequestContext, namespace: string, name: string, opts: DeleteOptions): Promise<DeleteResult> {
    // A kind's own REST.Delete may refuse some objects outright (the system PriorityClasses); deletecollection goes
    // straight to the generic delete, as upstream's Store.DeleteCollection does.
    const refusal = this.def.strategy.deleteRefusal?.(name);
    if (refusal) throw errors.forbidden(this.gr, name, refusal);
    return this.deleteObject(ctx, namespace, name, opts);
  }

  private async deleteObject(ctx: RequestContext, namespace: string, name: string, opts: DeleteOptions): Promise<DeleteResult> {
    const key = this.key(ctx, namespace, name);
    for (let attempt = 0; attempt < 64; attempt++) {
      let kv: KeyValue | null;
      try {
        kv = await this.storage.get(key);
      } catch (err) {
        throw this.translate(err, name);
      }
      if (!kv) throw errors.notFound(this.gr, name);
      const current = this.converter ? (await this.decodeConverted([kv]))[0]! : this.decode(kv);
      const meta = metaOf(current);
      // rest.BeforeDelete checks preconditions first and names the object by its Kind (not the resource) in the message.
      const pre = opts.preconditions;
      const byKind = { group: this.def.group, resource: this.def.kind };
      const ownWording = this.def.strategy.deletePreconditionFailure;
      if (ownWording && pre?.uid && pre.uid !== meta.uid) throw errors.conflict(this.gr, name, ownWording('UID', pre.uid, meta.uid ?? ''));
      if (ownWording && pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
        throw errors.conflict(this.gr, name, ownWording('ResourceVersion', pre.resourceVersion, meta.resourceVersion ?? ''));
      }
      if (pre?.uid && pre.uid !== meta.uid) {
        throw errors.conflict(
          byKind,
          name,
          `the UID in the precondition (${pre.uid}) does not match the UID in record (${meta.uid}). The object might have been deleted and then recreated`,
        );
      }
      if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
        throw errors.conflict(
          byKind,
          name,
          `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${meta.resourceVersion}). The object might have been modified`,
        );
      }
      if (opts.validateAdmission) await opts.validateAdmission(current);
      // A namespace already terminating while spec.finalizers remain is answered as it is (namespace REST.Delete).
      if (meta.deletionTimestamp && this.def.strategy.pendingFinalizers?.(current)) return { object: current, deleted: false };
      const next = deepCopy(current);
      const nmeta = metaOf(next);
      if (this.def.strategy.markDeletingFirst && !nmeta.deletionTimestamp) {
        // namespace REST.Delete's first DELETE: deletionTimestamp, phase and GC finalizers, no grace period; the
        // object stays whatever is pending.
        nmeta.deletionTimestamp = nowRFC3339();
        this.def.strategy.onDeletionStarted?.(next);
        if (!this.def.strategy.markDeletingWithoutGC) applyGarbageCollectionFinalizers(nmeta, opts, this.def.strategy.defaultGarbageCollectionPolicy);
        const marked = await this.storeDeletionMark(ctx, key, name, next, kv, opts);
        if (marked === RETRY) continue;
        return marked;
      }
      const graceful = this.gracefulDeletion(current, opts);
      if (graceful === 'pending') return { object: current, deleted: false };
      if (graceful) {
        // The first phase of a graceful deletion (BeforeDelete + updateForGracefulDeletionAndFinalizers): the object
        // stays, marked, until whoever runs it (a kubelet) deletes it again with no grace period.
        nmeta.deletionTimestamp = graceful.deletionTimestamp;
        nmeta.deletionGracePeriodSeconds = graceful.period;
        if (graceful.first) {
          if ((nmeta.generation ?? 0) > 0) nmeta.generation = nmeta.generation! + 1;
          this.def.strategy.onDeletionStarted?.(next);
        }
        applyGarbageCollectionFinalizers(nmeta, opts, this.def.strategy.defaultGarbageCollectionPolicy);
        const marked = await this.storeDeletionMark(ctx, key, name, next, kv, opts);
        if (marked === RETRY) continue;
        return marked;
      }
      let changed = false;
      // Deliberately unlike kcp, whose syncer finalizer holds a deleted object until its copies are gone: finalizers a
      // plugin declared released by DELETE (ResourceRegistry.releaseFinalizersOnDelete) go with this very request, so
      // the object is gone at once as on one cluster (a list right after the DELETE no longer shows it), and the
      // plugin cleans up after it. A dry run answers the same, writing nothing.
      const releases = this.deletionRelease.releases;
      if (releases && nmeta.finalizers?.some((f) => releases(this.gr, f, current))) {
        const kept = nmeta.finalizers.filter((f) => !releases(this.gr, f, current));
        if (kept.length) nmeta.finalizers = kept;
        else delete nmeta.finalizers;
        changed = true;
      }
      // The garbage-collection finalizers follow the options on every DELETE, also of an object already being
      // deleted (store.go updateForGracefulDeletionAndFinalizers: none of these types deletes gracefully).
      if (applyGarbageCollectionFinalizers(nmeta, opts, this.def.strategy.defaultGarbageCollectionPolicy)) changed = true;
      if (this.hasPendingFinalizers(next)) {
        // markAsDeleting: the first deletionTimestamp stays; the grace period is always 0.
        if (!nmeta.deletionTimestamp) {
          nmeta.deletionTimestamp = nowRFC3339();
          // markAsDeleting bumps any generation a kind has (a CSIDriver's, set by its updates, too).
          if (this.def.strategy.tracksGeneration) nmeta.generation = (nmeta.generation ?? 1) + 1;
          else if ((nmeta.generation ?? 0) > 0) nmeta.generation = nmeta.generation! + 1;
          this.def.strategy.onDeletionStarted?.(next);
          changed = true;
        }
        if (nmeta.deletionGracePeriodSeconds !== 0) {
          nmeta.deletionGracePeriodSeconds = 0;
          changed = true;
        }
        if (!changed) return { object: current, deleted: false };
        const marked = await this.storeDeletionMark(ctx, key, name, next, kv, opts);
        if (marked === RETRY) continue;
        return marked;
      }
      if (opts.dryRun) return { object: current, deleted: true };
      try {
        const deleted = await this.storage.delete(key, kv.modRevision);
        return { object: await this.decodeFor(deleted), deleted: true };
      } catch (err) {
        if (isStorageError(err, 'Conflict')) continue;
        throw this.translate(err, name);
      }
    }
    throw errors.conflictModified(this.gr, name);
  }

  /**
   * Stores an object marked for deletion (deletionTimestamp, grace period, finalizers) over the revision it was read
   * at and answers it, still present; a dry run answers the mark unwritten. RETRY when the write lost a
   * compare-and-swap: the caller reads again and decides afresh.
   */
  private async storeDeletionMark(
    ctx: RequestContext,
    key: string,
    name: string,
    next: KubeObject,
    kv: KeyValue,
    opts: DeleteOptions,
  ): Promise<DeleteResult | typeof RETRY> {
    if (opts.dryRun) return { object: next, deleted: false };
    try {
      const updated = await this.storage.update(key, await this.encodeFor(ctx, next), kv.modRevision);
      return { object: await this.decodeFor(updated), deleted: false };
    } catch (err) {
      if (isStorageError(err, 'Conflict')) return RETRY;
      throw this.translate(err, name);
    }
  }

  /**
   * rest.BeforeDelete's graceful part, for a kind whose strategy deletes gracefully (CheckGracefulDelete): undefined
   * when the delete goes on as an immediate one (no grace period, or an earlier one already ran out); 'pending' when
   * the object is already being deleted at least as soon as asked (nothing changes); else the mark to store — the
   * first one, or an earlier one shortened.
   */
  private gracefulDeletion(current: KubeObject, opts: DeleteOptions): { deletionTimestamp: string; period: number; first: boolean } | 'pending' | undefined {
    const periodOf = this.def.strategy.gracefulDeletePeriod;
    if (!periodOf) return undefined;
    const asked = opts.gracePeriodSeconds !== undefined && opts.gracePeriodSeconds < 0 ? 1 : opts.gracePeriodSeconds;
    const period = periodOf(current, asked);
    const meta = current.metadata ?? {};
    if (meta.deletionTimestamp) {
      const existing = meta.deletionGracePeriodSeconds;
      // A mark without a grace period (or with 0) is a deletion already due: it goes on at once.
      if (existing === undefined || existing === 0) return undefined;
      if (period >= existing) return 'pending';
      if (period === 0) return undefined;
      const start = Date.parse(meta.deletionTimestamp) - existing * 1000;
      return { deletionTimestamp: formatRFC3339(start + period * 1000), period, first: false };
    }
    if (period === 0) return undefined;
    return { deletionTimestamp: formatRFC3339(Date.now() + period * 1000), period, first: true };
  }

  /** encode(), or encodeConverted() for a converting resource (the delete paths, where speed matters less). */
  private async encodeFor(ctx: RequestContext, obj: KubeObject): Promise<string> {
    return this.converter ? JSON.stringify(await this.encodeConverted(ctx.cluster, obj)) : this.encode(obj);
  }

  private async decodeFor(kv: KeyValue): Promise<KubeObject> {
    return this.converter ? (await this.decodeConverted([kv]))[0]! : this.decode(kv);
  }

  /**
   * deletecollection (store.go DeleteCollection): lists with the request's list options (a limit deletes only that
   * page) and deletes each listed object with the request's DeleteOptions as they are, preconditions included,
   * tolerating ones that vanish meanwhile. Answers the list as listed: its metadata and the objects before deletion.
   */
  async deleteCollection(ctx: RequestContext, namespace: string, listOpts: ListOptions, opts: DeleteOptions): Promise<ListResult> {
    const listed = await this.list(ctx, namespace, listOpts);
    const { items } = listed;
    // Deletes run a few at a time so their commits share fsyncs (group commit).
    let next = 0;
    let failure: unknown;
    const worker = async () => {
      while (failure === undefined) {
        const i = next++;
        if (i >= items.length) return;
        const item = items[i]!;
        try {
          await this.deleteObject(ctx, item.metadata?.namespace ?? '', item.metadata!.name!, opts);
        } catch (err) {
          if (err instanceof StatusError && err.code === 404) continue;
          failure ??= err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(deleteCollectionWorkers, items.length) }, worker));
    if (failure !== undefined) throw failure;
    return listed;
  }

  /**
   * The Status a DELETE returns when the object is gone (core types and CRs do not return the object). Upstream's
   * finalizeDelete leaves Status.code at zero, which `omitempty` drops, so the body carries no `code`.
   */
  deletedStatus(obj: KubeObject): Omit<Status, 'code'> {
    const { code: _code, ...status } = successStatus({ name: obj.metadata?.name, group: this.def.group, kind: this.def.resource, uid: obj.metadata?.uid });
    void _code;
    return status;
  }

  /**
   * Watch: initial ADDED events when asked for (no resourceVersion, "0", or sendInitialEvents), then changes after the
   * start revision, with selector transitions turned into ADDED/DELETED as the watch cache upstream does.
   */
  async watch(ctx: RequestContext, namespace: string, opts: WatchOptions, sink: WatchSink, wildcard = false): Promise<WatchHandle> {
    const prefix = this.prefix(wildcard ? '*' : ctx.cluster, namespace);
    const rv = opts.resourceVersion;
    const wantsInitial = opts.sendInitialEvents ?? (!rv || rv === '0');
    let startRevision: number;
    if (wantsInitial) {
      const listed = await this.list(ctx, namespace, { selection: opts.selection }, wildcard);
      startRevision = Number(listed.resourceVersion);
      for (const item of listed.items) if (!sink.event('ADDED', item)) return { stop() {} };
      // Upstream sends the end-of-initial-events bookmark only to watchers that take bookmarks (cacher's
      // isInitialEventsEndBookmarkRequired).
      if (opts.sendInitialEvents && opts.allowBookmarks) {
        sink.event('BOOKMARK', this.bookmark(startRevision, true));
      }
    } else if (!rv || rv === '0') {
      // sendInitialEvents=false without a resourceVersion: changes from now on (getStartWatchResourceVersion).
      startRevision = await this.watchCache.currentRevision();
    } else {
      startRevision = parseRequestResourceVersion(rv);
      await this.waitForRevision(startRevision);
    }

    let lastRevision = startRevision;
    let stopped = false;
    const filtering = !selectionEmpty(opts.selection);
    const extra = this.def.strategy.selectableFields;
    // A converting resource's events wait for their conversion: they queue, and the events that arrived together are
    // converted in one call, then delivered in order (lastRevision, which bookmarks report, follows delivery).
    const queued: StorageWatchEvent[] = [];
    let draining = false;
    const drain = async () => {
      draining = true;
      try {
        await null; // events the watch cache hands over in the same tick join this batch
        while (queued.length && !stopped) {
          const batch = queued.splice(0);
          const objects = await this.convertWatchEvents(batch, filtering);
          for (let i = 0; i < batch.length && !stopped; i++) {
            const ev = batch[i]!;
            lastRevision = ev.revision;
            const [obj, prev] = objects[i]!;
            const out = classifyWatchEvent(ev, wildcard ? withClusterAnnotation(obj, ev.key) : obj, prev && wildcard ? withClusterAnnotation(prev, ev.key) : prev, opts.selection, filtering, extra);
            if (out && !sink.event(out.type, out.object)) stopWatch();
          }
        }
      } catch (err) {
        if (!stopped) {
          // As the etcd watcher's transformErrorToEvent: an ERROR event with the InternalError, and the watch ends.
          stopWatch();
          sink.error(errors.internal(err instanceof Error ? err.message : String(err)));
        }
      } finally {
        draining = false;
      }
    };
    const handle = this.watchCache.watch(prefix, startRevision, {
      onEvent: (ev: StorageWatchEvent) => {
        if (stopped) return;
        if (this.converter) {
          queued.push(ev);
          if (!draining) void drain();
          return;
        }
        lastRevision = ev.revision;
        const out = this.toWatchEvent(ev, opts.selection, filtering, wildcard, extra);
        if (!out) return;
        if (!sink.event(out.type, out.object)) stopWatch();
      },
      onError: (err: Error) => {
        if (stopped) return;
        stopped = true;
        clearInterval(timer);
        if (err instanceof StorageError && err.code === 'Compacted') {
          sink.error(errors.expired(`too old resource version: ${startRevision} (${err.revision ?? ''})`));
        } else {
          sink.error(errors.internal(err.message));
        }
      },
      onProgress: (revision: number) => {
        if (queued.length || draining) return; // not past events still being converted
        lastRevision = Math.max(lastRevision, revision);
      },
    });
    // Only watches that asked for bookmarks carry a timer: a server with thousands of plain watches need not wake for them.
    const timer = opts.allowBookmarks
      ? setInterval(() => {
          if (!stopped) sink.event('BOOKMARK', this.bookmark(lastRevision, false));
        }, bookmarkIntervalMs)
      : undefined;
    timer?.unref();
    const stopWatch = () => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      handle.stop();
      this.watchEnds.delete(end);
      if (inCluster) {
        inCluster.delete(end);
        if (inCluster.size === 0 && this.clusterWatches!.get(ctx.cluster) === inCluster) this.clusterWatches!.delete(ctx.cluster);
      }
    };
    const end = () => {
      if (stopped) return;
      stopWatch();
      if (sink.end) sink.end();
      else sink.error(errors.gone(`the server no longer serves ${this.def.resource}.${this.def.group || 'core'}/${this.def.version}`));
    };
    let inCluster: Set<() => void> | undefined;
    if (!stopped) {
      this.watchEnds.add(end);
      if (!wildcard && this.clusterWatches) {
        inCluster = this.clusterWatches.get(ctx.cluster);
        if (!inCluster) this.clusterWatches.set(ctx.cluster, (inCluster = new Set()));
        inCluster.add(end);
      }
    }
    return { stop: stopWatch };
  }

  /** This store continues `previous` (the same resource, a newer definition): their open watches are tracked together. */
  shareWatches(previous: GenericStore): void {
    for (const e of this.watchEnds) previous.watchEnds.add(e);
    this.watchEnds = previous.watchEnds;
  }

  /** The resource is no longer served: every open watch on it (and on the stores it continues) ends. */
  endWatches(): void {
    for (const end of [...this.watchEnds]) end();
  }

  /**
   * Ends this resource's open watches in one logical cluster (the resource stopped being served there while other
   * clusters still serve it), as endWatches() does everywhere.
   */
  endWatchesIn(cluster: string): void {
    const inCluster = this.clusterWatches?.get(cluster);
    if (!inCluster) return;
    for (const end of [...inCluster]) if (this.watchEnds.has(end)) end();
  }

  /**
   * A BOOKMARK's object: an empty object of the kind with the resourceVersion. A built-in (typed) kind's also shows its
   * zero creationTimestamp as null, and the end of the initial events carries the list's blueprint (the empty list
   * of the kind as JSON, base64) as kube-apiserver 1.32's cacher writes it.
   */
  private bookmark(revision: number, initialEventsEnd: boolean): KubeObject {
    const typed = this.def.strategicMergePatch;
    const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
    if (typed) metadata.creationTimestamp = null;
    if (initialEventsEnd) {
      metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
      if (typed) {
        const blueprint = `${JSON.stringify({ kind: this.def.listKind, apiVersion: this.apiVersion, metadata: {}, items: null })}\n`;
        (metadata.annotations as Record<string, string>)['kubernetes.io/initial-events-list-blueprint'] = Buffer.from(blueprint).toString('base64');
      }
    }
    return { kind: this.def.kind, apiVersion: this.apiVersion, metadata };
  }

  /** The event's object, decoded once for all watchers that receive this same event object (see lastWatchDecode). */
  private decodeWatchEvent(ev: StorageWatchEvent, wildcard: boolean): DecodedWatchEvent {
    const slot = wildcard ? 1 : 0;
    const last = this.lastWatchDecode[slot];
    if (last && last.event === ev) return last;
    const decoded: DecodedWatchEvent = { event: ev, object: this.decode({ key: ev.key, value: ev.value, modRevision: ev.revision }, wildcard) };
    this.lastWatchDecode[slot] = decoded;
    return decoded;
  }

  private toWatchEvent(
    ev: StorageWatchEvent,
    selection: Selection,
    filtering: boolean,
    wildcard: boolean,
    extra?: (o: KubeObject) => Record<string, string>,
  ): { type: WatchEventType; object: KubeObject } | undefined {
    const decoded = this.decodeWatchEvent(ev, wildcard);
    const obj = decoded.object;
    if (ev.type === 'delete') {
      if (filtering && !selectionMatches(selection, obj, extra)) return undefined;
      return { type: 'DELETED', object: obj };
    }
    if (!filtering) return { type: ev.type === 'create' ? 'ADDED' : 'MODIFIED', object: obj };
    const nowMatches = selectionMatches(selection, obj, extra);
    let wasMatching = false;
    if (ev.type === 'update' && ev.prevValue !== undefined) {
      const prev = (decoded.previous ??= this.decode({ key: ev.key, value: ev.prevValue, modRevision: ev.revision }, wildcard));
      wasMatching = selectionMatches(selection, prev, extra);
    }
    if (nowMatches && wasMatching) return { type: 'MODIFIED', object: obj };
    if (nowMatches) return { type: 'ADDED', object: obj };
    if (wasMatching) return { type: 'DELETED', object: obj };
    return undefined;
  }

  /**
   * The objects of a batch of watch events of a converting resource (and their previous objects when a filtering
   * watcher needs them), converted in one call for what no other watcher converted yet. Conversions are shared by every
   * watcher of the resource (the watch cache hands them the same event objects); like decoded watch objects, the
   * results are shared and never mutated.
   */
  private async convertWatchEvents(batch: StorageWatchEvent[], withPrevious: boolean): Promise<[KubeObject, KubeObject | undefined][]> {
    const missing: { value: string; key: string; modRevision: number }[] = [];
    const assign: { ev: StorageWatchEvent; previous: boolean }[] = [];
    for (const ev of batch) {
      if (!this.convertedEvents.has(ev)) {
        missing.push({ key: ev.key, value: ev.value, modRevision: ev.revision });
        assign.push({ ev, previous: false });
      }
      if (withPrevious && ev.type === 'update' && ev.prevValue !== undefined && !this.convertedPrevious.has(ev)) {
        missing.push({ key: ev.key, value: ev.prevValue, modRevision: ev.revision });
        assign.push({ ev, previous: true });
      }
    }
    if (missing.length) {
      const all = this.convertStored(missing, this.apiVersion);
      assign.forEach(({ ev, previous }, i) => {
        const one = all.then((objs) => this.finish(objs[i]!, missing[i]!, false));
        const cache = previous ? this.convertedPrevious : this.convertedEvents;
        cache.set(ev, one);
        // Awaited below or by another watcher, so never an unhandled rejection; a failure is not kept, so a later
        // watch replaying the event from the watch cache calls the webhook again.
        one.catch(() => {
          if (cache.get(ev) === one) cache.delete(ev);
        });
      });
    }
    return Promise.all(
      batch.map(async (ev): Promise<[KubeObject, KubeObject | undefined]> => {
        const prev = withPrevious && ev.type === 'update' && ev.prevValue !== undefined ? await this.convertedPrevious.get(ev) : undefined;
        return [await this.convertedEvents.get(ev)!, prev];
      }),
    );
  }

  /**
   * Which field-selector labels this resource accepts and which upstream error text the others get: the built-in
   * table for built-in kinds; for resources with their own selectable fields that the table does not know (custom
   * resources), exactly the fields the strategy computes.
   */
  fieldLabelSupport(): FieldLabelSupport {
    const builtin = builtinFieldLabels(this.def.group, this.def.kind);
    if (builtin !== DEFAULT_FIELD_LABELS || !this.def.strategy.selectableFields) return builtin;
    return { labels: Object.fromEntries(this.supportedFields().map((f) => [f, f])), style: 'registered' };
  }

  /** Fields a field selector may use on this resource, for validating a request's selector. */
  supportedFields(sample?: KubeObject): string[] {
    return Object.keys(objectFields(sample ?? { metadata: {} }, this.def.strategy.selectableFields));
  }
}

/** The watch event a storage event is for one watcher, its selection applied (selector transitions as ADDED/DELETED). */
function classifyWatchEvent(
  ev: StorageWatchEvent,
  obj: KubeObject,
  prev: KubeObject | undefined,
  selection: Selection,
  filtering: boolean,
  extra?: (o: KubeObject) => Record<string, string>,
): { type: WatchEventType; object: KubeObject } | undefined {
  if (ev.type === 'delete') {
    if (filtering && !selectionMatches(selection, obj, extra)) return undefined;
    return { type: 'DELETED', object: obj };
  }
  if (!filtering) return { type: ev.type === 'create' ? 'ADDED' : 'MODIFIED', object: obj };
  const nowMatches = selectionMatches(selection, obj, extra);
  const wasMatching = prev !== undefined && selectionMatches(selection, prev, extra);
  if (nowMatches && wasMatching) return { type: 'MODIFIED', object: obj };
  if (nowMatches) return { type: 'ADDED', object: obj };
  if (wasMatching) return { type: 'DELETED', object: obj };
  return undefined;
}

/** A shared watch object with the wildcard read's `kcp.io/cluster` annotation, copied (shared objects are not mutated). */
function withClusterAnnotation(obj: KubeObject, key: string): KubeObject {
  const meta = obj.metadata ?? {};
  return { ...obj, metadata: { ...meta, annotations: { ...(meta.annotations ?? {}), 'kcp.io/cluster': clusterOfKey(key) } } };
}

/** A storage watch event with its decoded object (and, once a filtering watcher needed it, its previous object). */
interface DecodedWatchEvent {
  event: StorageWatchEvent;
  object: KubeObject;
  previous?: KubeObject;
}

/**
 * A request's resourceVersion parameter as upstream's storage reads it (APIObjectVersioner.ParseResourceVersion):
 * text that is not a uint64 is its storage InvalidError, which reaches the client as a plain 500 (no reason) —
 * or, where the etcd store parses it for a read at an exact revision (`resourceVersionMatch=Exact`, a paged list's
 * legacy exact read), the 400 `invalid resource version: ...` it wraps it in.
 */
function parseRequestResourceVersion(rv: string, exactRead = false): number {
  if (!/^\d+$/.test(rv) || !Number.isSafeInteger(Number(rv))) {
    const why = /^\d+$/.test(rv) ? 'value out of range' : 'invalid syntax';
    const message = `resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`;
    // Deliberately: a decimal beyond 2^53 (and below 2^64), which Go reads, is refused here as out of range.
    throw exactRead ? errors.badRequest(`invalid resource version: ${message}`) : errors.unknown(message);
  }
  return Number(rv);
}

export function parseResourceVersion(rv: string, field: string): number {
  if (!/^\d+$/.test(rv)) {
    throw errors.badRequest(`invalid ${field}: ${JSON.stringify(rv)}: must be a non-negative integer`);
  }
  const n = Number(rv);
  if (!Number.isSafeInteger(n)) throw errors.badRequest(`invalid ${field}: ${JSON.stringify(rv)}`);
  return n;
}

/** What one guaranteedUpdate attempt came to: retry after a lost compare-and-swap, or the object and whether it was written. */
const RETRY: unique symbol = Symbol('retry');
type UpdateAttempt = typeof RETRY | { notWritten: boolean; object: KubeObject };

/** Where a list's first page comes from (GenericStore.planList). */
type ListPlan = { fromCache: false; revision: number } | { fromCache: true; consistent: boolean; minRevision: number };

/** upstream's 504 for a read "not older than" a revision the server has not reached within its 3 s. */
function tooLargeResourceVersion(n: number, current: number): StatusError {
  const e = errors.timeout(`Too large resource version: ${n}, current: ${current}`, 1);
  e.status.details!.causes = [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }];
  return e;
}

/** A page of a cached list with storage.list's contract: up to `limit` keys after `afterKey` (0: all of them). */
function cachedPage(cached: CachedList, limit: number, afterKey: string | undefined): StorageListResult {
  const all = cached.items;
  let start = 0;
  if (afterKey !== undefined) {
    let hi = all.length;
    while (start < hi) {
      const mid = (start + hi) >>> 1;
      if (compareUtf8(all[mid]!.key, afterKey) <= 0) start = mid + 1;
      else hi = mid;
    }
  }
  const end = limit > 0 ? Math.min(all.length, start + limit) : all.length;
  const more = end < all.length;
  return { items: all.slice(start, end), revision: cached.revision, more, ...(more ? { remaining: all.length - end } : {}) };
}

function listOptionsInvalid(errs: FieldError[]): StatusError {
  return errors.invalid('meta.k8s.io', 'ListOptions', '', errs);
}

/** A ConversionError as kube-apiserver answers a codec error (responsewriters.ErrorToAPIStatus: 500, no reason). */
function codecFailure(err: unknown): never {
  if (err instanceof ConversionError) throw errors.unknown(err.message);
  throw err;
}

/** The apiVersion a stored value was written in. */
function storedAPIVersion(value: string): unknown {
  return (JSON.parse(value) as KubeObject).apiVersion;
}

function isStatusError409Exists(err: unknown): boolean {
  return err instanceof StatusError && err.reason === 'AlreadyExists';
}

/** Sets `to`'s managedFields to `from`'s (none when `from` has none). */
function copyManagedFields(from: KubeObject, to: KubeObject): void {
  const managed = from.metadata?.managedFields;
  if (managed === undefined) delete metaOf(to).managedFields;
  else metaOf(to).managedFields = managed;
}

/** The object without its resourceVersion; managedFields stay, as a write that only changes them is a real one. */
function stripRV(obj: KubeObject): KubeObject {
  const { resourceVersion: _rv, ...meta } = obj.metadata ?? {};
  void _rv;
  return { ...obj, metadata: meta };
}

function withoutMetaAndStatus(obj: KubeObject): KubeObject {
  const { metadata: _m, status: _s, ...rest } = obj;
  void _m;
  void _s;
  return rest;
}

function withoutMeta(obj: KubeObject): KubeObject {
  const { metadata: _m, ...rest } = obj;
  void _m;
  return rest;
}
