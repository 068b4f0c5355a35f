/**
 * The copies on a cluster of a workspace's own PersistentVolumes (decisions/volume-binding.ts). A claim the
 * workspace's binder bound to one of its volumes (WORKSPACE_VOLUME_ANNOTATION) goes down pre-bound to a copy of that
 * volume (toDownstream sets its spec.volumeName to volumeCopyName), so the cluster's PV controller binds exactly that
 * pair and no claim of another workspace can take the volume. Before such a claim is written, the copy is made:
 * the volume's spec, its claimRef naming the claim's downstream namespace and name, and reclaim policy Retain —
 * the cluster never deletes or scrubs the storage behind a volume the workspace owns; what the workspace's reclaim
 * policy says is done to the workspace's object. The copy is labelled VOLUME_COPY_LABEL (the workspace's view of its
 * clusters' volumes leaves copies out) and deleted when the claim leaves the cluster.
 */
import { deepCopy, type KubeObject } from '../../apimachinery/object.js';
import { toClusterNodeNames } from '../decisions/node-pin.js';
import { StatusError } from '../../apimachinery/status.js';
import type { GroupVersionResource } from '../../client/resource.js';
import type { RestClient } from '../../client/rest-client.js';
import { logger } from '../../logging/logger.js';
import { DOWNSTREAM_CLUSTER_LABEL } from '../api/types.js';
import { claimRefOf, CLUSTER_VOLUME_ANNOTATION, mismatch, refersTo, VOLUME_COPY_LABEL, VOLUME_COPY_SOURCE_ANNOTATION, volumeCopyName, WORKSPACE_VOLUME_ANNOTATION } from '../decisions/volume-binding.js';

const VOLUMES: GroupVersionResource = { group: '', version: 'v1', resource: 'persistentvolumes' };

/** The copy of workspace volume `up` for the claim `claim` (upstream) in downstream namespace `namespace`. */
export function volumeCopy(up: KubeObject, claim: KubeObject, namespace: string, workspace: string, key: string, syncTarget: string): KubeObject {
  const { claimRef: _ref, ...spec } = deepCopy((up.spec ?? {}) as Record<string, unknown>);
  // A local volume pinned to a workspace node (`<cluster>--<node>`, as `kubectl get nodes` shows it there) names the
  // node by the cluster's own name, as a pinned pod's copy does (decisions/node-pin.ts).
  const required = (spec.nodeAffinity as { required?: unknown } | undefined)?.required;
  if (required) toClusterNodeNames({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required } } }, syncTarget);
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: volumeCopyName(up.metadata!.name!, claim.metadata!.uid!),
      labels: { ...(up.metadata?.labels ?? {}), [VOLUME_COPY_LABEL]: 'true', [DOWNSTREAM_CLUSTER_LABEL]: key },
      annotations: { [VOLUME_COPY_SOURCE_ANNOTATION]: `${workspace}/${up.metadata!.name}` },
    },
    spec: { ...spec, persistentVolumeReclaimPolicy: 'Retain', claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name: claim.metadata!.name } },
  };
}

export class DownstreamVolumes {
  constructor(
    private readonly upstream: RestClient,
    private readonly upstreamCluster: string,
    private readonly downstream: RestClient,
    private readonly key: string,
    private readonly syncTarget: string,
  ) {}

  /** Makes the copy the claim `up` (of `resource`) is to be bound to on the cluster, if it is bound to a workspace volume. */
  async ensureFor(resource: string, up: KubeObject, namespace: string | undefined): Promise<void> {
    const volume = resource === 'persistentvolumeclaims' ? up.metadata?.annotations?.[WORKSPACE_VOLUME_ANNOTATION] : undefined;
    if (!volume || !namespace || !up.metadata?.uid) return;
    const name = volumeCopyName(volume, up.metadata.uid);
    const existing = await this.downstream.get(VOLUMES, name).catch(notFound);
    if (existing) return;
    const source = await this.workspaceVolume(volume);
    // Gone from the workspace meanwhile: the claim goes down pre-bound to nothing and stays Pending there (the binder
    // marks it Lost upstream).
    if (!source) return;
    await this.downstream.create(VOLUMES, volumeCopy(source, up, namespace, this.upstreamCluster, this.key, this.syncTarget)).catch((err: unknown) => {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    });
    logger.info('syncer: copied a workspace volume to the cluster', { workspace: this.upstreamCluster, volume, copy: name });
  }

  /**
   * How long the claim `up` (of `resource`), not yet on the cluster, is to wait for the workspace's binder before it is
   * looked at again (undefined: it goes down now): it names a volume (spec.volumeName) the workspace has, and is not
   * marked bound yet. Sent down now it would go without a volume and the cluster would provision one for it, where
   * on one cluster such a claim stays Pending until the volume is free and fits it: a short wait when the volume is
   * free and fits (the binder is about to bind), a long one otherwise (another claim holds it, or it does not fit).
   */
  async awaitsBinding(resource: string, up: KubeObject): Promise<number | undefined> {
    if (resource !== 'persistentvolumeclaims' || up.metadata?.annotations?.[WORKSPACE_VOLUME_ANNOTATION]) return undefined;
    const named = (up.spec as { volumeName?: unknown } | undefined)?.volumeName;
    if (typeof named !== 'string' || named === '') return undefined;
    const volume = await this.workspaceVolume(named);
    if (!volume) return undefined;
    return (!claimRefOf(volume) || refersTo(volume, up)) && mismatch(up, volume) === undefined ? 250 : 5000;
  }

  /**
   * The workspace's own volume of that name, if any. The workspace's reads of volumes look at its stored volumes
   * first and then at its clusters': one shown from a cluster (the volume a claim was bound to there) is not the
   * workspace's, nor is a name its clusters could not all be asked about (503: no stored volume has it), and a
   * pull-mode syncer set up before it could read volumes (403) sees none.
   */
  private async workspaceVolume(name: string): Promise<KubeObject | undefined> {
    const volume = await this.upstream.get(VOLUMES, name, { cluster: this.upstreamCluster }).catch((err: unknown) => {
      if (err instanceof StatusError && (err.code === 404 || err.code === 503)) return undefined;
      if (err instanceof StatusError && err.code === 403) {
        if (!this.forbiddenLogged) logger.warn('syncer: the workspace\'s PersistentVolumes cannot be read (run `kubectl atrium workload sync` again to grant it)', { workspace: this.upstreamCluster, error: err.message });
        this.forbiddenLogged = true;
        return undefined;
      }
      throw err;
    });
    return volume && volume.metadata?.annotations?.[CLUSTER_VOLUME_ANNOTATION] === undefined ? volume : undefined;
  }

  private forbiddenLogged = false;

  /** Deletes the copy made for the claim `up` once the claim has left the cluster. */
  async releaseFor(resource: string, up: KubeObject | undefined): Promise<void> {
    const volume = resource === 'persistentvolumeclaims' ? up?.metadata?.annotations?.[WORKSPACE_VOLUME_ANNOTATION] : undefined;
    if (!volume || !up?.metadata?.uid) return;
    await this.downstream.delete(VOLUMES, volumeCopyName(volume, up.metadata.uid)).catch(notFound);
  }
}

function notFound(err: unknown): undefined {
  if (err instanceof StatusError && err.code === 404) return undefined;
  throw err;
}
