/**
 * `kubectl atrium workload sync NAME`: registers a physical cluster as kcp's `kubectl kcp workload sync` did.
 * Creates (or updates) the SyncTarget, a ServiceAccount `atrium-syncer-<name>-<hash8>` in namespace `default`, a
 * ClusterRole/ClusterRoleBinding granting exactly what the syncer uses, a token for it, and returns the manifest to
 * apply in the physical cluster (Namespace, kubeconfig Secret, ServiceAccount, Deployment running `atrium syncer`),
 * once the workspace serves the workload types (which its SyncTarget gives it).
 * With `--delete` it deletes the SyncTarget and RBAC and returns what to remove from the physical cluster.
 */
import { createHash } from 'node:crypto';
import YAML from 'yaml';
import type { KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { RestClient } from '../../client/rest-client.js';
import { defaultSyncedResources, parseGroupResource, syncTargetsGVR, type SyncTarget } from '../api/types.js';
import { waitForWorkloadTypes } from './wait-for-workload-types.js';

export interface WorkloadSyncOptions {
  name: string;
  /** Logical cluster of the SyncTarget. */
  cluster: string;
  /** atrium's URL as the physical cluster reaches it. */
  serverURL: string;
  caPem: string;
  resources?: string[];
  /** Namespace in the physical cluster for the syncer (default `atrium-syncer-<name>-<hash8>`). */
  syncerImage?: string;
  log?(line: string): void;
  /** Progress text without a newline (the wait for the workload types); default: nothing. */
  progress?(text: string): void;
  /** How long to wait for the workspace to serve the workload types (default 60 s). */
  waitTimeoutMs?: number;
}

const rbacGroup = 'rbac.authorization.k8s.io';
const crGVR = { group: rbacGroup, version: 'v1', resource: 'clusterroles' };
const crbGVR = { group: rbacGroup, version: 'v1', resource: 'clusterrolebindings' };
const saGVR = { group: '', version: 'v1', resource: 'serviceaccounts' };

/** `atrium-syncer-<name>-<base36(sha224(name+cluster))[:8]>`, the id of every object created for the syncer. */
export function syncerId(cluster: string, name: string): string {
  const h = BigInt('0x' + createHash('sha224').update(`${cluster}:${name}`).digest('hex')).toString(36).slice(0, 8);
  return `atrium-syncer-${name}-${h}`;
}

/** The RBAC rules the syncer needs in its workspace: its SyncTarget, imports, synced resources, namespaces, events. */
export function syncerRules(name: string, resources: string[]): KubeObject[] {
  const byGroup = new Map<string, string[]>();
  for (const r of resources) {
    const gr = parseGroupResource(r);
    byGroup.set(gr.group, [...(byGroup.get(gr.group) ?? []), gr.resource, `${gr.resource}/status`]);
  }
  return [
    { apiGroups: ['workload.kcp.io'], resources: ['synctargets'], resourceNames: [name], verbs: ['get', 'list', 'watch', 'patch', 'update'] },
    { apiGroups: ['workload.kcp.io'], resources: ['synctargets/status'], resourceNames: [name], verbs: ['get', 'patch', 'update'] },
    // The tunnel pod streams and reads of metrics and nodes come through (api/tunnel.ts): its own SyncTarget's only.
    { apiGroups: ['workload.kcp.io'], resources: ['synctargets/tunnel'], resourceNames: [name], verbs: ['get'] },
    { apiGroups: ['workload.kcp.io'], resources: ['synctargets'], verbs: ['list', 'watch'] },
    { apiGroups: ['apiresource.kcp.io'], resources: ['apiresourceimports'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
    ...[...byGroup].map(([g, rs]) => ({ apiGroups: [g], resources: rs, verbs: ['get', 'list', 'watch', 'update', 'patch'] })),
    { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
    // The workspace's PriorityClasses that synced pods name, copied to the cluster (syncer/priority-classes.ts).
    { apiGroups: ['scheduling.k8s.io'], resources: ['priorityclasses'], verbs: ['get'] },
    // The workspace's own PersistentVolumes its synced claims are bound to, copied to the cluster (syncer/workspace-volumes.ts).
    { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['get'] },
    // Events: its own warnings, and the cluster's events mirrored up (syncer/workspace-mirrors.ts).
    { apiGroups: [''], resources: ['events'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
    // The mirrors of the pods the cluster runs for synced workloads, and of the Jobs its CronJobs make; the owners
    // they are given: the revision-history ReplicaSets of split Deployments.
    // Their ephemeral containers (`kubectl debug`) go through pods/ephemeralcontainers (syncer/mirror-set.ts); a
    // mirror's eviction is sent on as pods/eviction (streams/mirror-eviction.ts).
    ...(resources.includes('pods') ? [{ apiGroups: [''], resources: ['pods', 'pods/status', 'pods/ephemeralcontainers', 'pods/eviction'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }] : []),
    ...(resources.includes('jobs.batch') && resources.includes('cronjobs.batch') ? [{ apiGroups: ['batch'], resources: ['jobs', 'jobs/status'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }] : []),
    ...(resources.includes('deployments.apps') ? [{ apiGroups: ['apps'], resources: ['replicasets', 'deployments'], verbs: ['get', 'list'] }] : []),
    // The ReplicaSets of Deployments synced whole, mirrored up with their status.
    ...(resources.includes('deployments.apps') && resources.includes('replicasets.apps') && resources.includes('pods') ? [{ apiGroups: ['apps'], resources: ['replicasets', 'replicasets/status'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }] : []),
    // A StatefulSet's claims (volumeClaimTemplates), mirrored up with their status.
    ...(resources.includes('persistentvolumeclaims') && resources.includes('statefulsets.apps') ? [{ apiGroups: [''], resources: ['persistentvolumeclaims', 'persistentvolumeclaims/status'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }] : []),
    // The clusters' revisions of StatefulSets and DaemonSets, mirrored up (syncer/revision-mirror.ts).
    ...(resources.some((r) => r === 'statefulsets.apps' || r === 'daemonsets.apps') ? [{ apiGroups: ['apps'], resources: ['controllerrevisions'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }] : []),
  ];
}

async function upsert(client: RestClient, gvr: { group: string; version: string; resource: string }, obj: KubeObject, cluster: string, namespace?: string): Promise<void> {
  try {
    await client.create(gvr, obj, { cluster, namespace });
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 409)) throw err;
    const cur = await client.get(gvr, obj.metadata!.name!, { cluster, namespace });
    await client.update(gvr, { ...cur, ...obj, metadata: { ...cur.metadata, ...obj.metadata, resourceVersion: cur.metadata?.resourceVersion } }, { cluster, namespace });
  }
}

/** Registers the cluster; returns the multi-document YAML to apply in the physical cluster. */
export async function workloadSync(client: RestClient, o: WorkloadSyncOptions): Promise<string> {
  const log = o.log ?? (() => {});
  const id = syncerId(o.cluster, o.name);
  const resources = o.resources?.length ? o.resources : undefined;
  log(`Creating synctarget "${o.name}"`);
  try {
    await client.create<SyncTarget>(syncTargetsGVR, { apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', metadata: { name: o.name }, spec: resources ? { resources } : {} }, { cluster: o.cluster });
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 409)) throw err;
  }
  const st = await client.get<SyncTarget>(syncTargetsGVR, o.name, { cluster: o.cluster });
  log(`Creating service account "${id}"`);
  await upsert(client, saGVR, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: id, namespace: 'default' } }, o.cluster, 'default');
  log(`Creating cluster role "${id}" to give service account "${id}"\n\n 1. write and sync access to the synctarget "${o.name}"\n 2. write access to apiresourceimports.\n`);
  await upsert(client, crGVR, { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRole', metadata: { name: id }, rules: syncerRules(o.name, st.spec?.resources?.length ? st.spec.resources : defaultSyncedResources) }, o.cluster);
  log(`Creating or updating cluster role binding "${id}" to bind service account "${id}" to cluster role "${id}".`);
  await upsert(client, crbGVR, { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRoleBinding', metadata: { name: id }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: id }, subjects: [{ kind: 'ServiceAccount', name: id, namespace: 'default' }] }, o.cluster);
  const tr = (await client.call('POST', `/clusters/${o.cluster}/api/v1/namespaces/default/serviceaccounts/${id}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 10 * 365 * 24 * 3600 } })) as { status: { token: string } };
  // With its SyncTarget the workspace serves Deployments, Pods, ...: a script may apply one right after.
  await waitForWorkloadTypes(client, o.cluster, { progress: o.progress, timeoutMs: o.waitTimeoutMs });
  return syncerManifest({ id, name: o.name, cluster: o.cluster, serverURL: o.serverURL, caPem: o.caPem, token: tr.status.token, image: o.syncerImage ?? 'ghcr.io/atrium/atrium:latest' });
}

/** The kubeconfig the syncer uses to reach atrium (ServiceAccount token, the SyncTarget's workspace). */
export function syncerKubeconfig(o: { serverURL: string; cluster: string; caPem: string; token: string }): string {
  return YAML.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'upstream', cluster: { server: `${o.serverURL}/clusters/${o.cluster}`, 'certificate-authority-data': Buffer.from(o.caPem).toString('base64') } }],
    users: [{ name: 'syncer', user: { token: o.token } }],
    contexts: [{ name: 'upstream', context: { cluster: 'upstream', user: 'syncer' } }],
    'current-context': 'upstream',
  });
}

/** Namespace, ServiceAccount, ClusterRole(+Binding) for the syncer's downstream access, kubeconfig Secret, Deployment. */
export function syncerManifest(o: { id: string; name: string; cluster: string; serverURL: string; caPem: string; token: string; image: string }): string {
  const ns = o.id;
  const docs: KubeObject[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: o.id, namespace: ns } },
    { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRole', metadata: { name: o.id }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] },
    { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRoleBinding', metadata: { name: o.id }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: o.id }, subjects: [{ kind: 'ServiceAccount', name: o.id, namespace: ns }] },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: o.id, namespace: ns }, stringData: { kubeconfig: syncerKubeconfig(o) } },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: o.id, namespace: ns },
      spec: {
        replicas: 1,
        strategy: { type: 'Recreate' },
        selector: { matchLabels: { app: o.id } },
        template: {
          metadata: { labels: { app: o.id } },
          spec: {
            serviceAccountName: o.id,
            containers: [{ name: 'syncer', image: o.image, command: ['atrium', 'syncer'], args: ['--from-kubeconfig=/atrium/kubeconfig', `--sync-target-name=${o.name}`, `--from-cluster=${o.cluster}`, '--to-kubeconfig=in-cluster'], volumeMounts: [{ name: 'kubeconfig', mountPath: '/atrium', readOnly: true }] }],
            volumes: [{ name: 'kubeconfig', secret: { secretName: o.id, items: [{ key: 'kubeconfig', path: 'kubeconfig' }] } }],
          },
        },
      },
    },
  ];
  return docs.map((d) => YAML.stringify(d)).join('---\n');
}

/** `--delete`: removes the SyncTarget and its RBAC; returns the `kubectl delete` lines for the physical cluster. */
export async function workloadSyncDelete(client: RestClient, o: { name: string; cluster: string; log?(line: string): void }): Promise<string> {
  const id = syncerId(o.cluster, o.name);
  const del = async (gvr: { group: string; version: string; resource: string }, name: string, namespace?: string) => {
    try {
      await client.delete(gvr, name, { cluster: o.cluster, namespace });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  };
  o.log?.(`Deleting synctarget "${o.name}" (held until its syncer has cleaned up the physical cluster)`);
  await del(syncTargetsGVR, o.name);
  await del(crbGVR, id);
  await del(crGVR, id);
  await del(saGVR, id, 'default');
  return `# once the SyncTarget is gone, remove the syncer from the physical cluster:\nkubectl delete namespace ${id}\nkubectl delete clusterrolebinding ${id}\nkubectl delete clusterrole ${id}\n`;
}
