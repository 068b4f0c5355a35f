/**
 * core/v1 ResourceQuotas (pkg/registry/core/resourcequota): served in every logical cluster, as kcp's generic control
 * plane serves them in every workspace. The main endpoint owns the spec (a create starts with an empty status), the
 * status subresource owns the status; the quota controller and the ResourceQuota admission plugin write it.
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { formatQuantity, parseExactQuantity } from '../../apimachinery/exact-quantity.js';
import { column } from '../../apimachinery/table/table.js';
import { translateTimestampSince } from '../../apimachinery/table/duration.js';
import type { TablePrinter } from '../../apimachinery/table/builtin-printers.js';
import { defineBuiltin, statusAndMetadata } from './define.js';
import { canonicalizeResourceMap, validateResourceQuota, validateResourceQuotaStatusUpdate, validateResourceQuotaUpdate } from './resource-quota-validation.js';

function canonicalizeSpec(obj: KubeObject): void {
  if (isPlainObject(obj.spec)) canonicalizeResourceMap(obj.spec.hard);
}

function canonicalizeStatus(obj: KubeObject): void {
  if (!isPlainObject(obj.status)) return;
  canonicalizeResourceMap(obj.status.hard);
  canonicalizeResourceMap(obj.status.used);
}

function quantityText(v: unknown): string {
  try {
    return formatQuantity(parseExactQuantity(v));
  } catch {
    return '0';
  }
}

/**
 * printResourceQuota: `<name>: <used>/<hard>` for every enforced limit (status.hard), sorted by name; `limits.*` in
 * LIMIT, everything else in REQUEST.
 */
const resourceQuotaPrinter: TablePrinter = {
  columns: [
    column('Name', 'string', 'The name of the quota, unique in its namespace.', { format: 'name' }),
    column('Age', 'string', 'When the server created the quota.'),
    column('Request', 'string', 'Usage against each enforced limit other than limits.*, as used/hard.'),
    column('Limit', 'string', 'Usage against each enforced limits.* limit, as used/hard.'),
  ],
  row(obj: JsonObject, now) {
    const meta = isPlainObject(obj.metadata) ? obj.metadata : {};
    const status = isPlainObject(obj.status) ? obj.status : {};
    const hard = isPlainObject(status.hard) ? status.hard : {};
    const used = isPlainObject(status.used) ? status.used : {};
    const request: string[] = [];
    const limit: string[] = [];
    for (const name of Object.keys(hard).sort()) {
      const cell = `${name}: ${quantityText(used[name])}/${quantityText(hard[name])}`;
      (name.split('.')[0] === 'limits' && name.includes('.') ? limit : request).push(cell);
    }
    return [meta.name ?? '', translateTimestampSince(typeof meta.creationTimestamp === 'string' ? meta.creationTimestamp : '', now), request.join(', '), limit.join(', ')];
  },
};

export const resourceQuotas = defineBuiltin({
  group: '',
  version: 'v1',
  resource: 'resourcequotas',
  kind: 'ResourceQuota',
  namespaced: true,
  shortNames: ['quota'],
  definitionName: 'io.k8s.api.core.v1.ResourceQuota',
  strategy: {
    // Its REST answers a DELETE with the object (ReturnDeletedObject), not a Status.
    returnDeletedObject: true,
    prepareForCreate(obj) {
      delete obj.status;
      canonicalizeSpec(obj);
    },
    prepareForUpdate(obj, old) {
      if (old.status === undefined) delete obj.status;
      else obj.status = old.status;
      canonicalizeSpec(obj);
    },
    validate: validateResourceQuota,
    validateUpdate: validateResourceQuotaUpdate,
  },
  subresources: [
    {
      name: 'status',
      kind: 'ResourceQuota',
      verbs: ['get', 'patch', 'update'],
      strategy: {
        apply(incoming, current) {
          const next = statusAndMetadata.apply(incoming, current);
          canonicalizeStatus(next);
          return next;
        },
        validate: (obj, old) => [...(statusAndMetadata.validate?.(obj, old) ?? []), ...validateResourceQuotaStatusUpdate(obj)],
      },
    },
  ],
  printer: resourceQuotaPrinter,
});
