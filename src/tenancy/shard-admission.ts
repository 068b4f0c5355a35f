/**
 * kcp's `tenancy.kcp.io/Shard` admission plugin: a Shard written (created or updated, any subresource) without
 * spec.baseURL is refused, and spec.externalURL and spec.virtualWorkspaceURL default to spec.baseURL. It runs in the
 * mutating phase, before the schema is checked, so a missing baseURL never reaches the schema's `Required value`.
 */
import type { JsonObject } from '../apimachinery/object.js';
import { StatusError } from '../apimachinery/status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../apiserver/admission/admission.js';

export class ShardAdmission implements AdmissionPlugin {
  readonly name = 'tenancy.kcp.io/Shard';

  admit(a: AdmissionAttributes): void {
    if (a.def.group !== 'core.kcp.io' || a.def.resource !== 'shards' || !a.object) return;
    if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
    const spec: JsonObject = a.object.spec && typeof a.object.spec === 'object' && !Array.isArray(a.object.spec) ? (a.object.spec as JsonObject) : {};
    const baseURL = spec.baseURL;
    if (typeof baseURL !== 'string' || baseURL === '') {
      // kcp's plugin returns a plain error, which kube-apiserver answers as a 500 with no reason.
      throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'spec.baseURL is required', code: 500 });
    }
    if (!spec.externalURL) spec.externalURL = baseURL;
    if (!spec.virtualWorkspaceURL) spec.virtualWorkspaceURL = baseURL;
    a.object.spec = spec;
  }
}
