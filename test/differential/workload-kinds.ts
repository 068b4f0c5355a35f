/**
 * The workload kinds for the differential suite (ATRIUM_DIFF_KINDS=workloads): what kube-apiserver serves and atrium
 * serves in a compute workspace and on `atrium pcluster` — compared against a pcluster's API without its controllers
 * (./targets.ts). Each valid object names what kube-apiserver's default admission would otherwise fill in differently
 * on the two (a storage or ingress class; no service account token volume, whose name is random).
 */
import { NS, type KindUnderTest } from './kind-types.js';

const labels = { app: 'diff' };
const container = { name: 'c', image: 'nginx:1.27', ports: [{ containerPort: 80 }] };
const podSpec = (extra: Record<string, unknown> = {}) => ({ containers: [container], automountServiceAccountToken: false, ...extra });
const template = (extra: Record<string, unknown> = {}) => ({ metadata: { labels }, spec: podSpec(extra) });
const ns = (name: string) => ({ name, namespace: NS });

export const WORKLOAD_KINDS: KindUnderTest[] = [
  {
    kind: 'Pod', apiVersion: 'v1', resource: 'pods', namespaced: true, type: 'io.k8s.api.core.v1.Pod',
    valid: (name) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { ...ns(name), labels }, spec: podSpec() }),
  },
  {
    kind: 'Deployment', apiVersion: 'apps/v1', resource: 'deployments', namespaced: true, type: 'io.k8s.api.apps.v1.Deployment',
    valid: (name) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: ns(name), spec: { replicas: 2, selector: { matchLabels: labels }, template: template() } }),
  },
  {
    kind: 'StatefulSet', apiVersion: 'apps/v1', resource: 'statefulsets', namespaced: true, type: 'io.k8s.api.apps.v1.StatefulSet',
    valid: (name) => ({
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: ns(name),
      spec: {
        serviceName: 'db', replicas: 1, selector: { matchLabels: labels }, template: template(),
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '1Gi' } } } }],
      },
    }),
  },
  {
    kind: 'DaemonSet', apiVersion: 'apps/v1', resource: 'daemonsets', namespaced: true, type: 'io.k8s.api.apps.v1.DaemonSet',
    valid: (name) => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: ns(name), spec: { selector: { matchLabels: labels }, template: template() } }),
  },
  {
    kind: 'ReplicaSet', apiVersion: 'apps/v1', resource: 'replicasets', namespaced: true, type: 'io.k8s.api.apps.v1.ReplicaSet',
    valid: (name) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: ns(name), spec: { replicas: 1, selector: { matchLabels: labels }, template: template() } }),
  },
  {
    kind: 'Job', apiVersion: 'batch/v1', resource: 'jobs', namespaced: true, type: 'io.k8s.api.batch.v1.Job',
    // manualSelector: the generated selector carries the Job's uid, which differs between the servers.
    valid: (name) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: ns(name), spec: { manualSelector: true, selector: { matchLabels: labels }, backoffLimit: 2, template: template({ restartPolicy: 'Never' }) } }),
  },
  {
    kind: 'CronJob', apiVersion: 'batch/v1', resource: 'cronjobs', namespaced: true, type: 'io.k8s.api.batch.v1.CronJob',
    valid: (name) => ({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: ns(name), spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: template({ restartPolicy: 'OnFailure' }) } } } }),
  },
  {
    kind: 'ReplicationController', apiVersion: 'v1', resource: 'replicationcontrollers', namespaced: true, type: 'io.k8s.api.core.v1.ReplicationController',
    valid: (name) => ({ apiVersion: 'v1', kind: 'ReplicationController', metadata: ns(name), spec: { replicas: 1, selector: labels, template: template() } }),
  },
  {
    kind: 'PodTemplate', apiVersion: 'v1', resource: 'podtemplates', namespaced: true, type: 'io.k8s.api.core.v1.PodTemplate',
    valid: (name) => ({ apiVersion: 'v1', kind: 'PodTemplate', metadata: ns(name), template: template() }),
  },
  {
    kind: 'Service', apiVersion: 'v1', resource: 'services', namespaced: true, type: 'io.k8s.api.core.v1.Service',
    // Headless: an allocated cluster IP comes from each server's own range.
    valid: (name) => ({ apiVersion: 'v1', kind: 'Service', metadata: ns(name), spec: { clusterIP: 'None', selector: labels, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } }),
  },
  {
    kind: 'Endpoints', apiVersion: 'v1', resource: 'endpoints', namespaced: true, type: 'io.k8s.api.core.v1.Endpoints',
    valid: (name) => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: ns(name), subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }] }),
  },
  {
    kind: 'EndpointSlice', apiVersion: 'discovery.k8s.io/v1', resource: 'endpointslices', namespaced: true, type: 'io.k8s.api.discovery.v1.EndpointSlice',
    valid: (name) => ({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: ns(name), addressType: 'IPv4', endpoints: [{ addresses: ['10.1.2.3'], conditions: { ready: true } }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }),
  },
  {
    kind: 'PersistentVolumeClaim', apiVersion: 'v1', resource: 'persistentvolumeclaims', namespaced: true, type: 'io.k8s.api.core.v1.PersistentVolumeClaim',
    valid: (name) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: ns(name), spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '1Gi' } } } }),
  },
  {
    kind: 'PersistentVolume', apiVersion: 'v1', resource: 'persistentvolumes', namespaced: false, type: 'io.k8s.api.core.v1.PersistentVolume',
    valid: (name) => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'fast', hostPath: { path: '/data' } } }),
  },
  {
    kind: 'StorageClass', apiVersion: 'storage.k8s.io/v1', resource: 'storageclasses', namespaced: false, type: 'io.k8s.api.storage.v1.StorageClass',
    valid: (name) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'example.com/disk', parameters: { type: 'ssd' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' }),
  },
  {
    kind: 'Ingress', apiVersion: 'networking.k8s.io/v1', resource: 'ingresses', namespaced: true, type: 'io.k8s.api.networking.v1.Ingress',
    valid: (name) => ({
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: ns(name),
      spec: { ingressClassName: 'web', rules: [{ host: 'shop.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
    }),
  },
  {
    kind: 'IngressClass', apiVersion: 'networking.k8s.io/v1', resource: 'ingressclasses', namespaced: false, type: 'io.k8s.api.networking.v1.IngressClass',
    valid: (name) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name }, spec: { controller: 'example.com/ingress' } }),
  },
  {
    kind: 'NetworkPolicy', apiVersion: 'networking.k8s.io/v1', resource: 'networkpolicies', namespaced: true, type: 'io.k8s.api.networking.v1.NetworkPolicy',
    valid: (name) => ({
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: ns(name),
      spec: { podSelector: { matchLabels: labels }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { role: 'front' } } }], ports: [{ protocol: 'TCP', port: 80 }] }] },
    }),
  },
  {
    kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v2', resource: 'horizontalpodautoscalers', namespaced: true, type: 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler',
    valid: (name) => ({
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: ns(name),
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }] },
    }),
  },
  {
    kind: 'PodDisruptionBudget', apiVersion: 'policy/v1', resource: 'poddisruptionbudgets', namespaced: true, type: 'io.k8s.api.policy.v1.PodDisruptionBudget',
    valid: (name) => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: ns(name), spec: { minAvailable: 1, selector: { matchLabels: labels } } }),
  },
  // No LimitRange or ResourceQuota: one stored in the shared namespace would change (LimitRanger) or, with no quota
  // controller to compute its status, refuse (kube-apiserver's ResourceQuota admission) the other cases' pods.
];
