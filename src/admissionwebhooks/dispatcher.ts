/**
 * The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins (k8s.io/apiserver pkg/admission/plugin/webhook:
 * generic/webhook.go ShouldCallHook, mutating/dispatcher.go, validating/dispatcher.go, request/admissionreview.go,
 * errors/statuserror.go), with upstream's matching, AdmissionReview v1 (v1beta1 for webhooks accepting only that),
 * response checks and error texts.
 *
 * Which webhooks apply is kcp's rule (pkg/admission/mutatingwebhook, validatingwebhook): a resource bound from an
 * APIExport is reviewed by the webhooks of the export's workspace only, any other resource by those of the request's
 * workspace; namespace selectors read the request's workspace either way. The workspace is named as kcp names it: the
 * reviewed object and old object carry the annotation `kcp.io/cluster: <the request's logical cluster>` (removed
 * again from whatever a mutating webhook hands back).
 *
 * CONNECT requests (connect subresources: pods/exec, attach, portforward) are reviewed with the options object as
 * `object` (kind PodExecOptions, ...), as ConnectResource hands them to admission; a mutating webhook may change it.
 *
 * Deliberate differences: validating webhooks run in parallel and, when several refuse, the first in calling order
 * is reported (upstream reports whichever answers first); a bound resource's webhook named by `service` is resolved
 * in the export's workspace, where its configuration lives (kcp leaves service resolution to cluster DNS).
 */
import { randomUUID } from 'node:crypto';
import { groupVersionString } from '../apimachinery/api-resource.js';
import { type KubeObject, deepCopy, isPlainObject, jsonEqual } from '../apimachinery/object.js';
import { type Status, StatusError, errors } from '../apimachinery/status.js';
import { logger } from '../logging/logger.js';
import { applyJsonPatch } from '../patch/json-patch.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { ResourceDefinition } from '../registry/rest.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../apiserver/admission/admission.js';
import { WebhookCallError, type WebhookClient, type WebhookClientConfig } from '../apiserver/webhook/client.js';
import type { WebhookConfigurations, WebhookEntry } from './configurations.js';
import { evaluateMatchConditions } from './match-conditions.js';
import { configurationCluster, exempt, namespaceSelectorMatches, objectSelectorMatches, ruleMatches, strings } from './matching.js';
import { convertBetween, convertible, equivalentMatch } from './equivalents.js';

const CLUSTER_ANNOTATION = 'kcp.io/cluster';
type Hook = Record<string, unknown>;

/** Why a webhook could not be called or answered badly (webhookutil.ErrCallingWebhook): failurePolicy decides. */
class CallingWebhookError extends Error {
  constructor(
    readonly webhookName: string,
    readonly reason: string,
  ) {
    super(`failed calling webhook "${webhookName}": ${reason}`);
  }
}

/** What a webhook is invoked as: the request's own resource, or an equivalent version of it. */
interface Invocation {
  entry: WebhookEntry;
  def: ResourceDefinition;
}

export class WebhookDispatcher {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly client: WebhookClient,
  ) {}

  /** The mutating plugin: webhooks in order, then a second round for IfNeeded webhooks when a later one changed the object. */
  mutating(configs: WebhookConfigurations): AdmissionPlugin {
    return {
      name: 'MutatingAdmissionWebhook',
      handlesConnect: true,
      admit: async (a) => {
        if (exempt(a.def)) return;
        const hooks = configs.webhooks(configurationCluster(a));
        if (hooks.length === 0) return;
        const previouslyInvoked = new Set<string>();
        const reinvoke = new Set<string>();
        for (const round of [0, 1]) {
          for (const entry of hooks) {
            if (round === 1 && !reinvoke.has(entry.uid)) continue;
            const inv = await this.shouldCall(entry, a);
            if (!inv) continue;
            const changed = await this.callFailurePolicy(entry, () => this.callMutating(inv, a));
            if (round === 0) {
              if (changed) {
                for (const uid of previouslyInvoked) reinvoke.add(uid);
                previouslyInvoked.clear();
              }
              if (entry.hook.reinvocationPolicy === 'IfNeeded') previouslyInvoked.add(entry.uid);
            }
          }
          if (reinvoke.size === 0) break;
        }
      },
    };
  }

  /** The validating plugin: every matching webhook at once; the first refusal in calling order wins. */
  validating(configs: WebhookConfigurations): AdmissionPlugin {
    return {
      name: 'ValidatingAdmissionWebhook',
      handlesConnect: true,
      validate: async (a) => {
        if (exempt(a.def)) return;
        const hooks = configs.webhooks(configurationCluster(a));
        if (hooks.length === 0) return;
        const results = await Promise.allSettled(
          hooks.map(async (entry) => {
            const inv = await this.shouldCall(entry, a);
            if (inv) await this.callFailurePolicy(entry, () => this.callValidating(inv, a));
          }),
        );
        for (const r of results) if (r.status === 'rejected') throw r.reason;
      },
    };
  }

  /** ShouldCallHook: rules (and equivalents), then namespace and object selectors, then matchConditions. */
  private async shouldCall(entry: WebhookEntry, a: AdmissionAttributes): Promise<Invocation | undefined> {
    const hook = entry.hook;
    const rules = Array.isArray(hook.rules) ? (hook.rules as Hook[]) : [];
    let def: ResourceDefinition | undefined = rules.some((r) => ruleMatches(r, a, a.def)) ? a.def : undefined;
    if (!def && (hook.matchPolicy ?? 'Equivalent') === 'Equivalent') def = equivalentMatch(this.registry, rules, a, (r, d) => ruleMatches(r, a, d));
    if (!def) return undefined;
    if (!this.objectSelectorMatches(hook, a)) return undefined;
    if (!(await this.namespaceSelectorMatches(hook, a))) return undefined;
    const conditions = Array.isArray(hook.matchConditions) ? (hook.matchConditions as { name: string; expression: string }[]) : [];
    if (conditions.length > 0) {
      // Converted as the review will be, except through a CRD's conversion webhook (not called just to match).
      const asMatched = (o: KubeObject | undefined) => (o && def !== a.def && convertible(a) && !def.storage?.converter ? convertBetween(o, a.def, def) : o);
      const result = evaluateMatchConditions(conditions, {
        object: this.reviewed(asMatched(a.object), a, def),
        oldObject: this.reviewed(asMatched(a.oldObject), a, def),
        request: this.request(a, { entry, def }, '').request,
      });
      if (result.error !== undefined) {
        if (hook.failurePolicy === 'Ignore') return undefined;
        logger.warn('failed evaluating match conditions, failing closed', { webhook: hook.name, error: result.error });
        throw errors.forbidden({ group: a.def.group, resource: a.def.resource }, a.name, result.error);
      }
      if (!result.matches) return undefined;
    }
    return { entry, def };
  }

  private objectSelectorMatches(hook: Hook, a: AdmissionAttributes): boolean {
    return objectSelectorMatches(hook.objectSelector, a);
  }

  private namespaceSelectorMatches(hook: Hook, a: AdmissionAttributes): Promise<boolean> {
    return namespaceSelectorMatches(this.registry, hook.namespaceSelector, a);
  }

  /**
   * The attributes with the objects in the invoked version or group (upstream's versionedAttributes): through a
   * CRD's conversion webhook, whose failure is an InternalError as upstream's, or the shared storage's conversions.
   */
  private async asInvoked(a: AdmissionAttributes, def: ResourceDefinition): Promise<AdmissionAttributes> {
    if (def === a.def || !convertible(a)) return a;
    const converter = def.storage?.converter;
    if (!converter) {
      const convert = (o: KubeObject | undefined) => (o ? convertBetween(o, a.def, def) : undefined);
      return { ...a, object: convert(a.object), oldObject: convert(a.oldObject) } as AdmissionAttributes;
    }
    if (a.subresource) return a;
    const apiVersion = groupVersionString(def.group, def.version);
    const convert = async (o: KubeObject | undefined) => (o ? (await converter.convert(a.ctx.cluster, [o], apiVersion))[0] : undefined);
    try {
      return { ...a, object: await convert(a.object), oldObject: await convert(a.oldObject) } as AdmissionAttributes;
    } catch (err) {
      throw errors.internal((err as Error).message);
    }
  }

  /** The object as a webhook sees it: in the invoked version, naming the workspace (not a CONNECT's options). */
  private reviewed(obj: KubeObject | undefined, a: AdmissionAttributes, def: ResourceDefinition): KubeObject | null {
    if (!obj) return null;
    const out = deepCopy(obj);
    if (a.kind) return out;
    if (def !== a.def && out.apiVersion) out.apiVersion = groupVersionString(def.group, def.version);
    const meta = (out.metadata ??= {});
    meta.annotations = { ...(meta.annotations ?? {}), [CLUSTER_ANNOTATION]: a.ctx.cluster };
    return out;
  }

  private request(a: AdmissionAttributes, inv: Invocation, uid: string): { request: Record<string, unknown>; objectSent: KubeObject | null } {
    const def = inv.def;
    const sub = a.subresource ? a.def.subresources.find((s) => s.name === a.subresource) : undefined;
    const kindOf = (d: ResourceDefinition) => a.kind ?? (sub?.kind && sub.kind !== a.def.kind ? { group: sub.group ?? d.group, version: sub.version ?? d.version, kind: sub.kind } : { group: d.group, version: d.version, kind: d.kind });
    const object = this.reviewed(a.object, a, def);
    const user = a.ctx.user;
    const request: Record<string, unknown> = {
      uid,
      kind: kindOf(def),
      resource: { group: def.group, version: def.version, resource: def.resource },
      ...(a.subresource ? { subResource: a.subresource } : {}),
      requestKind: kindOf(a.def),
      requestResource: { group: a.def.group, version: a.def.version, resource: a.def.resource },
      ...(a.subresource ? { requestSubResource: a.subresource } : {}),
      ...(a.name ? { name: a.name } : {}),
      ...(a.namespace ? { namespace: a.namespace } : {}),
      operation: a.operation,
      userInfo: { username: user.username, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups, ...(user.extra && Object.keys(user.extra).length ? { extra: user.extra } : {}) },
      object,
      oldObject: this.reviewed(a.oldObject, a, def),
      dryRun: a.dryRun === true,
      options: a.options ?? null,
    };
    return { request, objectSent: object };
  }

  /** Calls `call`; a CallingWebhookError is ignored under failurePolicy Ignore and an internal error otherwise. */
  private async callFailurePolicy<T>(entry: WebhookEntry, call: () => Promise<T>): Promise<T | false> {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof CallingWebhookError)) throw err;
      if (entry.hook.failurePolicy === 'Ignore') {
        logger.warn('failed calling webhook, failing open', { webhook: err.webhookName, error: err.message });
        return false;
      }
      logger.warn('failed calling webhook, failing closed', { webhook: err.webhookName, error: err.message });
      throw errors.internal(err.message);
    }
  }

  /** One call: dry-run check, the review, the response checks, warnings and audit annotations; returns the response. */
  private async call(inv: Invocation, a: AdmissionAttributes, mutating: boolean): Promise<{ response: Record<string, unknown>; objectSent: KubeObject | null }> {
    const hook = inv.entry.hook;
    const name = String(hook.name);
    if (a.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') {
      throw errors.badRequest(`admission webhook "${name}" does not support dry run`);
    }
    const versions = strings(hook.admissionReviewVersions);
    const version = versions.find((v) => v === 'v1' || v === 'v1beta1');
    if (!version) throw new CallingWebhookError(name, 'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)');
    const uid = randomUUID();
    const { request, objectSent } = this.request(await this.asInvoked(a, inv.def), inv, uid);
    const review = { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request };
    const timeoutMs = (typeof hook.timeoutSeconds === 'number' ? hook.timeoutSeconds : 10) * 1000;
    let answer: unknown;
    try {
      answer = await this.client.post(configurationCluster(a), (hook.clientConfig ?? {}) as WebhookClientConfig, review, timeoutMs);
    } catch (err) {
      if (err instanceof WebhookCallError) throw new CallingWebhookError(name, `failed to call webhook: ${err.message}`);
      throw err;
    }
    const invalid = (why: string) => new CallingWebhookError(name, `received invalid webhook response: ${why}`);
    const body = isPlainObject(answer) ? answer : {};
    const response = isPlainObject(body.response) ? (body.response as Record<string, unknown>) : undefined;
    if (!response) throw invalid('webhook response was absent');
    if (version === 'v1') {
      if (response.uid !== uid) throw invalid(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`);
      if (body.apiVersion !== 'admission.k8s.io/v1' || body.kind !== 'AdmissionReview') {
        const [g, v] = typeof body.apiVersion === 'string' && body.apiVersion.includes('/') ? body.apiVersion.split('/') : ['', String(body.apiVersion ?? '')];
        throw invalid(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${g}/${v}, Kind=${String(body.kind ?? '')}`);
      }
      if (mutating) {
        if (response.patch !== undefined && response.patchType === undefined) throw invalid('webhook returned response.patch but not response.patchType');
        if (response.patchType !== undefined && response.patch === undefined) throw invalid('webhook returned response.patchType but not response.patch');
        if (response.patchType !== undefined && response.patchType !== 'JSONPatch') throw invalid(`webhook returned invalid response.patchType of ${JSON.stringify(response.patchType)}`);
      } else {
        if (response.patch !== undefined) throw invalid('validating webhook may not return response.patch');
        if (response.patchType !== undefined) throw invalid('validating webhook may not return response.patchType');
      }
    }
    if (isPlainObject(response.auditAnnotations)) {
      a.auditAnnotations ??= {};
      for (const [k, v] of Object.entries(response.auditAnnotations)) a.auditAnnotations[`${name}/${k}`] = String(v);
      logger.debug('admission webhook audit annotations', { webhook: name, annotations: response.auditAnnotations });
    }
    if (Array.isArray(response.warnings)) a.warnings?.push(...response.warnings.map(String));
    if (response.allowed !== true) throw rejection(name, isPlainObject(response.status) ? (response.status as Partial<Status>) : undefined);
    return { response, objectSent };
  }

  private async callValidating(inv: Invocation, a: AdmissionAttributes): Promise<void> {
    await this.call(inv, a, false);
  }

  /** A mutating call; applies a JSON patch to the object and says whether it changed it. */
  private async callMutating(inv: Invocation, a: AdmissionAttributes): Promise<boolean> {
    const { response, objectSent } = await this.call(inv, a, true);
    const name = String(inv.entry.hook.name);
    if (typeof response.patch !== 'string' || response.patch === '') return false;
    let patch: unknown;
    try {
      patch = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'));
    } catch (e) {
      throw errors.internal((e as Error).message);
    }
    if (Array.isArray(patch) && patch.length === 0) return false;
    if (!objectSent || !a.object) throw errors.internal(`admission webhook "${name}" attempted to modify the object, which is not supported for this operation`);
    let patched: KubeObject;
    try {
      patched = applyJsonPatch(objectSent, patch) as KubeObject;
    } catch (e) {
      throw errors.internal(e instanceof StatusError ? e.message : (e as Error).message);
    }
    if (!isPlainObject(patched)) throw errors.internal('the patched object is not an object');
    if (a.kind) {
      // A CONNECT's options: what the handler connects with (connect-admission.ts encodes it into the query).
      patched.apiVersion = a.object.apiVersion;
      patched.kind = a.object.kind;
      const changed = !jsonEqual(patched, a.object);
      if (changed) a.object = patched;
      return changed;
    }
    // The workspace annotation was ours to add; what the object carried itself stays.
    const annotations = patched.metadata?.annotations;
    if (annotations) {
      const own = a.object.metadata?.annotations?.[CLUSTER_ANNOTATION];
      if (own === undefined) delete annotations[CLUSTER_ANNOTATION];
      else annotations[CLUSTER_ANNOTATION] = own;
      if (Object.keys(annotations).length === 0 && a.object.metadata?.annotations === undefined) delete patched.metadata!.annotations;
    }
    const converter = inv.def !== a.def && !a.subresource ? inv.def.storage?.converter : undefined;
    if (inv.def !== a.def && convertible(a) && !inv.def.storage?.converter) {
      // Back to the request's group and version through the shared storage form.
      patched = convertBetween(patched, inv.def, a.def);
    } else if (converter && a.object.apiVersion) {
      // Back to the request's version through the CRD's conversion webhook.
      try {
        patched = (await converter.convert(a.ctx.cluster, [patched], String(a.object.apiVersion)))[0]!;
      } catch (err) {
        throw errors.internal((err as Error).message);
      }
    }
    patched.apiVersion = a.object.apiVersion ?? patched.apiVersion;
    // Decoding the patched object into the type drops what it does not declare and applies a custom resource's defaults.
    a.def.codec.decodeFields(patched, a.subresource ?? '');
    const changed = !jsonEqual(patched, a.object);
    if (changed) a.object = patched;
    return changed;
  }
}

/** errors.ToStatusErr: the webhook's own code and reason when it gave them, its message after upstream's prefix. */
function rejection(webhookName: string, result: Partial<Status> | undefined): StatusError {
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code: typeof result?.code === 'number' && result.code >= 400 ? result.code : 400,
  };
  if (result?.reason) status.reason = result.reason;
  if (result?.details) status.details = result.details;
  status.message = result?.message ? `${deniedBy}: ${result.message}` : result?.reason ? `${deniedBy}: ${result.reason}` : `${deniedBy} without explanation`;
  return new StatusError(status);
}
