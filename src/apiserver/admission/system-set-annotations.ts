/**
 * SystemSetAnnotations: an admission plugin that keeps a few annotations of one resource in the hands of the system.
 * Other components trust them (a LogicalCluster's `kcp.io/path` decides which workspace a path names; a SyncTarget's
 * consumer-clusters list decides which workspaces its syncer reads), so the object's owner, who may otherwise edit the
 * object freely, must not be able to write them. atrium's controllers authenticate as `system:masters`, and
 * in-process writers (tenancy) go to storage without admission, so only that group may:
 *
 * - CREATE (including PUT or server-side apply that creates) of an object carrying any of the annotations, with any value;
 * - UPDATE (PUT, every patch type, apply) that adds one, changes its value or removes it. An update that keeps the
 *   stored value unchanged (a read-modify-write PUT, a patch of something else) is admitted.
 *
 * PUT brings no old object to admission, so the stored one is read (an object that does not exist is compared as
 * absent). Subresource writes (/status) are left alone: the status strategies keep the stored metadata, so they can
 * neither add nor drop an annotation. Deletes stay a matter of RBAC. Everyone else gets 403 Forbidden naming the
 * annotation and saying it is set by the system.
 */
import { errors } from '../../apimachinery/status.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { SYSTEM_MASTERS } from '../../apimachinery/user.js';
import type { RequestContext, ResourceDefinition } from '../../registry/rest.js';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';

/** Where the plugin reads the stored object when the request did not bring it (PUT). The ResourceRegistry fits. */
export interface StoredObjectReader {
  storeFor(def: ResourceDefinition): { get(ctx: RequestContext, namespace: string, name: string): Promise<KubeObject> };
}

export interface SystemSetAnnotationsOptions {
  /** The plugin's name in the admission chain. */
  name: string;
  group: string;
  resource: string;
  /** The annotation keys only system:masters may write. */
  annotations: readonly string[];
  /** Who sets them, for the refusal (e.g. "the workspace controller"). */
  setBy: string;
}

/** The annotation's value, or undefined when absent (an empty string is a value). */
function annotationOf(obj: KubeObject | undefined, key: string): string | undefined {
  const annotations = obj?.metadata?.annotations;
  return annotations && Object.hasOwn(annotations, key) ? annotations[key] : undefined;
}

export class SystemSetAnnotations implements AdmissionPlugin {
  readonly name: string;

  constructor(
    private readonly stored: StoredObjectReader,
    private readonly opts: SystemSetAnnotationsOptions,
  ) {
    this.name = opts.name;
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.def.group !== this.opts.group || attrs.def.resource !== this.opts.resource || attrs.subresource) return;
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    if (attrs.ctx.user.groups.includes(SYSTEM_MASTERS)) return;
    const name = attrs.name || attrs.object?.metadata?.name || '';
    const old = attrs.operation === 'UPDATE' ? (attrs.oldObject ?? (await this.readStored(attrs, name))) : undefined;
    for (const key of this.opts.annotations) {
      if (annotationOf(attrs.object, key) === annotationOf(old, key)) continue;
      throw errors.forbidden(
        { group: this.opts.group, resource: this.opts.resource },
        name,
        `the annotation "${key}" is set by the system (${this.opts.setBy}) and may not be added, changed or removed; only system:masters may write it`,
      );
    }
  }

  /** The stored object for a PUT (which brings no old object); undefined when there is none (PUT creates or 404s). */
  private async readStored(attrs: AdmissionAttributes, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.stored.storeFor(attrs.def).get(attrs.ctx, attrs.namespace, name);
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    }
  }
}
