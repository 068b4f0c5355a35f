/**
 * The authentication.k8s.io and authorization.k8s.io review resources and TokenRequest: create-only, computed from
 * the request and never stored (k8s.io/kubernetes pkg/registry/{authentication,authorization}). They are what
 * `kubectl auth can-i` (SelfSubjectAccessReview, --list: SelfSubjectRulesReview), `kubectl auth whoami`
 * (SelfSubjectReview) and `kubectl create token` (serviceaccounts/<name>/token) call.
 */
import * as fe from '../../apimachinery/field-errors.js';
import type { FieldError } from '../../apimachinery/field-errors.js';
import { type KubeObject, formatRFC3339, isPlainObject } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import type { ComputedCreate, ComputedCreateRequest, RequestContext, ResourceDefinition } from '../../registry/rest.js';
import type { UserInfo } from '../../apimachinery/user.js';
import { defineBuiltin } from '../../registry/builtin/define.js';
import { type AuthorizationAttributes, nonResourceAttributes, resourceAttributes } from '../../apiserver/authorization.js';
import { type ClusterAuthorizer } from '../authz/authorizer.js';
import { SYSTEM_MASTERS } from '../../apimachinery/user.js';
import type { PolicyRule } from '../authz/policy-rule.js';
import type { Authenticator, CoreObjectGetter, ServiceAccountGetter } from '../authn/authenticator.js';
import type { BoundObjectClaim, ServiceAccountTokens } from '../authn/service-account-token.js';
import { aggregateText } from '../authz/rbac-authorizer.js';

export interface ReviewServices {
  authorizer: ClusterAuthorizer;
  authenticator: Authenticator;
  serviceAccountTokens: ServiceAccountTokens;
  getServiceAccount: ServiceAccountGetter;
  getCoreObject: CoreObjectGetter;
}

const AUTHZ = 'authorization.k8s.io';
const AUTHN = 'authentication.k8s.io';

function specOf(obj: KubeObject): Record<string, unknown> {
  return isPlainObject(obj.spec) ? obj.spec : {};
}

/** The response object: what was sent (metadata, spec) plus the computed status. */
function answer(obj: KubeObject, group: string, kind: string, status: Record<string, unknown>): KubeObject {
  return { kind, apiVersion: `${group}/v1`, metadata: { ...(isPlainObject(obj.metadata) ? obj.metadata : {}), creationTimestamp: null }, spec: obj.spec ?? {}, status };
}

/** Exactly one of resourceAttributes / nonResourceAttributes (ValidateSelfSubjectAccessReviewSpec and friends). */
function validateAttributesChoice(spec: Record<string, unknown>): FieldError[] {
  const hasRes = isPlainObject(spec.resourceAttributes);
  const hasNonRes = isPlainObject(spec.nonResourceAttributes);
  if (hasRes && hasNonRes) return [fe.invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes')];
  if (!hasRes && !hasNonRes) return [fe.invalid('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  return [];
}

function attributesOf(user: UserInfo, spec: Record<string, unknown>): AuthorizationAttributes {
  if (isPlainObject(spec.resourceAttributes)) {
    const ra = spec.resourceAttributes as Record<string, string | undefined>;
    return resourceAttributes(user, {
      verb: ra.verb ?? '',
      apiGroup: ra.group ?? '',
      apiVersion: ra.version ?? '',
      resource: ra.resource ?? '',
      subresource: ra.subresource ?? '',
      namespace: ra.namespace ?? '',
      name: ra.name ?? '',
    });
  }
  const na = spec.nonResourceAttributes as Record<string, string | undefined>;
  return nonResourceAttributes(user, na.verb ?? '', na.path ?? '');
}

function accessStatus(authorizer: ClusterAuthorizer, cluster: string, attrs: AuthorizationAttributes): Record<string, unknown> {
  const d = authorizer.authorize(cluster, attrs);
  const status: Record<string, unknown> = { allowed: d.decision === 'Allow' };
  if (d.decision === 'Deny') status.denied = true;
  if (d.reason) status.reason = d.reason;
  if (d.evaluationError) status.evaluationError = d.evaluationError;
  return status;
}

function userFromSpec(spec: Record<string, unknown>): UserInfo {
  const u: UserInfo = { username: String(spec.user ?? ''), groups: Array.isArray(spec.groups) ? spec.groups.map(String) : [] };
  if (spec.uid) u.uid = String(spec.uid);
  if (isPlainObject(spec.extra)) u.extra = spec.extra as Record<string, string[]>;
  return u;
}

function reviewDef(resource: string, kind: string, group: string, namespaced: boolean, create: ComputedCreate): ResourceDefinition {
  const def = defineBuiltin({ group, version: 'v1', resource, kind, namespaced, verbs: ['create'], definitionName: `io.k8s.api.${group.split('.')[0]}.v1.${kind}` });
  return { ...def, computedCreates: { '': create }, unstored: true };
}

function invalidIf(group: string, kind: string, name: string, errs: FieldError[]): void {
  if (errs.length) throw errors.invalid(group, kind, name, errs);
}

/** The SelfSubjectRulesReview status for a user in a namespace of a cluster. */
export function rulesReviewStatus(authorizer: ClusterAuthorizer, cluster: string, user: UserInfo, namespace: string): Record<string, unknown> {
  const resourceRules: Record<string, unknown>[] = [];
  const nonResourceRules: Record<string, unknown>[] = [];
  const add = (r: PolicyRule) => {
    if ((r.nonResourceURLs ?? []).length) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
    else {
      const rr: Record<string, unknown> = { verbs: r.verbs };
      if (r.apiGroups?.length) rr.apiGroups = r.apiGroups;
      if (r.resources?.length) rr.resources = r.resources;
      if (r.resourceNames?.length) rr.resourceNames = r.resourceNames;
      resourceRules.push(rr);
    }
  };
  // system:masters is allowed everything before RBAC is asked, and says so first.
  if (user.groups.includes(SYSTEM_MASTERS)) {
    add({ apiGroups: ['*'], resources: ['*'], verbs: ['*'] });
    add({ nonResourceURLs: ['*'], verbs: ['*'] });
  }
  const { rules, errors: errs } = authorizer.rules.rulesFor(cluster, user, namespace);
  for (const r of rules) add(r);
  // RBAC's RulesFor lists what it could and reports the rest as an error, never as incomplete.
  const status: Record<string, unknown> = { resourceRules, nonResourceRules, incomplete: false };
  if (errs.length) status.evaluationError = aggregateText(errs);
  return status;
}

function userInfoJson(u: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: u.username };
  if (u.uid) out.uid = u.uid;
  out.groups = u.groups;
  if (u.extra && Object.keys(u.extra).length) out.extra = u.extra;
  return out;
}

/** Builds every review resource definition over the given services. */
export function reviewResources(s: ReviewServices): ResourceDefinition[] {
  const ssar = reviewDef('selfsubjectaccessreviews', 'SelfSubjectAccessReview', AUTHZ, false, async (ctx, { object }) => {
    const spec = specOf(object);
    invalidIf(AUTHZ, 'SelfSubjectAccessReview', '', validateAttributesChoice(spec));
    return answer(object, AUTHZ, 'SelfSubjectAccessReview', accessStatus(s.authorizer, ctx.cluster, attributesOf(ctx.user, spec)));
  });
  const sar = reviewDef('subjectaccessreviews', 'SubjectAccessReview', AUTHZ, false, async (ctx, { object }) => {
    const spec = specOf(object);
    const errs = validateAttributesChoice(spec);
    if (!spec.user && !(Array.isArray(spec.groups) && spec.groups.length)) errs.push(fe.invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
    invalidIf(AUTHZ, 'SubjectAccessReview', '', errs);
    return answer(object, AUTHZ, 'SubjectAccessReview', accessStatus(s.authorizer, ctx.cluster, attributesOf(userFromSpec(spec), spec)));
  });
  const lsar = reviewDef('localsubjectaccessreviews', 'LocalSubjectAccessReview', AUTHZ, true, async (ctx, { object, namespace }) => {
    const spec = specOf(object);
    const errs = validateAttributesChoice(spec);
    if (isPlainObject(spec.nonResourceAttributes)) errs.push(fe.invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request'));
    if (!spec.user && !(Array.isArray(spec.groups) && spec.groups.length)) errs.push(fe.invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
    invalidIf(AUTHZ, 'LocalSubjectAccessReview', '', errs);
    const ra = spec.resourceAttributes as Record<string, unknown>;
    if ((ra.namespace ?? '') !== namespace) throw errors.badRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`);
    return answer(object, AUTHZ, 'LocalSubjectAccessReview', accessStatus(s.authorizer, ctx.cluster, attributesOf(userFromSpec(spec), spec)));
  });
  const ssrr = reviewDef('selfsubjectrulesreviews', 'SelfSubjectRulesReview', AUTHZ, false, async (ctx, { object }) => {
    const namespace = String(specOf(object).namespace ?? '');
    if (!namespace) throw errors.badRequest('no namespace on request');
    // The answer is a new object holding only the status (selfsubjectrulesreview/rest.go): no metadata, empty spec.
    return { kind: 'SelfSubjectRulesReview', apiVersion: `${AUTHZ}/v1`, metadata: { creationTimestamp: null }, spec: {}, status: rulesReviewStatus(s.authorizer, ctx.cluster, ctx.user, namespace) };
  });
  const ssr = reviewDef('selfsubjectreviews', 'SelfSubjectReview', AUTHN, false, async (ctx, { object }) => {
    const out = answer(object, AUTHN, 'SelfSubjectReview', { userInfo: userInfoJson(ctx.user) });
    delete out.spec;
    return out;
  });
  const tokenReview = reviewDef('tokenreviews', 'TokenReview', AUTHN, false, async (ctx, { object }) => {
    const spec = specOf(object);
    if (!spec.token) throw errors.badRequest('token is required for TokenReview in authentication');
    const audiences = Array.isArray(spec.audiences) && spec.audiences.length ? spec.audiences.map(String) : undefined;
    const r = await s.authenticator.authenticateToken(String(spec.token), audiences);
    if ('error' in r) return answer(object, AUTHN, 'TokenReview', { user: {}, error: r.error });
    return answer(object, AUTHN, 'TokenReview', { authenticated: true, user: userInfoJson(r.user), audiences: r.audiences ?? audiences ?? [...s.serviceAccountTokens.apiAudiences] });
  });
  return [ssar, ssrr, sar, lsar, ssr, tokenReview];
}

const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;
/** claims.go: a pod-bound token asked for 1h7s (what the kubelet asks for) lives a year but is stale after 1h7s. */
const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 60 * 60 + 7;
const EXPIRATION_EXTENSION_SECONDS = 24 * 365 * 60 * 60;

/** schema.FromAPIVersionAndKind: "v1" is the core group, "g/v" a group; anything else names no group or version. */
function groupVersionKind(apiVersion: string, kind: string): { group: string; version: string; kind: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '', kind };
  const slashes = apiVersion.split('/').length - 1;
  if (slashes === 0) return { group: '', version: apiVersion, kind };
  if (slashes === 1) {
    const i = apiVersion.indexOf('/');
    return { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1), kind };
  }
  return { group: '', version: '', kind };
}

/** BoundObjectReference as it decodes and encodes: kind, apiVersion, name, uid, each omitted when empty. */
function boundObjectReference(v: Record<string, unknown>): { kind?: string; apiVersion?: string; name?: string; uid?: string } {
  const out: Record<string, string> = {};
  for (const k of ['kind', 'apiVersion', 'name', 'uid']) if (typeof v[k] === 'string' && v[k] !== '') out[k] = v[k] as string;
  return out;
}

/** What the token is bound to, looked up as TokenREST.Create does; throws the answer the request gets otherwise. */
async function lookUpBoundObject(
  s: ReviewServices,
  cluster: string,
  namespace: string,
  saName: string,
  ref: { kind?: string; apiVersion?: string; name?: string; uid?: string },
): Promise<{ pod?: BoundObjectClaim; secret?: BoundObjectClaim; node?: BoundObjectClaim }> {
  const gvk = groupVersionKind(ref.apiVersion ?? '', ref.kind ?? '');
  const name = ref.name ?? '';
  // The registry's Get of each kind: an empty name is "Name parameter required."; a missing object is the usual 404.
  // The control plane serves no pods or nodes (only `atrium pcluster` and negotiated clusters do): there the object
  // cannot exist, so binding to one answers `pods "x" not found` / `nodes "x" not found` as a missing object would.
  const get = async (resource: string, ns: string): Promise<KubeObject> => {
    if (!name) throw errors.badRequest('Name parameter required.');
    const obj = await s.getCoreObject(cluster, resource, ns, name);
    if (!obj) throw errors.notFound({ group: '', resource }, name);
    return obj;
  };
  const uidOf = (o: KubeObject): string => String(o.metadata?.uid ?? '');
  let uid: string;
  const bound: { pod?: BoundObjectClaim; secret?: BoundObjectClaim; node?: BoundObjectClaim } = {};
  if (gvk.group === '' && gvk.kind === 'Pod') {
    const pod = await get('pods', namespace);
    const spec = isPlainObject(pod.spec) ? pod.spec : {};
    if (saName !== (spec.serviceAccountName ?? '')) throw errors.badRequest(`cannot bind token for serviceaccount ${JSON.stringify(saName)} to pod running with different serviceaccount name.`);
    uid = uidOf(pod);
    bound.pod = { name: String(pod.metadata!.name), uid };
    // ServiceAccountTokenPodNodeInfo (on in 1.32): the pod's node goes into the claims too, its name alone when the
    // Node does not exist.
    const nodeName = typeof spec.nodeName === 'string' ? spec.nodeName : '';
    if (nodeName) {
      const node = await s.getCoreObject(cluster, 'nodes', '', nodeName);
      bound.node = node ? { name: nodeName, uid: uidOf(node) } : { name: nodeName };
    }
  } else if (gvk.group === '' && gvk.kind === 'Node') {
    // ServiceAccountTokenNodeBinding is beta and on in 1.32.
    const node = await get('nodes', '');
    uid = uidOf(node);
    bound.node = { name: String(node.metadata!.name), uid };
  } else if (gvk.group === '' && gvk.kind === 'Secret') {
    const secret = await get('secrets', namespace);
    uid = uidOf(secret);
    bound.secret = { name: String(secret.metadata!.name), uid };
  } else {
    throw errors.badRequest(`cannot bind token to object of type ${gvk.group}/${gvk.version}, Kind=${gvk.kind}`);
  }
  if (ref.uid && ref.uid !== uid) {
    throw errors.conflict({ group: gvk.group, resource: gvk.kind }, name, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  return bound;
}

/**
 * POST serviceaccounts/<name>/token (TokenRequest): a signed token for the ServiceAccount, valid in this cluster only
 * (pkg/registry/core/serviceaccount/storage/token.go). A boundObjectRef must name an existing Pod, Secret or Node of
 * the core group; the token carries that object's name and real UID and stops authenticating when it is gone.
 */
export function tokenRequestCreate(s: ReviewServices): ComputedCreate {
  return async (ctx: RequestContext, req: ComputedCreateRequest) => {
    const meta: Record<string, unknown> = isPlainObject(req.object.metadata) ? { ...req.object.metadata } : {};
    if (meta.name && meta.name !== req.name) invalidIf(AUTHN, 'TokenRequest', req.name, [fe.invalid('metadata.name', meta.name, 'must match the service account name if specified')]);
    if (meta.namespace && meta.namespace !== req.namespace) invalidIf(AUTHN, 'TokenRequest', req.name, [fe.invalid('metadata.namespace', meta.namespace, 'must match the service account namespace if specified')]);
    const sa = await s.getServiceAccount(ctx.cluster, req.namespace, req.name);
    if (!sa) throw errors.notFound({ group: '', resource: 'serviceaccounts' }, req.name);
    const spec = specOf(req.object);
    const errs: FieldError[] = [];
    const expirationSeconds = spec.expirationSeconds === undefined || spec.expirationSeconds === null ? 3600 : Number(spec.expirationSeconds);
    if (expirationSeconds < MIN_EXPIRATION_SECONDS) errs.push(fe.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'));
    if (expirationSeconds > MAX_EXPIRATION_SECONDS) errs.push(fe.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
    // ValidateTokenRequest runs after the ServiceAccount lookup and its error names no object (NewInvalid(gk, "", errs)).
    invalidIf(AUTHN, 'TokenRequest', '', errs);
    const audiences = Array.isArray(spec.audiences) && spec.audiences.length ? spec.audiences.map(String) : [...s.serviceAccountTokens.apiAudiences];
    const ref = isPlainObject(spec.boundObjectRef) ? boundObjectReference(spec.boundObjectRef) : undefined;
    const bound = ref ? await lookUpBoundObject(s, ctx.cluster, req.namespace, req.name, ref) : {};
    // --service-account-extend-token-expiration (on by default): a pod-bound kubelet token for the API's audiences.
    let tokenSeconds = expirationSeconds;
    let warnAfterSeconds: number | undefined;
    if (bound.pod && expirationSeconds === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS && audiences.every((a) => s.serviceAccountTokens.apiAudiences.includes(a))) {
      warnAfterSeconds = expirationSeconds;
      tokenSeconds = EXPIRATION_EXTENSION_SECONDS;
    }
    const now = new Date();
    const { token } = s.serviceAccountTokens.issue(
      { cluster: ctx.cluster, namespace: req.namespace, name: req.name, uid: sa.metadata!.uid!, audiences, expirationSeconds: tokenSeconds, ...bound, warnAfterSeconds },
      now,
    );
    return {
      kind: 'TokenRequest',
      apiVersion: `${AUTHN}/v1`,
      metadata: { ...meta, name: req.name, namespace: req.namespace, creationTimestamp: formatRFC3339(now) },
      // The reference comes back as sent (no UID filled in), as upstream returns its copy of the request.
      spec: { audiences, expirationSeconds, boundObjectRef: ref ?? null },
      status: { token, expirationTimestamp: formatRFC3339(Math.floor(now.getTime() / 1000) * 1000 + expirationSeconds * 1000) },
    };
  };
}
