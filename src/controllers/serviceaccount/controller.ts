/**
 * The ServiceAccounts controller: every active namespace, in every logical cluster, has a `default` ServiceAccount;
 * one that is deleted comes back. Terminating namespaces are left alone.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import type { GroupVersionResource } from '../../client/resource.js';
import { formatObjectKey, parseObjectKey } from '../../client/store.js';
import { Controller } from '../runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../runtime/context.js';
import { isBenignCreateError, namespaceIsActive, namespaceKey, namespaceKeyOfObject } from '../runtime/namespace-scoped.js';

const serviceAccountsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'serviceaccounts' };
const namespacesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };
export const defaultServiceAccountName = 'default';

export const serviceAccountControllerInstaller: ControllerInstaller = {
  name: 'serviceaccount',
  install(ctx: ControllerContext): RunningController {
    const namespaces = ctx.informers.informerFor(namespacesGVR, { cluster: '*' });
    const accounts = ctx.informers.informerFor(serviceAccountsGVR, { cluster: '*', fieldSelector: `metadata.name=${defaultServiceAccountName}` });

    const controller = new Controller<string>({
      name: 'serviceaccount',
      workers: 2,
      async reconcile(key) {
        const { cluster, name } = parseObjectKey(key);
        if (!namespaceIsActive(namespaces.lister.get(key))) return;
        if (accounts.lister.get(formatObjectKey({ cluster, namespace: name, name: defaultServiceAccountName }))) return;
        const sa: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: defaultServiceAccountName, namespace: name } };
        try {
          await ctx.client.create(serviceAccountsGVR, sa, { cluster });
        } catch (err) {
          if (!isBenignCreateError(err)) throw err;
        }
      },
    });
    const onNamespace = (ns: KubeObject) => controller.enqueue(namespaceKey(ns));
    namespaces.addEventHandler({ add: onNamespace, update: (_o, ns) => onNamespace(ns) });
    accounts.addEventHandler({ delete: (sa) => controller.enqueue(namespaceKeyOfObject(sa)) });
    return {
      name: 'serviceaccount',
      start() {
        // Decide from complete caches, or every namespace would look like it lacks its object. Not awaited: the
        // manager must not hold up the server while caches fill.
        void Promise.all([namespaces.waitForSync(), accounts.waitForSync()]).then(() => controller.start());
      },
      stop: () => controller.stop(),
    };
  },
};
