/**
 * Admission webhooks as a feature: admissionregistration.k8s.io/v1 ValidatingWebhookConfigurations and
 * MutatingWebhookConfigurations served in every logical cluster, and the MutatingAdmissionWebhook and
 * ValidatingAdmissionWebhook plugins that call the webhooks a workspace configures for requests in that workspace
 * (kcp's admission plugins: a resource bound from an APIExport is reviewed by the export workspace's webhooks).
 * The server installs it after every other feature, so its mutating phase runs after theirs and before
 * ResourceQuota, as upstream orders them.
 */
import type { PluginHost, ServerPlugin } from '../apiserver/plugin.js';
import { WebhookClient } from '../apiserver/webhook/client.js';
import { WebhookConfigurations } from './configurations.js';
import { WebhookDispatcher } from './dispatcher.js';
import { mutatingWebhookConfigurations, validatingWebhookConfigurations } from './resources.js';

export function admissionWebhooksPlugin(): ServerPlugin {
  return {
    name: 'admission-webhooks',
    resources: [validatingWebhookConfigurations, mutatingWebhookConfigurations],
    async install(host: PluginHost) {
      const client = new WebhookClient(host.registry);
      const lookup = (resource: string) => () => host.registry.lookup('root', 'admissionregistration.k8s.io', 'v1', resource);
      const mutating = new WebhookConfigurations(lookup('mutatingwebhookconfigurations'), 'mutating webhook configurations');
      const validating = new WebhookConfigurations(lookup('validatingwebhookconfigurations'), 'validating webhook configurations');
      await mutating.start();
      await validating.start();
      const dispatcher = new WebhookDispatcher(host.registry, client);
      return {
        admission: [dispatcher.mutating(mutating), dispatcher.validating(validating)],
        stop() {
          mutating.stop();
          validating.stop();
          client.close();
        },
      };
    },
  };
}
