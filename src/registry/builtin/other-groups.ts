import * as fe from '../../apimachinery/field-errors.js';
import type { FieldError } from '../../apimachinery/field-errors.js';
import { type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import type { ResourceDefinition } from '../rest.js';
import { defineBuiltin } from './define.js';
import { coreToEventsV1, eventsV1ToCore } from './event-conversion.js';
import { certificateSigningRequests } from './certificates/resources.js';

function eventsV1Fields(obj: KubeObject): Record<string, string> {
  const reg = (obj.regarding ?? {}) as Record<string, unknown>;
  return {
    'regarding.kind': String(reg.kind ?? ''),
    'regarding.namespace': String(reg.namespace ?? ''),
    'regarding.name': String(reg.name ?? ''),
    'regarding.uid': String(reg.uid ?? ''),
    'regarding.apiVersion': String(reg.apiVersion ?? ''),
    'regarding.resourceVersion': String(reg.resourceVersion ?? ''),
    'regarding.fieldPath': String(reg.fieldPath ?? ''),
    reason: String(obj.reason ?? ''),
    reportingController: String(obj.reportingController ?? ''),
    type: String(obj.type ?? ''),
  };
}

const eventsV1 = defineBuiltin({
  group: 'events.k8s.io',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  definitionName: 'io.k8s.api.events.v1.Event',
  strategy: { allowCreateOnUpdate: true, selectableFields: eventsV1Fields },
});
// One storage for both Event APIs (see event-conversion.ts).
eventsV1.storage = { group: '', resource: 'events', toStorage: eventsV1ToCore, fromStorage: coreToEventsV1 };

const leases = defineBuiltin({
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  kind: 'Lease',
  namespaced: true,
  definitionName: 'io.k8s.api.coordination.v1.Lease',
  // AllowCreateOnUpdate is true for Leases upstream: a PUT of a missing one creates it.
  strategy: { allowCreateOnUpdate: true, validate: validateLeaseSpec, validateUpdate: (obj) => validateLeaseSpec(obj) },
});

/** ValidateLeaseSpec (pkg/apis/coordination/validation): the counters it bounds are only checked when set. */
function validateLeaseSpec(obj: KubeObject): FieldError[] {
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  const errs: FieldError[] = [];
  const duration = spec.leaseDurationSeconds;
  if (typeof duration === 'number' && duration <= 0) errs.push(fe.invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  const transitions = spec.leaseTransitions;
  if (typeof transitions === 'number' && transitions < 0) {
    errs.push(fe.invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  }
  return errs;
}

/** Served in every logical cluster, root included, and by `atrium pcluster` (both start through startServer). */
export const otherGroupResources: ResourceDefinition[] = [eventsV1, leases, certificateSigningRequests];
