/**
 * core/v1 ReplicationControllers (with /status and /scale), Endpoints and PodTemplates, as kube-apiserver 1.32 serves
 * them (pkg/registry/core/replicationcontroller, endpoint, podtemplate). Running a replication controller's pods is
 * a controller's job, not the registry's: objects are stored and served.
 */
import { type KubeObject, isPlainObject } from '../../../apimachinery/object.js';
import type { SubresourceStrategy } from '../../rest.js';
import { defineBuiltin, statusAndMetadata } from '../define.js';
import { defaultEndpoints, defaultPodTemplateObject, defaultReplicationController } from './core-networking-defaults.js';
import { endpointsPrinter, podTemplatePrinter, replicationControllerPrinter } from './core-networking-printers.js';
import { validateEndpoints, validatePodTemplate, validateReplicationController, validateReplicationControllerStatus } from './core-more-validation.js';
import { scaleOf, scaleSubresource } from './scale.js';
import { isDNS1123Label } from '../../../apimachinery/validation/names.js';
import { podTemplateKindWarnings, replicationControllerWarnings } from './pod-warnings.js';

/** A replication controller's Scale: its selector is a label map, printed as `k=v,...` in status.selector. */
const replicationControllerScale: SubresourceStrategy = {
  ...scaleSubresource,
  view(parent: KubeObject): KubeObject {
    const spec = isPlainObject(parent.spec) ? parent.spec : {};
    const matchLabels = isPlainObject(spec.selector) ? spec.selector : {};
    return scaleOf({ ...parent, spec: { ...spec, selector: { matchLabels } } });
  },
};

export const replicationControllers = defineBuiltin({
  group: '',
  version: 'v1',
  resource: 'replicationcontrollers',
  kind: 'ReplicationController',
  namespaced: true,
  shortNames: ['rc'],
  categories: ['all'],
  definitionName: 'io.k8s.api.core.v1.ReplicationController',
  // Upstream's decoder defaults the body, so the writer's managedFields entry owns what defaulting adds.
  defaults: defaultReplicationController,
  strategy: {
    tracksGeneration: true,
    prepareForCreate(obj) {
      obj.status = { replicas: 0 };
      defaultReplicationController(obj);
    },
    prepareForUpdate(obj, old) {
      obj.status = structuredClone(old.status ?? { replicas: 0 });
      defaultReplicationController(obj);
    },
    validate: validateReplicationController,
    warnings: replicationControllerWarnings,
    // core/v1 orphans a ReplicationController's pods unless the DELETE says otherwise (rc strategy
    // DefaultGarbageCollectionPolicy; kubectl sends Background).
    defaultGarbageCollectionPolicy: 'OrphanDependents',
    selectableFields: (obj) => ({ 'status.replicas': String((isPlainObject(obj.status) && typeof obj.status.replicas === 'number' ? obj.status.replicas : 0)) }),
  },
  subresources: [
    { name: 'status', kind: 'ReplicationController', verbs: ['get', 'patch', 'update'], strategy: { ...statusAndMetadata, validate: (obj, old) => [...(statusAndMetadata.validate?.(obj, old) ?? []), ...validateReplicationControllerStatus(obj)] } },
    { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'], strategy: replicationControllerScale },
  ],
  printer: replicationControllerPrinter,
});

export const endpoints = defineBuiltin({
  group: '',
  version: 'v1',
  resource: 'endpoints',
  kind: 'Endpoints',
  singular: 'endpoints',
  namespaced: true,
  shortNames: ['ep'],
  definitionName: 'io.k8s.api.core.v1.Endpoints',
  strategy: {
    // The endpoints controller writes Endpoints with PUT whether or not they exist (endpointsStrategy).
    allowCreateOnUpdate: true,
    prepareForCreate: defaultEndpoints,
    prepareForUpdate: (obj) => defaultEndpoints(obj),
    validate: validateEndpoints,
  },
  printer: endpointsPrinter,
});

export const podTemplates = defineBuiltin({
  group: '',
  version: 'v1',
  resource: 'podtemplates',
  kind: 'PodTemplate',
  namespaced: true,
  definitionName: 'io.k8s.api.core.v1.PodTemplate',
  // Upstream's decoder defaults the body, so the writer's managedFields entry owns what defaulting adds.
  defaults: defaultPodTemplateObject,
  strategy: {
    metadataRevalidation: 'update',
    // Its REST answers a DELETE with the object (ReturnDeletedObject), not a Status.
    returnDeletedObject: true,
    tracksGeneration: true,
    prepareForCreate: defaultPodTemplateObject,
    prepareForUpdate: (obj) => defaultPodTemplateObject(obj),
    validate: validatePodTemplate,
    warnings: podTemplateKindWarnings,
  },
  printer: podTemplatePrinter,
});
