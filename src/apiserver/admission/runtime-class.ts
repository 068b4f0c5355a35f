/**
 * The RuntimeClass admission plugin (plugin/pkg/admission/runtimeclass), wherever RuntimeClasses are served (simulated
 * clusters, workspaces with compute): a pod created naming a RuntimeClass that does not exist is refused; one naming
 * a class gets its overhead (spec.overhead; a different one given is refused) and its scheduling (node selector merged,
 * a conflicting label refused; tolerations added); a pod giving an overhead without such a class is refused. Classes
 * are read from the request's own logical cluster. Mirrors of what clusters run are left alone (their clusters
 * admitted them).
 */
import { type JsonObject, type KubeObject, isPlainObject, jsonEqual } from '../../apimachinery/object.js';
import { StatusError, errors } from '../../apimachinery/status.js';
import { canonicalQuantity } from '../../apimachinery/exact-quantity.js';
import type { RequestContext } from '../../registry/rest.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionObjectName } from './admission.js';

const systemContext = (cluster: string): RequestContext => ({ cluster, user: { username: 'system:apiserver', groups: ['system:masters'] } });
const podsGR = { group: '', resource: 'pods' };

const specOf = (pod: KubeObject): JsonObject => (isPlainObject(pod.spec) ? pod.spec : (pod.spec = {}));
/** A resource list compared as quantities (1000m equals 1). */
const canonicalList = (v: unknown): Record<string, string> | undefined =>
  isPlainObject(v) ? Object.fromEntries(Object.entries(v).map(([k, q]) => [k, typeof q === 'string' || typeof q === 'number' ? canonicalQuantity(q) : String(q)])) : undefined;

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
      if (spec.overhead !== undefined && spec.overhead !== null && !jsonEqual(canonicalList(spec.overhead), canonicalList(podFixed))) {
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
    if (Array.isArray(scheduling.tolerations) && scheduling.tolerations.length) {
      const tolerations = Array.isArray(spec.tolerations) ? [...spec.tolerations] : [];
      for (const t of scheduling.tolerations) if (!tolerations.some((x) => jsonEqual(x, t))) tolerations.push(t);
      spec.tolerations = tolerations;
    }
  }

  /** validateOverhead: a pod's overhead is its class's, and only a class with one gives one. */
  async validate(a: AdmissionAttributes): Promise<void> {
    if (!this.applies(a)) return;
    const rc = await this.classOf(a);
    const spec = specOf(a.object);
    const podFixed = rc && isPlainObject(rc.overhead) ? rc.overhead.podFixed : undefined;
    const given = spec.overhead !== undefined && spec.overhead !== null;
    if (isPlainObject(podFixed)) {
      if (!jsonEqual(canonicalList(spec.overhead), canonicalList(podFixed))) throw errors.forbidden(podsGR, admissionObjectName(a), "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
    } else if (given) {
      throw errors.forbidden(podsGR, admissionObjectName(a), 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
    }
  }
}
