/**
 * ValidatingAdmissionPolicies as a feature: admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies and
 * ValidatingAdmissionPolicyBindings served in every logical cluster, the ValidatingAdmissionPolicy admission plugin
 * evaluating a workspace's policies for requests in that workspace (and, as kcp, an APIExport workspace's for the
 * resources bound from it wherever they are bound), and the status writer recording each policy's
 * type checking. The server installs it just before the admission webhooks, so its validating phase runs just
 * before ValidatingAdmissionWebhook's, as upstream orders them.
 *
 * Not served: MutatingAdmissionPolicy (admissionregistration.k8s.io/v1alpha1 in 1.32, off by default upstream).
 */
import type { PluginHost, ServerPlugin } from '../apiserver/plugin.js';
import { PolicyDispatcher } from './dispatcher.js';
import { PolicyCache } from './policies.js';
import { validatingAdmissionPolicies, validatingAdmissionPolicyBindings } from './resources.js';
import { PolicyStatusWriter } from './status.js';

export function admissionPoliciesPlugin(): ServerPlugin {
  return {
    name: 'admission-policies',
    resources: [validatingAdmissionPolicies, validatingAdmissionPolicyBindings],
    async install(host: PluginHost) {
      const lookup = (resource: string) => () => host.registry.lookup('root', 'admissionregistration.k8s.io', 'v1', resource);
      const status = new PolicyStatusWriter(host.registry);
      const cache = new PolicyCache(lookup('validatingadmissionpolicies'), lookup('validatingadmissionpolicybindings'), (cluster, policy) => status.observe(cluster, policy));
      await cache.start();
      const dispatcher = new PolicyDispatcher(host.registry, cache, host.authorizer);
      return {
        admission: [dispatcher.plugin()],
        stop() {
          status.stop();
          cache.stop();
        },
      };
    },
  };
}
