/**
 * The scheduling vocabulary atrium adds on top of the syncer protocol: the Location and Placement GVRs, the
 * annotations the scheduler writes on namespaces, and the annotations and labels the splitter uses on Deployments.
 */
import { createHash } from 'node:crypto';
import type { GroupVersionResource } from '../../client/resource.js';

export const locationsGVR: GroupVersionResource = { group: 'scheduling.kcp.io', version: 'v1alpha1', resource: 'locations' };
export const placementsGVR: GroupVersionResource = { group: 'scheduling.kcp.io', version: 'v1alpha1', resource: 'placements' };
export const deploymentsGVR: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'deployments' };

/** Namespace annotation written by the scheduler: the Placement the namespace is bound to (kcp's name). */
export const PLACEMENT_ANNOTATION = 'scheduling.kcp.io/placement';
/**
 * Namespace annotation set by the user: the name of the Placement to use, overriding namespaceSelector matching.
 * The value `none` opts the namespace out of scheduling altogether.
 */
export const PLACEMENT_OVERRIDE_ANNOTATION = 'scheduling.atrium.io/placement';
/**
 * Namespace annotation written together with the state labels: scalable workloads here (objects with spec.replicas
 * and no own `workload.kcp.io/cluster` label) are divided by the splitter into per-cluster children, so the syncer
 * never syncs the workload itself (see isAssigned in syncer/transform.ts).
 */
export const SPLIT_NAMESPACE_ANNOTATION = 'scheduling.atrium.io/split-workloads';
/**
 * Namespace annotation the splitter sets before it creates a child there and removes once none is left: after a
 * restart (or a controller failover) it finds the workspaces still holding children of a namespace that was released
 * meanwhile from the namespaces alone, since Deployments cannot be listed across workspaces.
 */
export const SPLIT_CHILDREN_ANNOTATION = 'scheduling.atrium.io/split-children';
/** Label on a split child Deployment: the name of its root Deployment. */
export const SPLIT_FROM_LABEL = 'scheduling.atrium.io/split-from';
/** Annotation on a split child: the root's metadata.generation the child's spec was derived from. */
export const ROOT_GENERATION_ANNOTATION = 'scheduling.atrium.io/root-generation';
/**
 * Finalizer on every Placement: the scheduler releases it once what the Placement set in motion is undone (its
 * namespaces released; when it was the workspace's last compute, split children gone and syncers done), so the
 * workload types stay served until then (see placement-cleanup.ts).
 */
export const PLACEMENT_CLEANUP_FINALIZER = 'scheduling.atrium.io/release-compute';
/** The name of the Placement `kubectl atrium bind compute` creates, and of the Location created per workspace. */
export const DEFAULT_NAME = 'default';
/**
 * Namespaces that hold cluster machinery and are never scheduled, whatever a Placement selects: kube-node-lease (the
 * nodes' heartbeat Leases, which a workspace has no nodes for). kube-system and kube-public are placed like any other
 * namespace, so that agents applied there (a log-shipper DaemonSet, a node exporter) run: downstream they land in a
 * namespace of their own (hashed mapping; api/keys.ts never maps them onto the cluster's own, even with SameName), and
 * what atrium itself keeps in a workspace's kube-system never syncs (Leases and Events are not synced resources; the
 * kube-root-ca.crt ConfigMap and the default ServiceAccount are cluster-local; ConfigMaps and Secrets sync only where a
 * placed workload uses them).
 */
export const UNSCHEDULED_NAMESPACES: ReadonlySet<string> = new Set(['kube-node-lease']);

/** The name of the child Deployment of `root` for SyncTarget `target`: `<root>--<target>`. */
export function childName(root: string, target: string): string {
  return fitted(`${root}--${target}`, 253);
}

/**
 * The SPLIT_FROM_LABEL value naming `root`: the name itself when it fits a label value (63 characters), else a
 * shortened name with a hash of the whole, so that long (valid) Deployment names still split.
 */
export function splitFromValue(root: string): string {
  return fitted(root, 63);
}

/** `s` when at most `max` long, else its head, `-` and 10 hex digits of its SHA-256 (a DNS label/subdomain still). */
function fitted(s: string, max: number): string {
  if (s.length <= max) return s;
  const hash = createHash('sha256').update(s).digest('hex').slice(0, 10);
  return `${s.slice(0, max - 11).replace(/[-.]+$/, '')}-${hash}`;
}
