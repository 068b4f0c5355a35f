/**
 * Endpoints and EndpointSlices in every workspace with compute, as kube-controller-manager keeps them on one cluster
 * (and a custom Endpoints object of a Service without a selector mirrored into slices, which are not synced either):
 * `kubectl get endpoints`, `kubectl describe service` and clients that read a Service's endpoints see the pods its
 * selector picks, wherever they run (the pods' mirrors carry their IPs and nodes, `<cluster>--<node>`; a pod IP is
 * its cluster's, so two clusters' pods may share one). The controllers are the simulated cluster's own
 * (controllers/endpoints/), run over every workspace; what they write never syncs down (the follow graph sends only a
 * selector-less Service's Endpoints and slices to clusters: each cluster's controllers keep their own).
 *
 * Only workspaces with compute (a SyncTarget or a Placement) serve pods and Endpoints; elsewhere nothing is written.
 * Pod changes are batched for a second (the controllers' --*-updates-batch-period): a burst of pods becoming ready is
 * one write per Service, not one per pod.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { clusterOf } from '../../client/store.js';
import { endpointSliceControllerInstaller, endpointsControllerInstaller, type EndpointsScope } from '../../controllers/endpoints/controller.js';
import { endpointSliceMirroringControllerInstaller } from '../../controllers/endpoints/mirroring.js';
import type { ControllerContext, ControllerInstaller } from '../../controllers/runtime/context.js';
import { CLUSTER_LABEL, STATE_LABEL_PREFIX, syncTargetsGVR } from '../api/types.js';
import { ENDPOINTS_CONTROLLER_NAME, ENDPOINTS_MANAGED_BY_LABEL } from '../api/kind-placement.js';
import { placementsGVR } from '../scheduling/types.js';

const BY_CLUSTER = 'workspace-endpoints/by-cluster';

/** Whether a logical cluster holds a SyncTarget or a Placement, read from wildcard informers of both. */
function computeWorkspaces(ctx: ControllerContext, changed: (cluster: string) => void): (cluster: string) => boolean {
  const holders = [syncTargetsGVR, placementsGVR].map((gvr) => {
    const inf = ctx.informers.informerFor<KubeObject>(gvr, { cluster: '*' });
    inf.addIndexer(BY_CLUSTER, (o) => [clusterOf(o)]);
    const onChange = (o: KubeObject) => changed(clusterOf(o));
    inf.addEventHandler({ add: onChange, delete: onChange });
    return inf;
  });
  return (cluster) => holders.some((inf) => inf.lister.byIndex(BY_CLUSTER, cluster).length > 0);
}

/**
 * The Service's placement and syncer labels (state.workload.kcp.io/<cluster>, workload.kcp.io/cluster,
 * internal.workload.kcp.io/*) are not copied: on an Endpoints object or a slice they would place or assign it. The
 * Endpoints are marked as the endpoints controller's (isClusterLocal: never synced, never placed).
 */
const scope: EndpointsScope = {
  cluster: '*',
  actsIn: computeWorkspaces,
  podBatchMs: 1000,
  nodeZones: false,
  slimPods: true,
  copiesLabel: (key) => !key.startsWith(STATE_LABEL_PREFIX) && key !== CLUSTER_LABEL && !key.startsWith('internal.workload.kcp.io/'),
  endpointsLabels: { [ENDPOINTS_MANAGED_BY_LABEL]: ENDPOINTS_CONTROLLER_NAME },
};

export const workspaceEndpointsControllerInstallers: ControllerInstaller[] = [endpointsControllerInstaller(scope), endpointSliceControllerInstaller(scope), endpointSliceMirroringControllerInstaller(scope)];
