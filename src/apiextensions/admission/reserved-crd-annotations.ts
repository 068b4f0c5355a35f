/**
 * ReservedCRDAnnotations: admission for CustomResourceDefinitions that keeps the negotiation annotation
 * (`apiresource.kcp.io/negotiated`) in the hands of the API negotiation controller.
 *
 * CRD validation waives the "spec.group should be a domain with at least one dot" rule for CRDs carrying that
 * annotation, because negotiation publishes built-in groups such as `apps` (apps/v1 Deployments reported by a
 * syncer) as CRDs. Anyone able to set the annotation could therefore claim a group kube-apiserver would never let a
 * CRD have. The negotiation controller is an API client authenticated as `system:masters` (see
 * startMulticlusterControllers), so only that group may write such a CRD:
 *
 * - CREATE (including server-side apply that creates) of a CRD whose metadata carries the annotation, with any value;
 * - UPDATE (PUT, every patch type, apply) whose result carries it: adding it, or editing a negotiated CRD;
 * - UPDATE of a CRD that carries it now and would not afterwards: a negotiated CRD is the controller's object, and
 *   taking it over by dropping the annotation is refused as well.
 *
 * Everyone else gets 403 Forbidden naming the annotation and what to do instead (kcp's reserved-CRD-annotation
 * admission refuses the same way). Subresource writes (/status) are left alone: the CRD status strategy keeps the
 * stored metadata, so they can neither add nor drop an annotation. Deletes stay a matter of RBAC.
 */
import { errors, type StatusError } from '../../apimachinery/status.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../apiserver/admission/admission.js';
import { SYSTEM_MASTERS } from '../../apimachinery/user.js';
import type { RequestContext, ResourceDefinition } from '../../registry/rest.js';
import { NEGOTIATED_CRD_ANNOTATION } from '../serving/negotiated-printers.js';

const CRD_GROUP = 'apiextensions.k8s.io';
const CRD_RESOURCE = 'customresourcedefinitions';

/** Where the plugin reads the stored CRD when the request did not bring it (PUT). The ResourceRegistry fits. */
export interface StoredCRDReader {
  storeFor(def: ResourceDefinition): { get(ctx: RequestContext, namespace: string, name: string): Promise<KubeObject> };
}

/** Whether `obj` carries the negotiation annotation, whatever its value. */
function carriesNegotiatedAnnotation(obj: KubeObject | undefined): boolean {
  return Object.hasOwn(obj?.metadata?.annotations ?? {}, NEGOTIATED_CRD_ANNOTATION);
}

/** The 403 for setting (or keeping) the annotation: says what to do instead. */
function setForbidden(name: string): StatusError {
  return errors.forbidden(
    { group: CRD_GROUP, resource: CRD_RESOURCE },
    name,
    `the annotation "${NEGOTIATED_CRD_ANNOTATION}" is reserved for the API negotiation controller (only system:masters may write a CustomResourceDefinition that carries it); ` +
      'remove the annotation and use a spec.group with at least one dot (for example "example.com"), or let a syncer report the type so that negotiation publishes it',
  );
}

/** The 403 for dropping the annotation from a negotiated CRD. */
function removeForbidden(name: string): StatusError {
  return errors.forbidden(
    { group: CRD_GROUP, resource: CRD_RESOURCE },
    name,
    `the CustomResourceDefinition is managed by the API negotiation controller (annotation "${NEGOTIATED_CRD_ANNOTATION}") and only system:masters may remove the annotation; ` +
      'its schema follows what the physical clusters serve, so change the type there, or ask an administrator to hand the type over to you',
  );
}

export class ReservedCRDAnnotations implements AdmissionPlugin {
  readonly name = 'ReservedCRDAnnotations';

  constructor(private readonly stored: StoredCRDReader) {}

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.def.group !== CRD_GROUP || attrs.def.resource !== CRD_RESOURCE || attrs.subresource) return;
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    if (attrs.ctx.user.groups.includes(SYSTEM_MASTERS)) return;
    const name = attrs.name || attrs.object?.metadata?.name || '';
    if (carriesNegotiatedAnnotation(attrs.object)) throw setForbidden(name);
    if (attrs.operation !== 'UPDATE') return;
    const old = attrs.oldObject ?? (await this.readStored(attrs, name));
    if (carriesNegotiatedAnnotation(old)) throw removeForbidden(name);
  }

  /** The stored CRD for a PUT (which brings no old object); undefined when there is none (the update will 404). */
  private async readStored(attrs: AdmissionAttributes, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.stored.storeFor(attrs.def).get(attrs.ctx, '', name);
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    }
  }
}
