/**
 * The ValidatingAdmissionPolicy admission plugin (k8s.io/apiserver pkg/admission/plugin/policy/validating:
 * dispatcher.go, validator.go; policy/generic CollectParams; policy/matching): in the validating phase, just before
 * the validating webhooks, every policy of the workspace whose matchConstraints match the request is evaluated for
 * each of its bindings whose matchResources match, once per param (none, the named one, or each selected one), with
 * upstream's decisions and texts:
 *
 * - a false validation is a failure with its messageExpression's value, else its message, else `failed expression:
 *   <expression>`; Deny refuses with `ValidatingAdmissionPolicy '<policy>' with binding '<binding>' denied request:
 *   <message>`, code and reason from the validation's `reason` (Invalid, 422, by default); Warn adds the Warning
 *   `Validation failed for ValidatingAdmissionPolicy '<policy>' with binding '<binding>': <message>`; Audit adds the
 *   audit annotation `validation.policy.admission.k8s.io/validation_failure`;
 * - an expression that cannot be evaluated, a param that cannot be found under parameterNotFoundAction Deny or a
 *   paramKind that is not served refuses under failurePolicy Fail and is ignored under Ignore;
 * - auditAnnotations are recorded as `<policy>/<key>`.
 *
 * No audit backend is served: audit annotations are added to the request's attributes and logged (info,
 * `admission policy audit annotations`).
 *
 * Which policies apply is kcp's rule (pkg/admission/validatingadmissionpolicy): for a resource bound from an
 * APIExport, the policies and bindings of the export's workspace, whose params are read there too; for any other
 * resource, the request's workspace's. `namespaceObject` and namespace selectors read the request's workspace.
 * CONNECT requests are evaluated with the connect options as `object` (see the webhooks' dispatcher).
 *
 * Deliberate differences: params and the namespace are read from storage when a policy that needs them matches
 * (upstream reads informers).
 */
import { groupVersionString } from '../apimachinery/api-resource.js';
import { type KubeObject, isPlainObject } from '../apimachinery/object.js';
import { type Status, StatusError, errors } from '../apimachinery/status.js';
import { fromLabelSelector } from '../apimachinery/labels/selector.js';
import { logger } from '../logging/logger.js';
import { toCelValue } from '../apiextensions/schema/cel/values.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { ResourceDefinition } from '../registry/rest.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../apiserver/admission/admission.js';
import { configurationCluster, exempt, namespaceSelectorMatches, objectSelectorMatches, ruleMatches, strings } from '../admissionwebhooks/matching.js';
import { convertBetween, convertible, equivalentMatch } from '../admissionwebhooks/equivalents.js';
import type { Authorizer } from '../apiserver/authorization.js';
import { CelAuthorizer, type CompiledExpression, ResourceCheck, celTypeName, evaluationMessage } from './cel.js';
import type { CompiledPolicy, PolicyCache } from './policies.js';

type Json = Record<string, unknown>;
const systemUser = { username: 'system:apiserver', groups: ['system:masters'] };

/** A refusal (or a failure for Warn/Audit) with the binding it came from. */
interface Decision {
  policy: CompiledPolicy;
  binding?: KubeObject;
  message: string;
  reason?: string;
}

class ConfigError extends Error {}

function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden':
      return 403;
    case 'Unauthorized':
      return 401;
    case 'RequestEntityTooLarge':
      return 413;
    default:
      return 422;
  }
}

const maxMessageBytes = 5 * 1024;
const maxAuditAnnotationValueLength = 10 * 1024;

export class PolicyDispatcher {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly cache: PolicyCache,
    private readonly authorizer: Authorizer,
  ) {}

  plugin(): AdmissionPlugin {
    return { name: 'ValidatingAdmissionPolicy', handlesConnect: true, validate: (a) => this.validate(a) };
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    if (exempt(a.def)) return;
    const hooks = this.cache.hooks(configurationCluster(a));
    if (hooks.length === 0) return;
    const denied: Decision[] = [];
    const configError = (policy: CompiledPolicy, binding: KubeObject | undefined, err: unknown) => {
      if (policy.failurePolicy === 'Ignore') return;
      const msg = err instanceof Error ? err.message : String(err);
      const message = policy.failurePolicy === 'Fail' ? `failed to configure ${binding ? 'binding' : 'policy'}: ${msg}` : `unrecognized failure policy: '${policy.failurePolicy}'`;
      denied.push({ policy, ...(binding ? { binding } : {}), message });
    };
    const audit: Record<string, string> = {};
    const activations = new Map<ResourceDefinition, Record<string, unknown>>();
    let namespaceObject: KubeObject | null | undefined;
    for (const { policy, bindings } of hooks) {
      let def: ResourceDefinition | undefined;
      try {
        def = await this.matches(policy.matchConstraints, a, true);
      } catch (err) {
        configError(policy, undefined, err);
        continue;
      }
      if (!def) continue;
      const annotations = new Map<string, string[]>();
      for (const binding of bindings) {
        const spec = (isPlainObject(binding.spec) ? binding.spec : {}) as Json;
        try {
          if (isPlainObject(spec.matchResources) && !(await this.matches(spec.matchResources, a, false))) continue;
        } catch (err) {
          configError(policy, binding, err);
          continue;
        }
        let params: (KubeObject | null)[];
        try {
          params = await this.collectParams(policy, spec, a);
        } catch (err) {
          configError(policy, binding, err);
          continue;
        }
        if (namespaceObject === undefined) namespaceObject = await this.namespaceObject(a);
        const actions = strings(spec.validationActions);
        for (const param of params) {
          const result = this.evaluate(policy, this.activation(a, def, namespaceObject, activations), param);
          result.failures.forEach((f) => {
            for (const action of actions) {
              if (action === 'Deny') denied.push({ policy, binding, message: f.message, ...(f.reason ? { reason: f.reason } : {}) });
              else if (action === 'Warn') a.warnings?.push(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${binding.metadata?.name}': ${f.message}`);
              else if (action === 'Audit') {
                audit['validation.policy.admission.k8s.io/validation_failure'] = JSON.stringify([
                  { message: f.message, policy: policy.name, binding: binding.metadata?.name ?? '', expressionIndex: f.index, validationActions: actions },
                ]);
              }
            }
          });
          for (const e of result.errors) denied.push({ policy, binding, message: e });
          for (const [key, value] of result.annotations) {
            let l = annotations.get(key);
            if (!l) annotations.set(key, (l = []));
            if (!l.includes(value)) l.push(value);
          }
        }
      }
      for (const [key, values] of annotations) audit[`${policy.name}/${key}`] = values.join(', ');
    }
    if (Object.keys(audit).length > 0) {
      // No audit backend is served: the annotations go on the request's attributes and to the log.
      a.auditAnnotations = { ...(a.auditAnnotations ?? {}), ...audit };
      logger.info('admission policy audit annotations', { cluster: a.ctx.cluster, resource: a.def.resource, namespace: a.namespace, name: a.name, annotations: audit });
    }
    if (denied.length === 0) return;
    const d = denied[0]!;
    const message = d.binding
      ? `ValidatingAdmissionPolicy '${d.policy.name}' with binding '${d.binding.metadata?.name}' denied request: ${d.message}`
      : `ValidatingAdmissionPolicy '${d.policy.name}' denied request: ${d.message}`;
    const reason = d.reason || 'Invalid';
    const forbidden = errors.forbidden({ group: a.def.group, resource: a.def.resource }, a.name, message);
    const status: Status = { ...forbidden.status, reason: reason as Status['reason'], code: reasonToCode(reason) };
    status.details = { ...(status.details ?? {}), causes: [{ message }] };
    throw new StatusError(status);
  }

  /**
   * matching.Matcher: rules (minus excludeResourceRules, with resourceNames), then object and namespace selectors.
   * Returns the definition the request matched as (its own, or an equivalent custom resource version).
   */
  private async matches(m: Json | undefined, a: AdmissionAttributes, isPolicy: boolean): Promise<ResourceDefinition | undefined> {
    if (!m) {
      if (isPolicy) throw new ConfigError('policy contained no match constraints, a required field');
      return a.def;
    }
    const named = (rules: unknown, def: ResourceDefinition): boolean =>
      (Array.isArray(rules) ? (rules as Json[]) : []).some((r) => {
        if (!ruleMatches(r, a, def)) return false;
        const names = strings(r.resourceNames);
        return names.length === 0 || names.includes(a.name);
      });
    if (named(m.excludeResourceRules, a.def)) return undefined;
    let def: ResourceDefinition | undefined;
    const rules = Array.isArray(m.resourceRules) ? m.resourceRules : [];
    if (rules.length === 0) def = a.def;
    else if (named(rules, a.def)) def = a.def;
    else if ((m.matchPolicy ?? 'Equivalent') === 'Equivalent') def = equivalentMatch(this.registry, rules as Json[], a, (r, d) => named([r], d));
    if (!def) return undefined;
    if (!objectSelectorMatches(m.objectSelector, a)) return undefined;
    if (!(await namespaceSelectorMatches(this.registry, m.namespaceSelector, a))) return undefined;
    return def;
  }

  /** CollectParams: [null] without a paramKind or paramRef, else the named or selected params. */
  private async collectParams(policy: CompiledPolicy, spec: Json, a: AdmissionAttributes): Promise<(KubeObject | null)[]> {
    const pk = policy.paramKind;
    const ref = isPlainObject(spec.paramRef) ? spec.paramRef : undefined;
    if (!pk || !ref) return [null];
    // Params live with the policy: in the export's workspace for a bound resource (kcp's policy cluster).
    const cluster = configurationCluster(a);
    const def = this.registry.resources(cluster).find((d) => d.group === pk.group && d.version === pk.version && d.kind === pk.kind);
    const store = def && this.registry.lookup(cluster, def.group, def.version, def.resource);
    if (!def || !store) throw new ConfigError(`failed to find resource referenced by paramKind: '${pk.group ? `${pk.group}/` : ''}${pk.version}, Kind=${pk.kind}'`);
    let namespace = '';
    if (def.namespaced) {
      namespace = typeof ref.namespace === 'string' && ref.namespace ? ref.namespace : a.namespace;
      if (!namespace) throw new ConfigError('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
    } else if (typeof ref.namespace === 'string' && ref.namespace) throw new ConfigError('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
    const ctx = { cluster, user: systemUser };
    let params: KubeObject[] = [];
    if (typeof ref.name === 'string' && ref.name) {
      try {
        params = [await store.get(ctx, namespace, ref.name)];
      } catch (err) {
        if (!(err instanceof StatusError) || err.status.code !== 404) throw err;
      }
    } else if (isPlainObject(ref.selector)) {
      const selector = fromLabelSelector(ref.selector as never);
      const listed = await store.list(ctx, namespace, { selection: {} });
      params = listed.items.filter((o) => selector.matches(o.metadata?.labels ?? {}));
    } else throw new ConfigError('one of name or selector must be provided');
    if (params.length === 0 && ref.parameterNotFoundAction === 'Deny') throw new ConfigError('no params found for policy binding with `Deny` parameterNotFoundAction');
    return params.map((p) => ({ ...p, apiVersion: p.apiVersion ?? pk.apiVersion, kind: p.kind ?? pk.kind }));
  }

  /** CreateNamespaceObject: the request's namespace (none for cluster-scoped objects and Namespaces themselves). */
  private async namespaceObject(a: AdmissionAttributes): Promise<KubeObject | null> {
    const isNamespace = a.def.group === '' && a.def.resource === 'namespaces';
    if (!a.namespace || isNamespace) return null;
    const store = this.registry.lookup(a.ctx.cluster, '', 'v1', 'namespaces');
    let ns: KubeObject;
    try {
      ns = await store!.get({ cluster: a.ctx.cluster, user: systemUser }, '', a.namespace);
    } catch {
      return null;
    }
    const m = ns.metadata ?? {};
    const meta: Json = {};
    for (const k of ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'finalizers'] as const) {
      if ((m as Json)[k] !== undefined) meta[k] = (m as Json)[k];
    }
    return { apiVersion: 'v1', kind: 'Namespace', metadata: meta, ...(ns.spec ? { spec: ns.spec } : {}), ...(ns.status ? { status: ns.status } : {}) } as KubeObject;
  }

  /** The variables every policy sees for the request as `def` (converted to CEL once per request and version). */
  private activation(a: AdmissionAttributes, def: ResourceDefinition, ns: KubeObject | null, cache: Map<ResourceDefinition, Record<string, unknown>>): Record<string, unknown> {
    let base = cache.get(def);
    if (base) return base;
    // The object as the matched kind: converted through the shared storage (Events, HPAs, custom resource versions);
    // through a CRD's conversion webhook only apiVersion is rewritten (a policy evaluates synchronously).
    const asVersion = (o: KubeObject | undefined) => {
      if (!o || def === a.def || !convertible(a)) return o;
      return def.storage?.converter ? { ...o, apiVersion: groupVersionString(def.group, def.version) } : convertBetween(o, a.def, def);
    };
    base = {
      object: toCelValue(asVersion(a.operation === 'DELETE' ? undefined : a.object) ?? null, undefined),
      oldObject: toCelValue(asVersion(a.oldObject) ?? null, undefined),
      request: toCelValue(this.request(a, def), undefined),
      namespaceObject: toCelValue(ns, undefined),
      authorizer: this.celAuthorizer(a),
    };
    cache.set(def, base);
    return base;
  }

  /** `authorizer` for the requesting user, with `requestResource` naming the request's resource. */
  private celAuthorizer(a: AdmissionAttributes): CelAuthorizer {
    const authz = new CelAuthorizer(this.authorizer, a.ctx.cluster, a.ctx.user);
    authz.requestResource = new ResourceCheck(authz, a.def.group, a.def.resource, a.subresource ?? '', a.namespace, a.name);
    return authz;
  }

  /** CreateAdmissionRequest: the request as `request` sees it, in the matched version. */
  private request(a: AdmissionAttributes, def: ResourceDefinition): Json {
    const user = a.ctx.user;
    // A subresource's own kind (Scale) or a CONNECT's options kind, else the matched resource's.
    const sub = a.subresource ? a.def.subresources.find((s) => s.name === a.subresource) : undefined;
    const kindOf = (d: ResourceDefinition) => a.kind ?? (sub?.kind && sub.kind !== a.def.kind ? { group: sub.group ?? d.group, version: sub.version ?? d.version, kind: sub.kind } : { group: d.group, version: d.version, kind: d.kind });
    return {
      kind: kindOf(def),
      resource: { group: def.group, version: def.version, resource: def.resource },
      ...(a.subresource ? { subResource: a.subresource } : {}),
      requestKind: kindOf(a.def),
      requestResource: { group: a.def.group, version: a.def.version, resource: a.def.resource },
      ...(a.subresource ? { requestSubResource: a.subresource } : {}),
      name: a.name,
      namespace: a.namespace,
      operation: a.operation,
      userInfo: { username: user.username, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups, extra: user.extra ?? {} },
      dryRun: a.dryRun === true,
      ...(a.options ? { options: a.options } : {}),
    };
  }

  /**
   * validator.Validate for one binding and param: failures (validation index, message, reason), which the binding's
   * validationActions act on, evaluation errors included under failurePolicy Fail; auditAnnotation errors, which
   * refuse whatever the actions; and the audit annotations to publish.
   */
  private evaluate(policy: CompiledPolicy, base: Record<string, unknown>, param: KubeObject | null) {
    const out = { failures: [] as { index: number; message: string; reason?: string }[], errors: [] as string[], annotations: [] as [string, string][] };
    const fail = policy.failurePolicy !== 'Ignore';
    const activation: Record<string, unknown> = { ...base, params: toCelValue(param, undefined) };
    // Variables, in order; a failed one fails the expressions that read it.
    const variables: Record<string, unknown> = {};
    const variableErrors = new Map<string, string>();
    activation.variables = variables;
    for (const v of policy.variables) {
      if (v.compiled.error !== undefined) {
        variableErrors.set(v.name, `composited variable "${v.name}" fails to compile: ${v.compiled.error}`);
        continue;
      }
      const failed = v.compiled.reads.find((r) => variableErrors.has(r));
      if (failed) {
        variableErrors.set(v.name, `composited variable "${v.name}" fails to evaluate: ${variableErrors.get(failed)}`);
        continue;
      }
      try {
        variables[v.name] = v.compiled.program!(activation as never);
      } catch (err) {
        variableErrors.set(v.name, `composited variable "${v.name}" fails to evaluate: ${evaluationMessage(err)}`);
      }
    }
    const run = (c: CompiledExpression): { value?: unknown; error?: string } => {
      if (c.error !== undefined) return { error: `compilation error: ${c.error}` };
      const failed = c.reads.find((r) => variableErrors.has(r));
      if (failed) return { error: `expression '${c.expression}' resulted in error: ${variableErrors.get(failed)}` };
      try {
        return { value: c.program!(activation as never) };
      } catch (err) {
        return { error: `expression '${c.expression}' resulted in error: ${evaluationMessage(err)}` };
      }
    };
    // matchConditions: any false skips the binding; an error fails per failurePolicy.
    if (policy.matchConditions.length > 0) {
      let firstError: string | undefined;
      for (const cond of policy.matchConditions) {
        const r = run(cond.compiled);
        if (r.error !== undefined) firstError ??= r.error;
        else if (r.value === false) return out;
        else if (r.value !== true) firstError ??= `matchCondition '${cond.name}' evaluated to a non-bool`;
      }
      if (firstError !== undefined) {
        if (fail) out.failures.push({ index: 0, message: firstError });
        return out;
      }
    }
    policy.validations.forEach((v, index) => {
      const r = run(v.expression);
      if (r.error !== undefined) {
        if (fail) out.failures.push({ index, message: r.error });
        return;
      }
      if (r.value === true) return;
      let message = '';
      if (v.messageExpression) {
        const m = run(v.messageExpression);
        if (m.error === undefined && typeof m.value === 'string') {
          message = m.value.trim();
          if (Buffer.byteLength(message) > maxMessageBytes || /\n/.test(message)) message = '';
        }
      }
      if (!message && v.message.trim()) message = v.message.trim();
      if (!message) message = `failed expression: ${v.expression.expression.trim()}`;
      out.failures.push({ index, message, ...(v.reason ? { reason: v.reason } : {}) });
    });
    for (const ann of policy.auditAnnotations) {
      const r = run(ann.compiled);
      if (r.error !== undefined) {
        if (fail) out.errors.push(r.error);
        continue;
      }
      if (r.value === null || r.value === undefined) continue;
      if (typeof r.value !== 'string') {
        if (fail) out.errors.push(`valueExpression '${ann.valueExpression}' resulted in unsupported return type: ${celTypeName(r.value)}. Return type must be either string or null.`);
        continue;
      }
      const value = r.value.trim();
      if (value) out.annotations.push([ann.key, value.slice(0, maxAuditAnnotationValueLength)]);
    }
    return out;
  }
}
