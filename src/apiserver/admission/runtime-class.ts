/**
 * The RuntimeClass admission plugin (plugin/pkg/admission/runtimeclass), wherever RuntimeClasses are served (simulated
 * clusters; a workspace does not serve them): a pod created naming a RuntimeClass that does not exist is refused; one naming
 * a class gets its overhead (spec.overhead; a different one given is refused) and its scheduling (node selector merged,
 * a conflicting label refused; tolerations added); a pod giving an overhead without such a class is refused. Classes
 * are read from the request's own logical cluster. Mirrors of what clusters run are left alone (their clusters
 * admitted them).
 */
import { type JsonObject, type KubeObject, isPlainObject, jsonEqual } from '../../apimachinery/object.js';
import { StatusError, errors } from '../../apimachinery/status.js';
import { compareQuantity, isExactQuantity, parseExactQuantity } from '../../apimachinery/exact-quantity.js';
import type { RequestContext } from '../../registry/rest.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionObjectName } from './admission.js';

const systemContext = (cluster: string): RequestContext => ({ cluster, user: { username: 'system:apiserver', groups: ['system:masters'] } });
const podsGR = { group: '', resource: 'pods' };

const specOf = (pod: KubeObject): JsonObject => (isPlainObject(pod.spec) ? pod.spec : (pod.spec = {}));
/** Whether two resource lists hold the same resources in equal quantities (1Gi equals 1073741824; Semantic.DeepEqual). */
function sameResources(a: unknown, b: unknown): boolean {
  if (!isPlainObject(a) || !isPlainObject(b)) return !isPlainObject(a) && !isPlainObject(b);
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => k in b && isExactQuantity(a[k]) && isExactQuantity(b[k]) && compareQuantity(parseExactQuantity(a[k]), parseExactQuantity(b[k])) === 0);
}

/** isSuperset (pkg/util/tolerations): whether toleration `ss` tolerates everything `t` does. */
function isSuperset(ss: JsonObject, t: JsonObject): boolean {
  if (jsonEqual(ss, t)) return true;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  // An empty key with Exists matches every key.
  if (str(t.key) !== str(ss.key) && (str(ss.key) !== '' || ss.operator !== 'Exists')) return false;
  const op = str(ss.operator) || 'Equal';
  if (op === 'Equal') {
    if ((str(t.operator) || 'Equal') !== 'Equal' || str(t.value) !== str(ss.value)) return false;
  } else if (op !== 'Exists') return false;
  if (str(t.effect) !== str(ss.effect) && str(ss.effect) !== '') return false;
  if (str(ss.effect) === 'NoExecute' && typeof ss.tolerationSeconds === 'number') {
    if (typeof t.tolerationSeconds !== 'number' || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  return true;
}

/** MergeTolerations: both lists, without a toleration another one (earlier, or later and different) covers. */
function mergeTolerations(first: unknown[], second: unknown[]): JsonObject[] {
  const all = [...first, ...second].filter(isPlainObject);
  const merged: JsonObject[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => isSuperset(m, t))) return;
    if (all.slice(i + 1).some((later) => !jsonEqual(later, t) && isSuperset(later, t))) return;
    merged.push(t);
  });
  return merged;
}

export class RuntimeClassAdmission implements AdmissionPlugin {
  readonly name = 'RuntimeClass';

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly skip: (pod: KubeObject) => boolean = () => false,
  ) {}

  private applies(a: AdmissionAttributes): a is AdmissionAttributes & { object: KubeObject } {
    if (a.operation !== 'CREATE' || a.subresource || a.def.group !== '' || a.def.resource !== 'pods' || !a.object) return false;
    return this.registry.lookup(a.ctx.cluster, 'node.k8s.io', 'v1', 'runtimeclasses') !== undefined && !this.skip(a.object);
  }

  /** The pod's RuntimeClass; a name naming none is refused. */
  private async classOf(a: AdmissionAttributes & { object: KubeObject }): Promise<KubeObject | undefined> {
    const name = specOf(a.object).runtimeClassName;
    if (typeof name !== 'string' || name === '') return undefined;
    const store = this.registry.lookup(a.ctx.cluster, 'node.k8s.io', 'v1', 'runtimeclasses')!;
    try {
      return await store.get(systemContext(a.ctx.cluster), '', name);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) throw errors.forbidden(podsGR, admissionObjectName(a), `pod rejected: RuntimeClass "${name}" not found`);
      throw err;
    }
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    if (!this.applies(a)) return;
    const rc = await this.classOf(a);
    if (!rc) return;
    const spec = specOf(a.object);
    const name = admissionObjectName(a);
    // setOverhead: the class's overhead, unless the pod gives another.
    const podFixed = isPlainObject(rc.overhead) ? rc.overhead.podFixed : undefined;
    if (isPlainObject(podFixed)) {
      if (spec.overhead !== undefined && spec.overhead !== null && !sameResources(spec.overhead, podFixed)) {
        throw errors.forbidden(podsGR, name, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
      }
      spec.overhead = { ...podFixed };
    }
    // setScheduling: the class's node labels merged in (a different value for one is refused), its tolerations added.
    const scheduling = isPlainObject(rc.scheduling) ? rc.scheduling : undefined;
    if (!scheduling) return;
    if (isPlainObject(scheduling.nodeSelector)) {
      const selector = isPlainObject(spec.nodeSelector) ? { ...spec.nodeSelector } : {};
      for (const [k, v] of Object.entries(scheduling.nodeSelector)) {
        if (k in selector && selector[k] !== v) {
          throw errors.forbidden(podsGR, name, `conflict: runtimeClass.scheduling.nodeSelector[${k}] = ${String(v)}; pod.spec.nodeSelector[${k}] = ${String(selector[k])}`);
        }
        selector[k] = v;
      }
      spec.nodeSelector = selector;
    }
    const merged = mergeTolerations(Array.isArray(spec.tolerations) ? spec.tolerations : [], Array.isArray(scheduling.tolerations) ? scheduling.tolerations : []);
    if (merged.length) spec.tolerations = merged;
    else delete spec.tolerations;
  }

  /** validateOverhead: a pod's overhead is its class's, and only a class with one gives one. */
  async validate(a: AdmissionAttributes): Promise<void> {
    if (!this.applies(a)) return;
    const rc = await this.classOf(a);
    const spec = specOf(a.object);
    const podFixed = rc && isPlainObject(rc.overhead) ? rc.overhead.podFixed : undefined;
    const given = spec.overhead !== undefined && spec.overhead !== null;
    if (isPlainObject(podFixed)) {
      if (!sameResources(spec.overhead, podFixed)) throw errors.forbidden(podsGR, admissionObjectName(a), "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
    } else if (given) {
      throw errors.forbidden(podsGR, admissionObjectName(a), 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
    }
  }
}
