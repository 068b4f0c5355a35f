/**
 * metrics.k8s.io/v1beta1 as metrics-server's APIService presents it in kube-apiserver's discovery: PodMetrics
 * (namespaced) and NodeMetrics (cluster-scoped), read-only (get and list). Nothing of them is stored: whoever serves
 * them answers every request from a connect handler (the simulated cluster from its simulation, a workspace with
 * compute from its clusters'); the definitions exist for discovery, OpenAPI, RBAC and the router.
 */
import type { ResourceDefinition } from '../rest.js';
import { defineBuiltin } from './define.js';

export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_VERSION = 'v1beta1';

export const podMetricsResource: ResourceDefinition = defineBuiltin({
  group: METRICS_GROUP,
  version: METRICS_VERSION,
  resource: 'pods',
  kind: 'PodMetrics',
  singular: 'podmetrics',
  namespaced: true,
  verbs: ['get', 'list'],
  definitionName: 'io.k8s.metrics.pkg.apis.metrics.v1beta1.PodMetrics',
  schema: { description: 'PodMetrics sets resource usage metrics of a pod.' },
});

export const nodeMetricsResource: ResourceDefinition = defineBuiltin({
  group: METRICS_GROUP,
  version: METRICS_VERSION,
  resource: 'nodes',
  kind: 'NodeMetrics',
  singular: 'nodemetrics',
  namespaced: false,
  verbs: ['get', 'list'],
  definitionName: 'io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics',
  schema: { description: 'NodeMetrics sets resource usage metrics of a node.' },
});
