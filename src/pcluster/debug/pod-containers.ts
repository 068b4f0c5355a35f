/**
 * Which container a pods/log, exec or attach request means, and whether it can be read, checked as upstream does:
 * the API server picks the only container or refuses (pkg/registry/core/pod/strategy.go validateContainer), the
 * kubelet checks the container's state (kubelet_pods.go validateContainerLogStatus). Both answer 400 BadRequest.
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';

const list = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

/** Every container name of the pod: init, regular, ephemeral (podutil.VisitContainers' order). */
export function podContainerNames(pod: KubeObject): string[] {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  return [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)].map((c) => String(c.name));
}

/** The container spec by name (regular containers first). */
export function podContainer(pod: KubeObject, name: string): JsonObject | undefined {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  return [...list(spec.containers), ...list(spec.initContainers), ...list(spec.ephemeralContainers)].find((c) => c.name === name);
}

/** The container a request names, or the pod's only one; upstream's 400s otherwise. */
export function chooseContainer(pod: KubeObject, requested: string): string {
  const name = pod.metadata?.name ?? '';
  if (requested) {
    if (!podContainerNames(pod).includes(requested)) throw errors.badRequest(`container ${requested} is not valid for pod ${name}`);
    return requested;
  }
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const containers = list(spec.containers);
  if (containers.length === 1) return String(containers[0]!.name);
  if (containers.length === 0) throw errors.badRequest(`a container name must be specified for pod ${name}`);
  // Go's %s of a []string: [a b].
  throw errors.badRequest(`a container name must be specified for pod ${name}, choose one of: [${podContainerNames(pod).join(' ')}]`);
}

/** The container's status, from the regular, init or ephemeral statuses. */
export function containerStatus(pod: KubeObject, name: string): JsonObject | undefined {
  const status = isPlainObject(pod.status) ? pod.status : {};
  return [...list(status.containerStatuses), ...list(status.initContainerStatuses), ...list(status.ephemeralContainerStatuses)].find((c) => c.name === name);
}

/**
 * Which instance's log a request reads (the current one, or with `previous` the last terminated one), or the
 * kubelet's error: a container that never started is "waiting to start: <reason>", `previous` without a terminated
 * instance is "previous terminated container … not found".
 */
export function logInstance(pod: KubeObject, container: string, previous: boolean): 'current' | 'previous' {
  const podName = pod.metadata?.name ?? '';
  const cs = containerStatus(pod, container);
  if (!cs) {
    // The kubelet reports a container it has not started yet as waiting in ContainerCreating.
    throw errors.badRequest(`container "${container}" in pod "${podName}" is waiting to start: ContainerCreating`);
  }
  const state = isPlainObject(cs.state) ? cs.state : {};
  const last = isPlainObject(cs.lastState) ? cs.lastState : {};
  if (previous) {
    if (!isPlainObject(last.terminated)) throw errors.badRequest(`previous terminated container "${container}" in pod "${podName}" not found`);
    return 'previous';
  }
  if (isPlainObject(state.running) || isPlainObject(state.terminated)) return 'current';
  if (isPlainObject(last.terminated)) return 'previous';
  const reason = isPlainObject(state.waiting) ? String(state.waiting.reason ?? '') : '';
  if (reason === 'ErrImagePull') throw errors.badRequest(`container "${container}" in pod "${podName}" is waiting to start: image can't be pulled`);
  if (reason === 'ImagePullBackOff') throw errors.badRequest(`container "${container}" in pod "${podName}" is waiting to start: trying and failing to pull image`);
  throw errors.badRequest(`container "${container}" in pod "${podName}" is waiting to start: ${reason || 'ContainerCreating'}`);
}

/** Go's strconv.ParseBool, as query parameters are decoded upstream. */
export function parseBoolParam(query: URLSearchParams, name: string): boolean {
  const v = query.get(name);
  if (v === null || v === '') return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  throw errors.badRequest(`strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}
