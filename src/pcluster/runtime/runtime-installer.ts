/** Feeds the simulated container runtime the pods as the kubelet stand-in moves them along (container-runtime.ts). */
import type { KubeObject } from '../../apimachinery/object.js';
import type { ControllerInstaller } from '../../controllers/runtime/context.js';
import { podsGVR } from '../controllers/gvrs.js';
import type { ContainerRuntime } from './container-runtime.js';

export function containerRuntimeInstaller(runtime: ContainerRuntime): ControllerInstaller {
  return {
    name: 'container-runtime',
    install(ctx) {
      const pods = ctx.informers.informerFor<KubeObject>(podsGVR);
      pods.addEventHandler({
        add: (pod) => runtime.observe(pod),
        update: (_old, pod) => runtime.observe(pod),
        delete: (pod) => runtime.remove(pod.metadata?.uid ?? ''),
      });
      return {
        name: 'container-runtime',
        start() {},
        async stop() {
          runtime.stop();
        },
      };
    },
  };
}
