/**
 * Defaulting of the workload types, as the API server's SetDefaults_* functions for core/v1 and apps/v1 fill in
 * omitted fields on every write. Defaults matter beyond cosmetics: the deployment controller hashes the defaulted
 * pod template, so a template written twice with and without defaults must hash the same.
 */
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { hasNoVolumeSource } from './pod-spec-validation.js';

function objectAt(parent: JsonObject, key: string): JsonObject {
  if (!isPlainObject(parent[key])) parent[key] = {};
  return parent[key] as JsonObject;
}

function arrayOfObjects(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isPlainObject) : [];
}

/** Always for `:latest` or untagged images, IfNotPresent for tagged or digest-pinned ones (SetDefaults_Container). */
export function defaultImagePullPolicy(image: string): string {
  if (image.includes('@')) return 'IfNotPresent';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastSegment.lastIndexOf(':');
  if (colon < 0) return 'Always';
  return lastSegment.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

/** SetDefaults_HTTPGetAction: path "/", scheme HTTP. */
function defaultHTTPGet(action: unknown): void {
  if (!isPlainObject(action)) return;
  if (!action.path) action.path = '/';
  if (!action.scheme) action.scheme = 'HTTP';
}

/** SetDefaults_ObjectFieldSelector: apiVersion v1. */
function defaultFieldRef(ref: unknown): void {
  if (isPlainObject(ref) && !ref.apiVersion) ref.apiVersion = 'v1';
}

function defaultContainer(c: JsonObject): void {
  if (c.terminationMessagePath === undefined || c.terminationMessagePath === '') c.terminationMessagePath = '/dev/termination-log';
  if (c.terminationMessagePolicy === undefined || c.terminationMessagePolicy === '') c.terminationMessagePolicy = 'File';
  // An image upstream cannot parse (a missing one included) gets IfNotPresent; validation then reports only the image.
  if (c.imagePullPolicy === undefined || c.imagePullPolicy === '') c.imagePullPolicy = typeof c.image === 'string' && c.image ? defaultImagePullPolicy(c.image) : 'IfNotPresent';
  for (const p of arrayOfObjects(c.ports)) if (!p.protocol) p.protocol = 'TCP';
  for (const e of arrayOfObjects(c.env)) if (isPlainObject(e.valueFrom)) defaultFieldRef(e.valueFrom.fieldRef);
  for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) {
    if (!isPlainObject(probe)) continue;
    // SetDefaults_Probe treats an explicit 0 as unset (a liveness probe with successThreshold 0 is accepted as 1).
    const unset = (v: unknown): boolean => v === undefined || v === null || v === 0;
    if (unset(probe.timeoutSeconds)) probe.timeoutSeconds = 1;
    if (unset(probe.periodSeconds)) probe.periodSeconds = 10;
    if (unset(probe.successThreshold)) probe.successThreshold = 1;
    if (unset(probe.failureThreshold)) probe.failureThreshold = 3;
    defaultHTTPGet(probe.httpGet);
    // GRPCAction.service is `+default=""` and serialized without omitempty: kube-apiserver always returns it, and
    // `kubectl describe` dereferences it (it panics on a gRPC probe without it).
    if (isPlainObject(probe.grpc) && (probe.grpc.service === undefined || probe.grpc.service === null)) probe.grpc.service = '';
  }
  if (isPlainObject(c.lifecycle)) for (const h of [c.lifecycle.postStart, c.lifecycle.preStop]) if (isPlainObject(h)) defaultHTTPGet(h.httpGet);
}

/** Mode 0644, the default of secret, configMap, downwardAPI and projected volumes. */
const defaultVolumeMode = 0o644;

/**
 * The volume defaults of SetObjectDefaults_Pod: an emptyDir for a volume without a source, the file mode of secret,
 * configMap, downwardAPI and projected volumes, the hostPath type, fieldRef apiVersions, a projected token's expiry, an
 * ephemeral claim's volumeMode.
 */
function defaultVolume(v: JsonObject): void {
  // SetDefaults_Volume: a volume that names no source is an emptyDir.
  if (hasNoVolumeSource(v)) v.emptyDir = {};
  for (const source of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const s = v[source];
    if (isPlainObject(s) && (s.defaultMode === undefined || s.defaultMode === null)) s.defaultMode = defaultVolumeMode;
  }
  if (isPlainObject(v.hostPath) && (v.hostPath.type === undefined || v.hostPath.type === null)) v.hostPath.type = '';
  if (isPlainObject(v.downwardAPI)) for (const item of arrayOfObjects(v.downwardAPI.items)) defaultFieldRef(item.fieldRef);
  if (isPlainObject(v.projected)) {
    for (const src of arrayOfObjects(v.projected.sources)) {
      if (isPlainObject(src.downwardAPI)) for (const item of arrayOfObjects(src.downwardAPI.items)) defaultFieldRef(item.fieldRef);
      if (isPlainObject(src.serviceAccountToken) && (src.serviceAccountToken.expirationSeconds === undefined || src.serviceAccountToken.expirationSeconds === null)) src.serviceAccountToken.expirationSeconds = 3600;
    }
  }
  const claimSpec = isPlainObject(v.ephemeral) && isPlainObject(v.ephemeral.volumeClaimTemplate) ? v.ephemeral.volumeClaimTemplate.spec : undefined;
  if (isPlainObject(claimSpec) && (claimSpec.volumeMode === undefined || claimSpec.volumeMode === null)) claimSpec.volumeMode = 'Filesystem';
}

/** SetDefaults_PodSpec plus the container and volume defaults, in place. */
export function defaultPodSpec(spec: JsonObject): void {
  if (!spec.dnsPolicy) spec.dnsPolicy = 'ClusterFirst';
  if (!spec.restartPolicy) spec.restartPolicy = 'Always';
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) spec.terminationGracePeriodSeconds = 30;
  if (!isPlainObject(spec.securityContext)) spec.securityContext = {};
  if (!spec.schedulerName) spec.schedulerName = 'default-scheduler';
  // v1's deprecated `serviceAccount` is an alias the conversion to and from the internal type keeps in step:
  // serviceAccountName wins when both are set, and every answer carries the alias (as kube-apiserver's do).
  if (!spec.serviceAccountName && typeof spec.serviceAccount === 'string' && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
  else delete spec.serviceAccount;
  for (const c of [...arrayOfObjects(spec.containers), ...arrayOfObjects(spec.initContainers), ...arrayOfObjects(spec.ephemeralContainers)]) defaultContainer(c);
  for (const v of arrayOfObjects(spec.volumes)) defaultVolume(v);
}

/** Defaults of a pod template embedded in a Deployment or ReplicaSet. */
export function defaultPodTemplate(template: JsonObject): void {
  defaultPodSpec(objectAt(template, 'spec'));
}

/** SetDefaults_Deployment (apps/v1): replicas 1, RollingUpdate 25%/25%, 10 old ReplicaSets, 600s deadline. */
export function defaultDeployment(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  const strategy = objectAt(spec, 'strategy');
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = objectAt(strategy, 'rollingUpdate');
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = '25%';
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = '25%';
  }
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  if (spec.progressDeadlineSeconds === undefined || spec.progressDeadlineSeconds === null) spec.progressDeadlineSeconds = 600;
  defaultPodTemplate(objectAt(spec, 'template'));
}

/** SetDefaults_ReplicaSet (apps/v1): replicas 1, plus the template defaults. */
export function defaultReplicaSet(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  defaultPodTemplate(objectAt(spec, 'template'));
}

/**
 * SetDefaults_Pod: the spec defaults, and requests copied from limits for every resource a container limits but does
 * not request (the scheduler then accounts the limit).
 */
export function defaultPod(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  defaultPodSpec(spec);
  // A Pod's own default, not a template's (SetDefaults_Pod, not SetDefaults_PodSpec).
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
  // With host networking a Pod's container ports are its host ports (defaultHostNetworkPorts; Pods only, not templates).
  if (spec.hostNetwork === true) {
    for (const c of [...arrayOfObjects(spec.containers), ...arrayOfObjects(spec.initContainers)]) {
      for (const p of arrayOfObjects(c.ports)) if (!p.hostPort && typeof p.containerPort === 'number') p.hostPort = p.containerPort;
    }
  }
  for (const c of [...arrayOfObjects(spec.containers), ...arrayOfObjects(spec.initContainers)]) {
    const res = isPlainObject(c.resources) ? c.resources : undefined;
    if (!res || !isPlainObject(res.limits)) continue;
    const requests = isPlainObject(res.requests) ? res.requests : {};
    for (const [k, v] of Object.entries(res.limits)) if (requests[k] === undefined) requests[k] = v;
    res.requests = requests;
  }
}

/** SetDefaults_Service minus address allocation: type ClusterIP, affinity None, TCP ports, targetPort = port. */
export function defaultService(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  if (!spec.type) spec.type = 'ClusterIP';
  if (!spec.sessionAffinity) spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const clientIP = isPlainObject(spec.sessionAffinityConfig) ? spec.sessionAffinityConfig.clientIP : undefined;
    if (!isPlainObject(clientIP) || clientIP.timeoutSeconds === undefined || clientIP.timeoutSeconds === null) {
      spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
    }
  }
  if (spec.type !== 'ExternalName' && !spec.internalTrafficPolicy) spec.internalTrafficPolicy = 'Cluster';
  if ((spec.type === 'NodePort' || spec.type === 'LoadBalancer') && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
  if (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) spec.allocateLoadBalancerNodePorts = true;
  for (const p of arrayOfObjects(spec.ports)) {
    if (!p.protocol) p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
}
