/**
 * Where a workspace's pod really runs: its cluster (the SyncTarget) and its namespace and name there. A mirror
 * (api/mirrors.ts) names its original; a bare Pod placed from the workspace is synced whole to one SyncTarget
 * (its state label says Sync, its syncer's finalizer is on it), into that syncer's downstream namespace (api/keys.ts downstreamNamespace), under its
 * own name. Anything else is not running anywhere: upstream's answer for a pod without a node.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import { CLUSTER_ANNOTATION } from '../../client/resource.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import type { RequestContext } from '../../registry/rest.js';
import { downstreamNamespace } from '../api/keys.js';
import { mirrorSourceOf } from '../api/mirrors.js';
import { STATE_LABEL_PREFIX, SYNC_TARGET_KEY_LABEL, SYNCER_FINALIZER_PREFIX, type SyncTarget } from '../api/types.js';

export interface PodLocation {
  /** The SyncTarget of the pod's cluster, with the logical cluster that holds it. */
  target: SyncTarget;
  targetCluster: string;
  namespace: string;
  name: string;
}

const systemContext = (cluster: string): RequestContext => ({ cluster, user: { username: 'system:atrium:pod-streams', groups: ['system:masters'] } });

export class PodLocator {
  /** Where each SyncTarget key was last found (targetByKey). */
  private readonly keyPlaces = new Map<string, { cluster: string; name: string }>();

  constructor(private readonly registry: ResourceRegistry) {}

  private syncTargets() {
    return this.registry.lookup('root', 'workload.kcp.io', 'v1alpha1', 'synctargets')!;
  }

  /**
   * The pod's original; a 400 "does not have a host assigned" (as kube-apiserver's streamLocation) when none. Callers
   * locating many pods at once pass one `lookups` map, so each SyncTarget is read once for all of them.
   */
  async locate(cluster: string, pod: KubeObject, lookups: Map<string, Promise<unknown>> = new Map()): Promise<PodLocation> {
    const name = pod.metadata?.name ?? '';
    const mirror = mirrorSourceOf(pod);
    if (mirror && mirror.namespace) {
      const targetCluster = mirror.syncTargetCluster ?? cluster;
      const target = await once(lookups, `name\n${targetCluster}\n${mirror.syncTargetName}`, () => this.syncTargets().get(systemContext(targetCluster), '', mirror.syncTargetName).catch(() => undefined));
      if (target) return { target, targetCluster, namespace: mirror.namespace, name: mirror.name };
    }
    const [synced] = await this.syncedPlaces(cluster, pod, lookups);
    if (synced) return synced;
    throw errors.badRequest(`pod ${name} does not have a host assigned`);
  }

  /**
   * Every cluster a workspace object is synced to (its scheduler state labels, its syncers' finalizers), with its
   * namespace and name there, in the order of its keys; SyncTargets no longer found are left out.
   */
  async syncedPlaces(cluster: string, obj: KubeObject, lookups: Map<string, Promise<unknown>> = new Map()): Promise<PodLocation[]> {
    const out: PodLocation[] = [];
    for (const key of syncedKeys(obj)) {
      const found = await once(lookups, `key\n${key}`, () => this.targetByKey(key));
      if (!found) continue;
      const mapping = found.target.spec?.namespaceMapping ?? 'Hashed';
      const locator = { syncTarget: { cluster: found.cluster, name: found.target.metadata!.name!, uid: found.target.metadata!.uid! }, cluster, namespace: obj.metadata!.namespace! };
      out.push({ target: found.target, targetCluster: found.cluster, namespace: downstreamNamespace(locator, mapping), name: obj.metadata?.name ?? '' });
    }
    return out;
  }

  /**
   * The SyncTarget carrying `key` (in any workspace), with its logical cluster. A key stands for one workspace and
   * name for good (api/keys.ts hashes them), so where a key was found is remembered: later streams read that one
   * SyncTarget by name instead of listing every workspace's, and list again only if it is gone or carries another key.
   */
  private async targetByKey(key: string): Promise<{ target: SyncTarget; cluster: string } | undefined> {
    const known = this.keyPlaces.get(key);
    if (known) {
      const target = (await this.syncTargets().get(systemContext(known.cluster), '', known.name).catch(() => undefined)) as SyncTarget | undefined;
      if (target?.metadata?.labels?.[SYNC_TARGET_KEY_LABEL] === key) return { target, cluster: known.cluster };
      this.keyPlaces.delete(key);
    }
    const found = await this.listByKey(key);
    if (found) {
      if (this.keyPlaces.size >= 10_000) this.keyPlaces.clear();
      this.keyPlaces.set(key, { cluster: found.cluster, name: found.target.metadata!.name! });
    }
    return found;
  }

  private async listByKey(key: string): Promise<{ target: SyncTarget; cluster: string } | undefined> {
    const labels = { empty: () => false, matches: (l: Record<string, string>) => l[SYNC_TARGET_KEY_LABEL] === key };
    const list = await this.syncTargets().list(systemContext('root'), '', { selection: { labels } }, true);
    const target = list.items[0] as SyncTarget | undefined;
    const targetCluster = target?.metadata?.annotations?.[CLUSTER_ANNOTATION];
    return target && targetCluster ? { target, cluster: targetCluster } : undefined;
  }
}

function once<T>(lookups: Map<string, Promise<unknown>>, key: string, read: () => Promise<T>): Promise<T> {
  let p = lookups.get(key) as Promise<T> | undefined;
  if (!p) lookups.set(key, (p = read()));
  return p;
}

/**
 * The keys of the SyncTargets an object (a pod, a Service) is synced to: the state label the scheduler sets (`Sync`), and the finalizer
 * the syncer holds once it has synced it (also for pods labelled `workload.kcp.io/cluster` by hand).
 */
function syncedKeys(obj: KubeObject): string[] {
  const keys = new Set<string>();
  for (const [label, value] of Object.entries(obj.metadata?.labels ?? {})) if (label.startsWith(STATE_LABEL_PREFIX) && value === 'Sync') keys.add(label.slice(STATE_LABEL_PREFIX.length));
  for (const f of obj.metadata?.finalizers ?? []) if (f.startsWith(SYNCER_FINALIZER_PREFIX)) keys.add(f.slice(SYNCER_FINALIZER_PREFIX.length));
  return [...keys];
}
