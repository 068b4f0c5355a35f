/**
 * discovery.k8s.io/v1 EndpointSlices, as kube-apiserver 1.32 serves them (pkg/registry/discovery/endpointslice):
 * generation tracks every change outside metadata; the v1 API drops writes to endpoints' deprecatedTopology, keeping
 * a node name it carried before in nodeName.
 *
 * Difference: upstream also bumps generation when only the labels change; atrium's generic store counts spec changes
 * only.
 */
import { type JsonObject, type KubeObject, isPlainObject, jsonEqual } from '../../../apimachinery/object.js';
import { isDNS1123Subdomain } from '../../../apimachinery/validation/names.js';
import { defineBuiltin } from '../define.js';
import { defaultEndpointSlice } from './core-networking-defaults.js';
import { endpointSlicePrinter } from './core-networking-printers.js';
import { endpointSliceWarnings, validateEndpointSlice, validateEndpointSliceUpdate } from './core-more-validation.js';

const HOSTNAME_LABEL = 'kubernetes.io/hostname';

function endpointsOf(obj: KubeObject | undefined): JsonObject[] {
  return obj && Array.isArray(obj.endpoints) ? obj.endpoints.filter(isPlainObject) : [];
}

/** dropTopologyOnV1: deprecatedTopology is read-only through v1. */
function dropTopology(obj: KubeObject, old?: KubeObject): void {
  if (old && jsonEqual(old.endpoints ?? null, obj.endpoints ?? null)) return;
  const previousNodes = new Set(endpointsOf(old).flatMap((e) => (isPlainObject(e.deprecatedTopology) && typeof e.deprecatedTopology[HOSTNAME_LABEL] === 'string' ? [e.deprecatedTopology[HOSTNAME_LABEL] as string] : [])));
  for (const endpoint of endpointsOf(obj)) {
    const topology = isPlainObject(endpoint.deprecatedTopology) ? endpoint.deprecatedTopology : {};
    const node = topology[HOSTNAME_LABEL];
    if ((endpoint.nodeName === undefined || endpoint.nodeName === null) && typeof node === 'string' && previousNodes.has(node) && isDNS1123Subdomain(node).length === 0) endpoint.nodeName = node;
    delete endpoint.deprecatedTopology;
  }
}

export const endpointSlices = defineBuiltin({
  group: 'discovery.k8s.io',
  version: 'v1',
  resource: 'endpointslices',
  kind: 'EndpointSlice',
  namespaced: true,
  definitionName: 'io.k8s.api.discovery.v1.EndpointSlice',
  strategy: {
    metadataRevalidation: 'update',
    tracksGeneration: true,
    prepareForCreate(obj) {
      defaultEndpointSlice(obj);
      dropTopology(obj);
    },
    prepareForUpdate(obj, old) {
      defaultEndpointSlice(obj);
      dropTopology(obj, old);
    },
    validate: validateEndpointSlice,
    validateUpdate: validateEndpointSliceUpdate,
    warnings: (obj, old) => (old ? [] : endpointSliceWarnings(obj)),
  },
  printer: endpointSlicePrinter,
});
