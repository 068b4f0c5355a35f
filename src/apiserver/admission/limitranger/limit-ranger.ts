/**
 * The LimitRanger admission plugin (plugin/pkg/admission/limitranger): a pod created in a namespace with LimitRanges
 * gets its containers' missing requests and limits from their Container items, then the pod and every container
 * (and a PersistentVolumeClaim on create or update) must satisfy each item's min, max and maxLimitRequestRatio, or
 * the request is refused with 403 and upstream's messages. It acts only where LimitRanges are served (workspaces with
 * compute, simulated clusters); pod updates are not checked, as upstream (containers cannot change).
 */
import type { KubeObject } from '../../../apimachinery/object.js';
import { errors } from '../../../apimachinery/status.js';
import type { RequestContext } from '../../../registry/rest.js';
import type { ResourceRegistry } from '../../../registry/resource-registry.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionObjectName } from '../admission.js';
import { aggregate, applyContainerDefaults, claimViolations, defaultRequestsFromLimits, podViolations } from './limit-rules.js';

const systemContext = (cluster: string): RequestContext => ({ cluster, user: { username: 'system:apiserver', groups: ['system:masters'] } });

export class LimitRanger implements AdmissionPlugin {
  readonly name = 'LimitRanger';

  constructor(private readonly registry: ResourceRegistry) {}

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.def.group !== '' || a.subresource || !a.object) return;
    const isPod = a.def.resource === 'pods' && a.operation === 'CREATE';
    const isClaim = a.def.resource === 'persistentvolumeclaims' && (a.operation === 'CREATE' || a.operation === 'UPDATE');
    if (!isPod && !isClaim) return;
    if (a.oldObject?.metadata?.deletionTimestamp) return;
    const store = this.registry.lookup(a.ctx.cluster, '', 'v1', 'limitranges');
    if (!store) return;
    const { items } = await store.list(systemContext(a.ctx.cluster), a.namespace, { selection: {} });
    const ranges = items.filter((r: KubeObject) => Array.isArray((r.spec as { limits?: unknown } | undefined)?.limits) && (r.spec as { limits: unknown[] }).limits.length > 0);
    if (ranges.length === 0) return;
    if (isPod) {
      defaultRequestsFromLimits(a.object);
      for (const r of ranges) applyContainerDefaults(r, a.object);
    }
    for (const r of ranges) {
      const why = isPod ? podViolations(r, a.object) : claimViolations(r, a.object);
      if (why.length > 0) throw errors.forbidden({ group: '', resource: a.def.resource }, admissionObjectName(a), aggregate(why));
    }
  }
}
