/**
 * admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration and MutatingWebhookConfiguration, served in every
 * logical cluster as kcp does (cluster-scoped, defaulted and validated as kube-apiserver 1.32, `kubectl get` shows
 * NAME, WEBHOOKS, AGE). Their strategy tracks generation (upstream bumps it when webhooks change).
 */
import type { ResourceDefinition } from '../registry/rest.js';
import { defineBuiltin } from '../registry/builtin/define.js';
import { type WebhookKind, defaultWebhookConfiguration, validateWebhookConfiguration } from './validation.js';

function webhookConfigurations(kind: WebhookKind): ResourceDefinition {
  const resource = `${kind.toLowerCase()}webhookconfigurations`;
  return defineBuiltin({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource,
    kind: `${kind}WebhookConfiguration`,
    namespaced: false,
    categories: ['api-extensions'],
    definitionName: `io.k8s.api.admissionregistration.v1.${kind}WebhookConfiguration`,
    strategy: {
      tracksGeneration: true,
      prepareForCreate: (obj) => defaultWebhookConfiguration(obj, kind),
      prepareForUpdate: (obj) => defaultWebhookConfiguration(obj, kind),
      validate: (obj) => validateWebhookConfiguration(obj, kind),
      validateUpdate: (obj) => validateWebhookConfiguration(obj, kind),
    },
  });
}

export const validatingWebhookConfigurations = webhookConfigurations('Validating');
export const mutatingWebhookConfigurations = webhookConfigurations('Mutating');
