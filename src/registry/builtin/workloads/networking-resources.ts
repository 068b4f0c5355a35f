/**
 * networking.k8s.io/v1 Ingresses (with /status), IngressClasses and NetworkPolicies, as kube-apiserver 1.32 serves
 * them (pkg/registry/networking/ingress, ingressclass, networkpolicy): generation follows spec changes; an Ingress's
 * status is reset on create, kept on update and written through /status only. Implementing ingresses and policies
 * is a controller's job, not the registry's.
 */
import { isPlainObject } from '../../../apimachinery/object.js';
import { defineBuiltin, statusAndMetadata } from '../define.js';
import { defaultIngressClass, defaultNetworkPolicy } from './core-networking-defaults.js';
import { ingressClassPrinter, ingressPrinter, networkPolicyPrinter } from './core-networking-printers.js';
import {
  ingressWarnings,
  validateIngressClass,
  validateIngressClassUpdate,
  validateIngressCreate,
  validateIngressStatus,
  validateIngressUpdate,
  validateNetworkPolicy,
} from './networking-validation.js';

export const ingresses = defineBuiltin({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'ingresses',
  kind: 'Ingress',
  namespaced: true,
  shortNames: ['ing'],
  definitionName: 'io.k8s.api.networking.v1.Ingress',
  strategy: {
    tracksGeneration: true,
    prepareForCreate(obj) {
      // IngressStatus{} serialises with its (non-pointer) loadBalancer struct.
      obj.status = { loadBalancer: {} };
    },
    prepareForUpdate(obj, old) {
      obj.status = isPlainObject(old.status) ? structuredClone(old.status) : { loadBalancer: {} };
    },
    validate: validateIngressCreate,
    validateUpdate: validateIngressUpdate,
    warnings: (obj, old) => (old ? [] : ingressWarnings(obj)),
  },
  subresources: [{ name: 'status', kind: 'Ingress', verbs: ['get', 'patch', 'update'], strategy: { ...statusAndMetadata, validate: (obj, old) => [...(statusAndMetadata.validate?.(obj, old) ?? []), ...validateIngressStatus(obj)] } }],
  printer: ingressPrinter,
});

export const ingressClasses = defineBuiltin({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'ingressclasses',
  kind: 'IngressClass',
  namespaced: false,
  definitionName: 'io.k8s.api.networking.v1.IngressClass',
  strategy: {
    tracksGeneration: true,
    prepareForCreate: defaultIngressClass,
    prepareForUpdate: (obj) => defaultIngressClass(obj),
    validate: validateIngressClass,
    validateUpdate: validateIngressClassUpdate,
  },
  printer: ingressClassPrinter,
});

export const networkPolicies = defineBuiltin({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'networkpolicies',
  kind: 'NetworkPolicy',
  namespaced: true,
  shortNames: ['netpol'],
  definitionName: 'io.k8s.api.networking.v1.NetworkPolicy',
  strategy: {
    tracksGeneration: true,
    prepareForCreate: defaultNetworkPolicy,
    prepareForUpdate: (obj) => defaultNetworkPolicy(obj),
    validate: validateNetworkPolicy,
  },
  printer: networkPolicyPrinter,
});
