/**
 * Admission of CONNECT requests (k8s.io/apiserver endpoints/handlers/rest.go ConnectResource): for a connect
 * subresource, a `dryRun` parameter is a 400, the options are decoded from the query (a 400 when they cannot be), and
 * the plugins that handle CONNECT (webhooks, admission policies) review them — mutating, then validating — with
 * operation CONNECT, the options as the object and no old object, before anything is dialled or upgraded. A refusal
 * is answered as any admission error; what a mutating webhook changed becomes the query the handler serves.
 */
import { errors } from '../apimachinery/status.js';
import { jsonEqual } from '../apimachinery/object.js';
import type { Admission, AdmissionAttributes } from './admission/admission.js';
import type { ConnectHandler, ConnectRequest } from './connect.js';
import { addWarnings } from './http/response.js';

export async function admitConnect(handler: ConnectHandler, r: ConnectRequest, admission: Admission): Promise<void> {
  const codec = handler.connectOptions;
  if (!codec) return;
  if (r.query.has('dryRun')) throw errors.badRequest('dryRun is not supported');
  const options = codec.decode(r.query, r.info);
  const decoded = structuredClone(options);
  const attrs: AdmissionAttributes = {
    operation: 'CONNECT',
    ctx: r.ctx,
    def: r.store.def,
    namespace: r.info.namespace,
    name: r.info.name,
    subresource: r.info.subresource,
    object: options,
    kind: { group: '', version: 'v1', kind: codec.kind },
    dryRun: false,
    warnings: [],
  };
  try {
    await admission.connect(attrs);
  } finally {
    addWarnings(r.res, attrs.warnings!);
  }
  r.options = attrs.object ?? options;
  if (attrs.object && !jsonEqual(attrs.object, decoded)) r.query = codec.encode(attrs.object, r.query);
}
