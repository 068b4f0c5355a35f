/**
 * apps/v1 StatefulSets (with /status and /scale), DaemonSets (with /status) and ControllerRevisions, as
 * kube-apiserver 1.32 serves them: upstream's defaults, validation, status and generation handling, short names,
 * categories and printer columns. The controllers that run them are
 * the simulated cluster's (src/pcluster/controllers/statefulset, daemonset); the registry only stores and serves them.
 */
import { type JsonObject, jsonEqual } from '../../../apimachinery/object.js';
import type { ResourceDefinition } from '../../rest.js';
import { defineBuiltin } from '../define.js';
import { defaultDaemonSet, defaultStatefulSet, dropDisabledStatefulSetFields, setTemplateGeneration, templateGeneration } from './apps-defaults.js';
import {
  validateControllerRevision,
  validateControllerRevisionUpdate,
  validateDaemonSet,
  validateSelectorUnchanged,
  validateStatefulSet,
  validateStatefulSetStatus,
  validateStatefulSetUpdate,
} from './apps-validation.js';
import { controllerRevisionPrinter, daemonSetPrinter, statefulSetPrinter } from './kind-printers.js';
import { asObject, fillStatusZeros, keepStatus, scaleDescriptor, statusSubresource, withPrinter } from './kinds-common.js';
import { daemonSetWarnings, statefulSetWarnings } from './pod-warnings.js';

/** The StatefulSetStatus fields Go writes even when zero. */
const statefulSetStatusZeros = { replicas: 0, availableReplicas: 0 };

/** StatefulSetSpec.serviceName has no omitempty: an unset name reads back as "". */
function defaultServiceName(obj: JsonObject): void {
  const spec = asObject(obj.spec);
  if (spec.serviceName === undefined || spec.serviceName === null) spec.serviceName = '';
}

export const statefulSets: ResourceDefinition = withPrinter(
  defineBuiltin({
    group: 'apps',
    version: 'v1',
    resource: 'statefulsets',
    kind: 'StatefulSet',
    namespaced: true,
    shortNames: ['sts'],
    categories: ['all'],
    definitionName: 'io.k8s.api.apps.v1.StatefulSet',
    // Upstream's decoder defaults the body, so the writer's managedFields entry owns what defaulting adds.
    defaults: defaultStatefulSet,
    strategy: {
      metadataRevalidation: 'update',
      // ValidateStatefulSetName: pods are named <set>-<ordinal>, so the set's name must be a DNS label.
      nameValidation: 'label',
      tracksGeneration: true,
      prepareForCreate(obj) {
        obj.status = {};
        fillStatusZeros(obj, statefulSetStatusZeros);
        defaultStatefulSet(obj);
        defaultServiceName(obj);
        dropDisabledStatefulSetFields(obj);
      },
      prepareForUpdate(obj, old) {
        keepStatus(obj, old);
        defaultStatefulSet(obj);
        defaultServiceName(obj);
        dropDisabledStatefulSetFields(obj, old);
      },
      validate: validateStatefulSet,
      validateUpdate: validateStatefulSetUpdate,
      warnings: statefulSetWarnings,
    },
    subresources: [statusSubresource('StatefulSet', statefulSetStatusZeros, validateStatefulSetStatus), scaleDescriptor],
  }),
  statefulSetPrinter,
);

/** The DaemonSetStatus fields Go writes even when zero. */
const daemonSetStatusZeros = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };

export const daemonSets: ResourceDefinition = withPrinter(
  defineBuiltin({
    group: 'apps',
    version: 'v1',
    resource: 'daemonsets',
    kind: 'DaemonSet',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    definitionName: 'io.k8s.api.apps.v1.DaemonSet',
    // Upstream's decoder defaults the body, so the writer's managedFields entry owns what defaulting adds.
    // Decoding goes through the internal type, whose conversion back to apps/v1 always writes the template generation
    // annotation ("0" until the strategy sets it): the writer owns it, as on kube-apiserver.
    defaults: (obj) => {
      defaultDaemonSet(obj);
      if (templateGeneration(obj) === 0) setTemplateGeneration(obj, 0);
    },
    strategy: {
      tracksGeneration: true,
      prepareForCreate(obj) {
        obj.status = {};
        fillStatusZeros(obj, daemonSetStatusZeros);
        defaultDaemonSet(obj);
        // The internal TemplateGeneration (carried in an annotation by apps/v1) starts at 1.
        setTemplateGeneration(obj, Math.max(templateGeneration(obj), 1));
      },
      prepareForUpdate(obj, old) {
        keepStatus(obj, old);
        defaultDaemonSet(obj);
        // The stored template generation wins over the request's, and goes up with every template change.
        const changed = !jsonEqual(asObject(obj.spec).template, asObject(old.spec).template);
        setTemplateGeneration(obj, templateGeneration(old) + (changed ? 1 : 0));
      },
      validate: validateDaemonSet,
      validateUpdate: (obj, old) => [...validateDaemonSet(obj), ...validateSelectorUnchanged(obj, old)],
      warnings: daemonSetWarnings,
    },
    subresources: [statusSubresource('DaemonSet', daemonSetStatusZeros)],
  }),
  daemonSetPrinter,
);

function defaultRevision(obj: JsonObject): void {
  if (obj.revision === undefined || obj.revision === null) obj.revision = 0;
}

export const controllerRevisions: ResourceDefinition = withPrinter(
  defineBuiltin({
    group: 'apps',
    version: 'v1',
    resource: 'controllerrevisions',
    kind: 'ControllerRevision',
    namespaced: true,
    definitionName: 'io.k8s.api.apps.v1.ControllerRevision',
    strategy: {
      // ControllerRevision.revision has no omitempty: an unset revision reads back as 0.
      prepareForCreate: defaultRevision,
      prepareForUpdate: defaultRevision,
      validate: validateControllerRevision,
      validateUpdate: validateControllerRevisionUpdate,
    },
  }),
  controllerRevisionPrinter,
);
