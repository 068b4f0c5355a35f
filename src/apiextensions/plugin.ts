/**
 * CustomResourceDefinitions as a plugin: the CRD resource, the source that serves every Established CRD's custom
 * resources, the CRD controller (in-process over storage, so discovery reflects an Established CRD in the same tick),
 * and the admission that keeps negotiated CRDs to the system.
 */
import type { ServerPlugin } from '../apiserver/plugin.js';
import type { ControllerGate } from '../controllers/controller-gate.js';
import { ReservedCRDAnnotations } from './admission/reserved-crd-annotations.js';
import { CRDController } from './controller/crd-controller.js';
import { customResourceDefinitions } from './registry/custom-resource-definitions.js';
import { CustomResourceSource } from './serving/custom-resource-source.js';

/** `gate` holds the CRD controller to the replica that runs controllers (the Lease holder on etcd). */
export function apiextensionsPlugin(gate: ControllerGate): ServerPlugin {
  return {
    name: 'apiextensions',
    resources: [customResourceDefinitions],
    async install({ registry }) {
      const customResources = new CustomResourceSource(registry);
      registry.addSource(customResources);
      const controller = new CRDController(registry, customResources, gate);
      await controller.start();
      // ReservedCRDAnnotations: only system:masters (the negotiation controller) may write negotiated CRDs.
      return {
        admission: [new ReservedCRDAnnotations(registry)],
        stop: async () => {
          await controller.stop();
          customResources.close();
        },
      };
    },
  };
}
