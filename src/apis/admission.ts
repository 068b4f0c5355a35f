/**
 * kcp's admission for apis.kcp.io (pkg/admission/apibinding, crdnooverlappinggvr):
 *
 * - APIBinding: creating one, or changing its reference, needs verb `bind` on the APIExport (`apiexports`, by name)
 *   in the export's workspace; otherwise 403 with kcp's message, the same whether the export exists or not
 *   ("unable to create APIBinding: no permission to bind to export root:provider:widgets"). The binding is labelled
 *   `internal.apis.kcp.io/export` with the hash of the export's logical cluster and name.
 * - CustomResourceDefinition: a CRD of a group and resource an APIBinding of the workspace has bound is refused
 *   ("cannot create because resource is bound by APIBinding "..."").
 */
import type { AdmissionAttributes, AdmissionPlugin } from '../apiserver/admission/admission.js';
import { type Authorizer, resourceAttributes } from '../apiserver/authorization.js';
import { errors } from '../apimachinery/status.js';
import type { BoundAPIs } from './bound-apis.js';
import { APIS_GROUP, EXPORT_LABEL, exportLabelValue, type APIBinding } from './types.js';

export class APIBindingAdmission implements AdmissionPlugin {
  readonly name = 'apis.kcp.io/APIBinding';

  constructor(
    private readonly bound: BoundAPIs,
    private readonly authorizer: Authorizer,
    private readonly resolvePath: (path: string) => string | undefined,
  ) {}

  admit(a: AdmissionAttributes): void {
    if (a.def.group === 'apiextensions.k8s.io' && a.def.resource === 'customresourcedefinitions' && a.operation === 'CREATE' && !a.subresource) {
      return this.refuseOverlap(a);
    }
    if (a.def.group !== APIS_GROUP || a.def.resource !== 'apibindings' || a.subresource) return;
    if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
    const b = a.object as APIBinding;
    const old = a.oldObject as APIBinding | undefined;
    const ref = b.spec?.reference?.export;
    if (!ref?.name) return; // validation reports it
    const sameRef = old && JSON.stringify(old.spec?.reference ?? null) === JSON.stringify(b.spec?.reference ?? null);
    const labels = b.metadata?.labels ?? {};
    if (a.operation === 'UPDATE' && sameRef && labels[EXPORT_LABEL] === old?.metadata?.labels?.[EXPORT_LABEL]) return;
    const target = ref.path ? `${ref.path}:${ref.name}` : ref.name;
    const forbidden = errors.forbidden({ group: APIS_GROUP, resource: 'apibindings' }, a.name, `unable to ${a.operation === 'CREATE' ? 'create' : 'update'} APIBinding: no permission to bind to export ${target}`);
    const exportCluster = ref.path ? this.resolvePath(ref.path) : a.ctx.cluster;
    if (!exportCluster) throw forbidden;
    // root's exports may be bound before they exist (kcp's bootstrapping special case); others must exist.
    if (ref.path && exportCluster !== 'root' && !this.bound.exports.get(exportCluster)?.has(ref.name)) throw forbidden;
    const decision = this.authorizer.authorize(exportCluster, resourceAttributes(a.ctx.user, { verb: 'bind', apiGroup: APIS_GROUP, resource: 'apiexports', name: ref.name }));
    if (decision.decision !== 'Allow') throw forbidden;
    const meta = (b.metadata ??= {});
    meta.labels = { ...(meta.labels ?? {}), [EXPORT_LABEL]: exportLabelValue(exportCluster, ref.name) };
  }

  private refuseOverlap(a: AdmissionAttributes): void {
    const spec = a.object?.spec as { group?: string; names?: { plural?: string } } | undefined;
    for (const b of this.bound.bindings.get(a.ctx.cluster)?.values() ?? []) {
      for (const br of b.status?.boundResources ?? []) {
        if (br.group === spec?.group && br.resource === spec?.names?.plural) {
          throw errors.forbidden({ group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' }, a.name, `cannot create because resource is bound by APIBinding "${b.metadata?.name ?? ''}"`);
        }
      }
    }
  }
}
