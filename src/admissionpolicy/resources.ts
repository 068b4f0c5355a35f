/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (with its status subresource) and
 * ValidatingAdmissionPolicyBinding, served in every logical cluster: cluster-scoped, defaulted and validated as
 * kube-apiserver 1.32 (pkg/registry/admissionregistration/validatingadmissionpolicy{,binding}/strategy.go), printed
 * as upstream prints them (NAME VALIDATIONS PARAMKIND AGE; NAME POLICYNAME PARAMREF AGE). A policy's generation
 * moves with its spec; the main endpoint keeps the stored status and /status changes only the status.
 *
 * Deliberate difference: creating or updating a binding or a policy with a paramKind is not authorized against the
 * policy or the param resource (upstream's strategy checks `get` on the param kind for the requesting user).
 */
import type { KubeObject } from '../apimachinery/object.js';
import type { ResourceDefinition } from '../registry/rest.js';
import { defineBuiltin, statusOnly } from '../registry/builtin/define.js';
import { defaultBinding, defaultPolicy, validateBinding, validatePolicy, validatePolicyStatus } from './validation.js';

export const validatingAdmissionPolicies: ResourceDefinition = defineBuiltin({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'validatingadmissionpolicies',
  kind: 'ValidatingAdmissionPolicy',
  namespaced: false,
  categories: ['api-extensions'],
  definitionName: 'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy',
  subresources: [{ name: 'status', kind: 'ValidatingAdmissionPolicy', verbs: ['get', 'patch', 'update'], strategy: { ...statusOnly, validate: (o) => validatePolicyStatus(o) } }],
  strategy: {
    tracksGeneration: true,
    prepareForCreate: (o: KubeObject) => {
      delete o.status;
      defaultPolicy(o);
    },
    prepareForUpdate: (o: KubeObject, old: KubeObject) => {
      if (old.status === undefined) delete o.status;
      else o.status = old.status;
      defaultPolicy(o);
    },
    validate: validatePolicy,
    validateUpdate: (o) => validatePolicy(o),
  },
});

export const validatingAdmissionPolicyBindings: ResourceDefinition = defineBuiltin({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'validatingadmissionpolicybindings',
  kind: 'ValidatingAdmissionPolicyBinding',
  namespaced: false,
  categories: ['api-extensions'],
  definitionName: 'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding',
  strategy: {
    tracksGeneration: true,
    prepareForCreate: defaultBinding,
    prepareForUpdate: (o: KubeObject) => defaultBinding(o),
    validate: validateBinding,
    validateUpdate: (o) => validateBinding(o),
  },
});
