import { errors } from '../../apimachinery/status.js';
import type { GenericStore } from '../../registry/generic/store.js';
import { immortalNamespaces } from '../../registry/builtin/core.js';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';

/**
 * NamespaceLifecycle (kube-apiserver plugin/pkg/admission/namespace/lifecycle): namespaced objects may only be created in
 * a namespace that exists and is not terminating, and the system namespaces may not be deleted.
 */
export class NamespaceLifecycle implements AdmissionPlugin {
  readonly name = 'NamespaceLifecycle';
  constructor(private readonly namespaces: GenericStore) {}

  async admit(a: AdmissionAttributes): Promise<void> {
    const gr = { group: a.def.group, resource: a.def.resource };
    if (a.def.group === '' && a.def.resource === 'namespaces') {
      if (a.operation === 'DELETE' && immortalNamespaces.includes(a.name)) {
        throw errors.forbidden(gr, a.name, 'this namespace may not be deleted');
      }
      return;
    }
    if (!a.def.namespaced || a.operation !== 'CREATE') return;
    let ns;
    try {
      ns = await this.namespaces.get(a.ctx, '', a.namespace);
    } catch (err) {
      if ((err as { code?: number }).code === 404) throw errors.notFound({ group: '', resource: 'namespaces' }, a.namespace);
      throw err;
    }
    const phase = (ns.status as { phase?: string } | undefined)?.phase;
    if (phase === 'Terminating' || ns.metadata?.deletionTimestamp) {
      throw errors.forbidden(gr, a.name, `unable to create new content in namespace ${a.namespace} because it is being terminated`, [
        { reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is terminating`, field: 'metadata.namespace' },
      ]);
    }
  }
}
