/**
 * Differential conformance of the workload kinds (./workload-kinds.ts): the generated and scripted cases of
 * ./differential.test.ts, for Pods, Deployments, StatefulSets, DaemonSets, ReplicaSets, Jobs, CronJobs,
 * ReplicationControllers, PodTemplates, Services, Endpoints, EndpointSlices, PersistentVolumes and claims,
 * StorageClasses, Ingresses, IngressClasses, NetworkPolicies, HorizontalPodAutoscalers and PodDisruptionBudgets, sent
 * to kube-apiserver v1.32.4 and to a simulated cluster's API without its controllers (on SQLite and on etcd). The
 * ratchet is known-differences.ts's workload list.
 */
process.env.ATRIUM_DIFF_KINDS = 'workloads';
await import('./differential.test.js');
