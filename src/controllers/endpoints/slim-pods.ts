/**
 * The slim pod cache a control plane keeps of every workspace's pods (most of them the mirrors of what its clusters
 * run): one shared informer, each pod cut down to what its readers use, so caching every cluster's pods costs a
 * fraction of the pods themselves. Its readers: the endpoints and endpointslice controllers (endpoints are made of the
 * fields below) and the splitter, which asks whether a child's pods are unscheduled on their cluster.
 */
import type { JsonObject, KubeObject } from '../../apimachinery/object.js';
import type { Informer } from '../../client/informer.js';
import type { InformerFactory, InformerSelection } from '../../client/informer-factory.js';
import type { GroupVersionResource } from '../../client/resource.js';

const podsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };

/** The informer factory's name of the transform: every reader asking for it shares one informer. */
export const SLIM_POD_TRANSFORM_ID = 'slim-pod';

/**
 * What of a pod the cache keeps: name, namespace, uid, labels, creation and deletion, the logical cluster annotation
 * of a wildcard read; the node, hostname, subdomain and named container ports; the phase, IPs, and the Ready and
 * PodScheduled conditions.
 */
export function slimPod(pod: KubeObject): KubeObject {
  const m = pod.metadata ?? {};
  const spec = (pod.spec ?? {}) as JsonObject;
  const status = (pod.status ?? {}) as JsonObject;
  const ports = (containers: unknown) => (Array.isArray(containers) ? containers.map((c: JsonObject) => ({ ports: c.ports, restartPolicy: c.restartPolicy })) : undefined);
  const cluster = m.annotations?.['kcp.io/cluster'];
  return {
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, labels: m.labels, creationTimestamp: m.creationTimestamp, deletionTimestamp: m.deletionTimestamp, ...(cluster ? { annotations: { 'kcp.io/cluster': cluster } } : {}) },
    spec: { nodeName: spec.nodeName, hostname: spec.hostname, subdomain: spec.subdomain, containers: ports(spec.containers), initContainers: ports(spec.initContainers) },
    status: { phase: status.phase, podIP: status.podIP, podIPs: status.podIPs, conditions: Array.isArray(status.conditions) ? status.conditions.filter((c: JsonObject) => c.type === 'Ready' || c.type === 'PodScheduled') : undefined },
  };
}

/** The shared slim pod cache over `selection` (a logical cluster, or `*` for every workspace). */
export function slimPodsInformer(informers: InformerFactory, selection: Pick<InformerSelection, 'cluster'>): Informer<KubeObject> {
  return informers.informerFor<KubeObject>(podsGVR, { ...selection, transform: slimPod, transformId: SLIM_POD_TRANSFORM_ID });
}
