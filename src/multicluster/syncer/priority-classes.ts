/**
 * The PriorityClasses a cluster needs for what is synced to it. A workspace's pods and pod templates may name a
 * PriorityClass of the workspace; the cluster's own Priority admission refuses a pod naming a class it does not have.
 * So before a syncer writes an object whose pod spec names a class other than the system ones, it makes sure the
 * cluster has a class of that name: if not, it creates one from the workspace's (value, preemptionPolicy,
 * description; never a global default there, which would change the cluster's own pods), labelled as the syncer's
 * (SYNCED_PRIORITY_CLASS_LABEL) and annotated with the workspace it came from.
 *
 * A class the cluster already has is left as it is, whoever made it: the cluster's own class of that name wins (its
 * value is what the pods get there), and so does the first workspace's when several workspaces syncing to one cluster
 * name a class alike. Classes are never deleted by the syncer (pods may still use them; a class costs nothing).
 * A class missing from the workspace too is not made: the cluster refuses the pods, as it would the workspace.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { GroupVersionResource } from '../../client/resource.js';
import type { RestClient } from '../../client/rest-client.js';
import { logger } from '../../logging/logger.js';
import { podTemplateOf } from '../decisions/workload-references.js';
import { isSystemPriorityClassName } from '../../registry/builtin/workloads/priority-class-validation.js';

/** On a cluster's PriorityClass the syncer created: `"true"`. */
export const SYNCED_PRIORITY_CLASS_LABEL = 'scheduling.atrium.io/synced-priority-class';

/** On a cluster's PriorityClass the syncer created: the workspace (logical cluster) whose class it copies. */
export const PRIORITY_CLASS_WORKSPACE_ANNOTATION = 'scheduling.atrium.io/priority-class-workspace';

const PRIORITY_CLASSES: GroupVersionResource = { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses' };

/** How long a class found or made on the cluster is trusted before it is looked at again (one may delete it). */
const CHECKED_FOR_MS = 60_000;

/** The kinds whose objects carry a pod spec, by resource (the rest hold theirs at spec.template). */
const KIND_OF_RESOURCE: Readonly<Record<string, string>> = { pods: 'Pod', cronjobs: 'CronJob', podtemplates: 'PodTemplate' };
const POD_SPEC_RESOURCES = new Set(['pods', 'cronjobs', 'podtemplates', 'deployments', 'replicasets', 'statefulsets', 'daemonsets', 'jobs', 'replicationcontrollers']);

/** The PriorityClass `obj`'s pod spec names, when it is a workload (group ignored: names are the built-ins'). */
export function priorityClassNameOf(resource: string, obj: KubeObject): string | undefined {
  if (!POD_SPEC_RESOURCES.has(resource)) return undefined;
  const name = podTemplateOf(KIND_OF_RESOURCE[resource] ?? 'Workload', obj)?.spec?.priorityClassName;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** The downstream copy of a workspace's class. */
export function downstreamPriorityClass(up: KubeObject, workspace: string): KubeObject {
  return {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: up.metadata?.name, labels: { [SYNCED_PRIORITY_CLASS_LABEL]: 'true' }, annotations: { [PRIORITY_CLASS_WORKSPACE_ANNOTATION]: workspace } },
    value: typeof up.value === 'number' ? up.value : 0,
    ...(typeof up.description === 'string' && up.description ? { description: up.description } : {}),
    ...(typeof up.preemptionPolicy === 'string' ? { preemptionPolicy: up.preemptionPolicy } : {}),
  };
}

export class DownstreamPriorityClasses {
  /** Class name → when it was last found or made on the cluster, or the check under way. */
  private readonly checked = new Map<string, number | Promise<void>>();

  constructor(
    private readonly upstream: RestClient,
    private readonly upstreamCluster: string,
    private readonly downstream: RestClient,
  ) {}

  /** Makes sure the cluster has the class `obj` (of `resource`) names, if any; failures are logged and left to the cluster's admission. */
  async ensureFor(resource: string, obj: KubeObject): Promise<void> {
    const name = priorityClassNameOf(resource, obj);
    if (!name || isSystemPriorityClassName(name)) return;
    const seen = this.checked.get(name);
    if (typeof seen === 'number' && Date.now() - seen < CHECKED_FOR_MS) return;
    if (seen instanceof Promise) return seen;
    const check = this.ensure(name).then(
      () => void this.checked.set(name, Date.now()),
      (err: unknown) => {
        this.checked.delete(name);
        logger.warn('syncer: PriorityClass not made on the cluster', { name, workspace: this.upstreamCluster, error: (err as Error).message });
      },
    );
    this.checked.set(name, check);
    return check;
  }

  private async ensure(name: string): Promise<void> {
    const onCluster = await this.downstream.get(PRIORITY_CLASSES, name).catch(notFound);
    if (onCluster) return;
    const inWorkspace = await this.upstream.get(PRIORITY_CLASSES, name, { cluster: this.upstreamCluster }).catch(notFound);
    if (!inWorkspace) return;
    await this.downstream.create(PRIORITY_CLASSES, downstreamPriorityClass(inWorkspace, this.upstreamCluster)).catch((err: unknown) => {
      // Made meanwhile (another workspace's syncer): the class exists, which is all that is needed.
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    });
  }
}

function notFound(err: unknown): undefined {
  if (err instanceof StatusError && err.code === 404) return undefined;
  throw err;
}
