/**
 * A CRD's conversion webhook (`spec.conversion.strategy: Webhook`), as apiextensions-apiserver's webhookConverter
 * calls it (pkg/apiserver/conversion/webhook_converter.go, converter.go): a ConversionReview v1 (v1beta1 when that
 * is the first version the CRD lists that we speak) with a fresh request uid, the desired apiVersion and the objects
 * not already in it; the response must be a ConversionReview of the version sent with that uid, a Success result and
 * as many converted objects, each of the desired apiVersion and the same kind, name, namespace and uid. Only labels
 * and annotations may change in metadata: everything else is restored from the original. The converted objects are
 * then pruned by the target version's structural schema (schemaCoercingConverter). Failures carry upstream's texts.
 *
 * Deliberate difference: a list page and watch events arriving together are converted in one review (upstream's
 * storage decodes, and so converts, one object at a time). A review of one object fails with exactly upstream's
 * texts; one of several uses those of a list conversion (`returned invalid converted object at index N: ...`),
 * naming the GroupVersionKind of its first object.
 */
import { randomUUID } from 'node:crypto';
import { type KubeObject, deepCopy, isPlainObject } from '../../apimachinery/object.js';
import { FieldPath, errorString } from '../../apimachinery/field-errors.js';
import { validateAnnotations, validateLabels } from '../../apimachinery/validation/object-meta.js';
import { ConversionError, type ObjectConverter } from '../../registry/rest.js';
import { WebhookCallError, type WebhookClient, type WebhookClientConfig } from '../../apiserver/webhook/client.js';
import type { CustomResourceDefinition } from '../crd/types.js';
import type { SchemaCache } from './custom-resource.js';

/** The timeout of every conversion webhook call (webhook.defaultRequestTimeout: the CRD cannot set one). */
export const conversionWebhookTimeoutMs = 30_000;

const reviewGroup = 'apiextensions.k8s.io';

/**
 * One per CRD (by uid), shared by the definitions of all its versions and generations, and updated in place when the
 * CRD changes: a watch opened before a change (its store continues under the new definitions) converts with the
 * current webhook configuration, and with plain apiVersion changes once the strategy is None again.
 */
export class WebhookConverter implements ObjectConverter {
  storageAPIVersion = '';
  private crd!: CustomResourceDefinition;
  private kind = '';
  private validVersions = new Set<string>();
  private clientConfig: WebhookClientConfig = {};
  private reviewVersions: string[] = [];

  constructor(
    crd: CustomResourceDefinition,
    private readonly client: WebhookClient,
    /** The compiled schemas of the CRD's versions (pruning of converted objects). */
    private readonly schemas: SchemaCache,
  ) {
    this.update(crd);
  }

  /** Takes the CRD's current conversion settings. */
  update(crd: CustomResourceDefinition): void {
    this.crd = crd;
    this.kind = crd.status?.acceptedNames?.kind ?? crd.spec.names.kind ?? '';
    this.validVersions = new Set(crd.spec.versions.map((v) => `${crd.spec.group}/${v.name}`));
    const storage = crd.spec.versions.find((v) => v.storage)?.name ?? crd.spec.versions[0]?.name ?? '';
    this.storageAPIVersion = `${crd.spec.group}/${storage}`;
    this.clientConfig = (crd.spec.conversion?.webhook?.clientConfig ?? {}) as WebhookClientConfig;
    this.reviewVersions = crd.spec.conversion?.webhook?.conversionReviewVersions ?? [];
  }

  private schemaOf(version: string) {
    const v = this.crd.spec.versions.find((x) => x.name === version);
    return v ? this.schemas.get(this.crd, v) : undefined;
  }

  async convert(cluster: string, objects: KubeObject[], apiVersion: string): Promise<KubeObject[]> {
    const indexes: number[] = [];
    objects.forEach((o, i) => {
      if (o.apiVersion !== apiVersion) indexes.push(i);
    });
    if (indexes.length === 0) return objects;
    if (this.crd.spec.conversion?.strategy !== 'Webhook') {
      // The strategy is None now (nopConverter): only apiVersion changes.
      return objects.map((o) => (o.apiVersion === apiVersion ? o : { ...o, apiVersion }));
    }
    const first = objects[indexes[0]!]!;
    // crConverter.ConvertToVersion's checks, before any call.
    if (!this.validVersions.has(apiVersion)) throw new ConversionError(`request to convert CR to an invalid group/version: ${apiVersion}`);
    for (const i of indexes) {
      const from = String(objects[i]!.apiVersion ?? '');
      if (!this.validVersions.has(from)) {
        throw new ConversionError(
          indexes.length === 1 ? `request to convert CR from an invalid group/version: ${from}` : `request to convert CR list failed, list index ${i} has invalid group/version: ${from}`,
        );
      }
    }
    const gvk = `${String(first.apiVersion)}, Kind=${String(first.kind ?? this.kind)}`;
    const single = indexes.length === 1;
    const fail = (msg: string) => new ConversionError(msg);

    const reviewVersion = this.reviewVersions.find((v) => v === 'v1' || v === 'v1beta1');
    if (!reviewVersion) throw fail('no supported conversion review versions');
    const uid = randomUUID();
    const toConvert = indexes.map((i) => objects[i]!);
    const review = {
      kind: 'ConversionReview',
      apiVersion: `${reviewGroup}/${reviewVersion}`,
      request: { uid, desiredAPIVersion: apiVersion, objects: toConvert },
      response: { uid: '', convertedObjects: null, result: { metadata: {} } },
    };
    let answer: unknown;
    try {
      answer = await this.client.post(cluster, this.clientConfig, review, conversionWebhookTimeoutMs);
    } catch (err) {
      const msg = err instanceof WebhookCallError || err instanceof Error ? err.message : String(err);
      throw fail(`conversion webhook for ${gvk} failed: ${msg}`);
    }
    let converted: unknown[];
    try {
      converted = convertedObjectsOf(answer, reviewVersion, uid);
    } catch (err) {
      throw fail(`conversion webhook for ${gvk} failed: ${(err as Error).message}`);
    }
    if (converted.length !== toConvert.length) throw fail(`conversion webhook for ${gvk} returned ${converted.length} objects, expected ${toConvert.length}`);

    const out = objects.slice();
    const targetVersion = apiVersion.slice(apiVersion.indexOf('/') + 1);
    const schema = this.schemaOf(targetVersion);
    indexes.forEach((objIndex, j) => {
      const original = objects[objIndex]!;
      const at = single ? 'returned invalid object at index 0' : `returned invalid converted object at index ${j}`;
      const c = converted[j];
      if (!isPlainObject(c)) {
        throw fail(single ? `conversion webhook for ${gvk} failed, unexpected type ${goTypeOf(c)} at index 0` : `conversion webhook for ${gvk} ${at}: invalid type, expected=Unstructured, got=${goTypeOf(c)}`);
      }
      const got = typeof c.apiVersion === 'string' ? c.apiVersion : '';
      if (got !== apiVersion) throw fail(`conversion webhook for ${gvk} ${at}: invalid groupVersion (expected ${apiVersion}, received ${got})`);
      const kind = typeof c.kind === 'string' ? c.kind : '';
      if (kind !== original.kind) throw fail(`conversion webhook for ${gvk} ${at}: invalid kind (expected ${String(original.kind)}, received ${kind})`);
      const obj = c as KubeObject;
      const invalidObject = validateConvertedObject(original, obj);
      if (invalidObject) throw fail(single ? `conversion webhook for ${gvk} returned invalid object: ${invalidObject}` : `conversion webhook for ${gvk} ${at}: ${invalidObject}`);
      const badMeta = restoreObjectMeta(original, obj);
      if (badMeta) {
        throw fail(single ? `conversion webhook for ${gvk} returned invalid metadata: ${badMeta}` : `conversion webhook for ${gvk} returned invalid metadata in object at index ${j}: ${badMeta}`);
      }
      schema?.prune(obj);
      out[objIndex] = obj;
    });
    return out;
  }
}

/** getConvertedObjectsFromResponse: the response's checks, in upstream's order and words. */
function convertedObjectsOf(answer: unknown, reviewVersion: string, uid: string): unknown[] {
  const review = isPlainObject(answer) ? answer : {};
  const response = isPlainObject(review.response) ? review.response : undefined;
  if (reviewVersion === 'v1') {
    const gvk = `${typeof review.apiVersion === 'string' ? review.apiVersion : ''}`;
    const kind = typeof review.kind === 'string' ? review.kind : '';
    if (gvk !== `${reviewGroup}/v1` || kind !== 'ConversionReview') {
      throw new Error(`expected webhook response of ${reviewGroup}/v1, Kind=ConversionReview, got ${gvkString(gvk, kind)}`);
    }
    if (!response) throw new Error('no response provided');
    const got = typeof response.uid === 'string' ? response.uid : '';
    if (got !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(got)}`);
  } else if (!response) throw new Error('no response provided');
  // v1beta1 responses are not checked for their uid (upstream accepts them as they come).
  const result = isPlainObject(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    if (typeof result.message === 'string' && result.message.length > 0) throw new Error(result.message);
    throw new Error(`response.result.status was '${typeof result.status === 'string' ? result.status : ''}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

/** schema.GroupVersionKind.String() of a response's apiVersion and kind (`/, Kind=` when both are missing). */
function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash >= 0 ? apiVersion.slice(0, slash) : '';
  const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
  return `${group}/${version}, Kind=${kind}`;
}

/** validateConvertedObject: kind, name, namespace and uid must stay. */
function validateConvertedObject(original: KubeObject, converted: KubeObject): string | undefined {
  const m = (o: KubeObject, f: string) => {
    const v = isPlainObject(o.metadata) ? (o.metadata as Record<string, unknown>)[f] : undefined;
    return typeof v === 'string' ? v : '';
  };
  if (original.kind !== converted.kind) return `must have the same kind: ${String(original.kind ?? '')} != ${String(converted.kind ?? '')}`;
  for (const [f, label] of [['name', 'name'], ['namespace', 'namespace'], ['uid', 'UID']] as const) {
    if (m(original, f) !== m(converted, f)) return `must have the same ${label}: ${m(original, f)} != ${m(converted, f)}`;
  }
  return undefined;
}

/**
 * restoreObjectMeta: the original metadata, with the converted object's labels and annotations (validated when they
 * changed). Returns the error text, or undefined once `converted.metadata` is set.
 */
function restoreObjectMeta(original: KubeObject, converted: KubeObject): string | undefined {
  if (!('metadata' in converted) || converted.metadata === undefined) return 'missing metadata in converted object';
  const response = converted.metadata as unknown;
  if (!isPlainObject(response)) return `invalid metadata of type ${goTypeOf(response)} in converted object`;
  const restored = (isPlainObject(original.metadata) ? deepCopy(original.metadata) : {}) as Record<string, unknown>;
  for (const fld of ['labels', 'annotations'] as const) {
    const value = response[fld];
    if (value === undefined || value === null) {
      delete restored[fld];
      continue;
    }
    if (!isPlainObject(value)) return `invalid metadata.${fld} of type ${goTypeOf(value)} in converted object`;
    const before = restored[fld];
    if (before !== undefined && before !== null && !isPlainObject(before)) return `invalid metadata.${fld} of type ${goTypeOf(before)} in original object`;
    const orig = (before ?? {}) as Record<string, unknown>;
    let changed = Object.keys(orig).length !== Object.keys(value).length;
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string') return `metadata.${fld}[${k}] must be a string, but is ${goTypeOf(v)} in converted object`;
      if (orig[k] !== v) changed = true;
    }
    if (changed) {
      const strings = value as Record<string, string>;
      // Upstream validates annotations at the path `metadata.annotation` (sic).
      const errs = fld === 'labels' ? validateLabels(strings, FieldPath.root('metadata').child('labels')) : validateAnnotations(strings, FieldPath.root('metadata').child('annotation'));
      if (errs.length) {
        const distinct = [...new Set(errs.map(errorString))];
        return distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`;
      }
    }
    restored[fld] = value;
  }
  converted.metadata = restored as KubeObject['metadata'];
  return undefined;
}

/** The Go type encoding/json decodes a value into, as %T prints it. */
function goTypeOf(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'int64';
    case 'boolean':
      return 'bool';
    default:
      return 'map[string]interface {}';
  }
}
