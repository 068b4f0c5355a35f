/**
 * The Priority admission plugin (plugin/pkg/admission/priority), wherever PriorityClasses are served (simulated
 * clusters, workspaces with compute): a pod created naming a PriorityClass gets its value and preemption policy, one
 * naming none gets the global default class (the lowest-valued if several claim it; its name is set on the pod) or
 * priority 0 and PreemptLowerPriority, and a pod naming a class that does not exist, or giving a priority or policy
 * other than its class's, is refused with 403 and upstream's messages. A PriorityClass may become the global default
 * only while no other class is. Classes are read from the request's own logical cluster.
 *
 * An update that drops spec.priority or spec.preemptionPolicy keeps the stored ones; the pod strategy does that on
 * every server (resources.ts), as this plugin sees no stored object for a PUT. Where PriorityClasses are not served,
 * the pod strategy's fallback (pod-admission-defaults.ts) applies instead.
 *
 * The system classes are created wherever the kind is served (ensureSystemPriorityClasses); a pod naming one in a
 * workspace that just gained compute, before they were created, has them created on the spot.
 */
import { type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { StatusError, errors } from '../../apimachinery/status.js';
import type { RequestContext } from '../../registry/rest.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import { isSystemPriorityClassName } from '../../registry/builtin/workloads/priority-class-validation.js';
import { systemPriorityClassObjects } from '../../registry/builtin/workloads/priority-classes.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionObjectName } from './admission.js';

const systemContext = (cluster: string): RequestContext => ({ cluster, user: { username: 'system:apiserver', groups: ['system:masters'] } });
const podsGR = { group: '', resource: 'pods' };
const priorityClassesGR = { group: 'scheduling.k8s.io', resource: 'priorityclasses' };

function priorityClassStore(registry: ResourceRegistry, cluster: string) {
  return registry.lookup(cluster, 'scheduling.k8s.io', 'v1', 'priorityclasses');
}

/**
 * Creates the system PriorityClasses in `cluster` where they are missing, as kube-apiserver's post-start hook does
 * (its field manager's name included); existing ones are left as they are. A no-op where the kind is not served.
 */
export async function ensureSystemPriorityClasses(registry: ResourceRegistry, cluster: string): Promise<void> {
  const store = priorityClassStore(registry, cluster);
  if (!store) return;
  for (const pc of systemPriorityClassObjects()) {
    try {
      await store.create(systemContext(cluster), '', pc, { dryRun: false, fieldManager: 'kube-apiserver' });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
  }
}

/** getDefaultPriorityClass: of the classes marked globalDefault, the one with the lowest value. */
function defaultClass(classes: KubeObject[]): KubeObject | undefined {
  let best: KubeObject | undefined;
  for (const pc of classes) if (pc.globalDefault === true && (!best || valueOf(pc) < valueOf(best))) best = pc;
  return best;
}

const valueOf = (pc: KubeObject): number => (typeof pc.value === 'number' ? pc.value : 0);

export class PriorityAdmission implements AdmissionPlugin {
  readonly name = 'Priority';

  /** `skip`: pods the plugin leaves alone (the mirrors of what clusters run, whose priority their cluster computed). */
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly skip: (pod: KubeObject) => boolean = () => false,
  ) {}

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' || a.subresource || a.def.group !== '' || a.def.resource !== 'pods' || !a.object) return;
    const store = priorityClassStore(this.registry, a.ctx.cluster);
    if (!store || this.skip(a.object)) return;
    const pod = a.object;
    const spec = (isPlainObject(pod.spec) ? pod.spec : (pod.spec = {})) as Record<string, unknown>;
    // A pod with only generateName is named by it in the refusal, as upstream's admission attributes name it.
    const name = admissionObjectName(a);
    const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
    let priority = 0;
    let policy: unknown = 'PreemptLowerPriority';
    if (!className) {
      const def = defaultClass((await store.list(systemContext(a.ctx.cluster), '', { selection: {} })).items);
      // With no default class the pod's class name stays empty.
      if (def) {
        spec.priorityClassName = def.metadata?.name;
        priority = valueOf(def);
        policy = def.preemptionPolicy;
      }
    } else {
      const pc = await this.getClass(a.ctx.cluster, className);
      if (!pc) throw errors.forbidden(podsGR, name, `no PriorityClass with name ${className} was found`);
      priority = valueOf(pc);
      policy = pc.preemptionPolicy;
    }
    if (typeof spec.priority === 'number' && spec.priority !== priority) {
      throw errors.forbidden(podsGR, name, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
    }
    spec.priority = priority;
    if (typeof policy === 'string') {
      if (typeof spec.preemptionPolicy === 'string' && spec.preemptionPolicy !== policy) {
        throw errors.forbidden(podsGR, name, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
      }
      spec.preemptionPolicy = policy;
    }
  }

  /** validatePriorityClass: a second global default is refused, as is marking another class default. */
  async validate(a: AdmissionAttributes): Promise<void> {
    if ((a.operation !== 'CREATE' && a.operation !== 'UPDATE') || a.subresource) return;
    if (a.def.group !== 'scheduling.k8s.io' || a.def.resource !== 'priorityclasses' || a.object?.globalDefault !== true) return;
    const store = priorityClassStore(this.registry, a.ctx.cluster);
    if (!store) return;
    const name = admissionObjectName(a);
    const def = defaultClass((await store.list(systemContext(a.ctx.cluster), '', { selection: {} })).items);
    if (def && (a.operation === 'CREATE' || def.metadata?.name !== name)) {
      throw errors.forbidden(priorityClassesGR, name, `PriorityClass ${def.metadata?.name} is already marked as default. Only one default can exist`);
    }
  }

  /** The class of that name, creating the system classes first if one of them is asked for and missing. */
  private async getClass(cluster: string, className: string): Promise<KubeObject | undefined> {
    const read = async () => {
      const store = priorityClassStore(this.registry, cluster);
      return store?.get(systemContext(cluster), '', className).catch((err: unknown) => {
        if (err instanceof StatusError && err.code === 404) return undefined;
        throw err;
      });
    };
    const found = await read();
    if (found || !isSystemPriorityClassName(className)) return found;
    await ensureSystemPriorityClasses(this.registry, cluster);
    return read();
  }
}
