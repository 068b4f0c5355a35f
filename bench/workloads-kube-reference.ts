/**
 * The reference beside the workloads figure (bench/workloads.ts): the same app instances' applies — each app's objects
 * one after the other by server-side apply, all apps at once — against kube-apiserver v1.32.4 on etcd 3.5.16 alone,
 * on the same machine after the fleet is gone. No controllers and no clusters run there (ServiceAccount admission is
 * off, as nothing creates the namespaces' default ServiceAccounts), so this is a lower bound of what the applies
 * alone cost on the real thing: the part of the 1 s budget that applying the apps takes before anything is placed.
 *
 * Uses the binaries bench/kube/build-anchors.sh caches (bench/kube.ts starts them); skipped, with a line saying so,
 * when kube-apiserver is not built (`npm run bench -- kube` builds it).
 */
import { RestClient } from '../src/client/rest-client.js';
import { kubeApiserverBuilt, startKubeApiserver } from './kube.js';

export interface ApplyTimes {
  /** Per app, from its first apply sent to its last one answered, ms. */
  perApp: number[];
  /** From the first apply sent to the last one answered, ms. */
  totalMs: number;
}

/**
 * Starts kube-apiserver, runs `applyAll` against it (a client of its admin kubeconfig), and stops it; undefined when
 * the binaries are not built.
 */
export async function applyToKubeApiserver(applyAll: (client: RestClient) => Promise<ApplyTimes>): Promise<ApplyTimes | undefined> {
  if (!kubeApiserverBuilt()) {
    console.log('workloads: no kube-apiserver reference: it is not built (npm run bench -- kube builds it)');
    return undefined;
  }
  console.log('workloads: reference: starting kube-apiserver v1.32.4 on etcd 3.5.16 (bench/kube/start-kube-apiserver.sh)');
  const kas = startKubeApiserver('--disable-admission-plugins=ServiceAccount');
  let client: RestClient | undefined;
  try {
    client = await RestClient.fromKubeconfig(kas.kubeconfig, { userAgent: 'kubectl/v1.32.4' });
    console.log('workloads: reference: applying the same apps to kube-apiserver');
    return await applyAll(client);
  } finally {
    client?.close();
    await kas.stop();
  }
}
