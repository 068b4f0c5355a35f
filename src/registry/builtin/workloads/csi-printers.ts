/**
 * `kubectl get` columns of the CSI kinds of storage.k8s.io/v1, as pkg/printers/internalversion prints them
 * (printCSIDriver, printCSINode, printVolumeAttachment). CSIStorageCapacities have none of their own: upstream's
 * store uses the default table convertor (Name, Created At), though a printCSIStorageCapacity exists.
 */
import { column } from '../../../apimachinery/table/table.js';
import type { TablePrinter } from '../../../apimachinery/table/builtin-printers.js';
import { list, obj, str } from './pod-validation-helpers.js';
import { ageColumn, ageOf, nameColumn, nameOf } from './printers.js';

/** An optional boolean of the spec, or what the printer assumes when it is unset. */
const flag = (v: unknown, unset: boolean): boolean => (typeof v === 'boolean' ? v : unset);

/** printCSIDriver: NAME, ATTACHREQUIRED, PODINFOONMOUNT, STORAGECAPACITY, TOKENREQUESTS, REQUIRESREPUBLISH, MODES, AGE. */
export const csiDriverPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('AttachRequired', 'boolean', 'Whether volumes of the driver are attached before they are mounted.'),
    column('PodInfoOnMount', 'boolean', 'Whether the driver is told about the pod on mount.'),
    column('StorageCapacity', 'boolean', 'Whether the scheduler considers the storage capacity the driver reports.'),
    column('TokenRequests', 'string', 'Audiences of the service account tokens the driver receives.'),
    column('RequiresRepublish', 'boolean', 'Whether volumes are published again periodically.'),
    column('Modes', 'string', 'Volume lifecycle modes the driver supports.'),
    ageColumn,
  ],
  row(o, now) {
    const spec = obj(o.spec);
    // An unset list is <unset>; a set one, even empty, lists its audiences.
    const tokens = Array.isArray(spec.tokenRequests) ? spec.tokenRequests.map((t) => str(obj(t).audience)).join(',') : '<unset>';
    const modes = list(spec.volumeLifecycleModes).map((m) => str(m)).join(',');
    return [
      nameOf(o),
      flag(spec.attachRequired, true),
      flag(spec.podInfoOnMount, false),
      flag(spec.storageCapacity, false),
      tokens,
      flag(spec.requiresRepublish, false),
      modes || '<none>',
      ageOf(o, now),
    ];
  },
};

/** printCSINode: NAME, DRIVERS (how many), AGE. */
export const csiNodePrinter: TablePrinter = {
  columns: [nameColumn, column('Drivers', 'integer', 'How many CSI drivers are registered on the node.'), ageColumn],
  row: (o, now) => [nameOf(o), list(obj(o.spec).drivers).length, ageOf(o, now)],
};

/** printVolumeAttachment: NAME, ATTACHER, PV, NODE, ATTACHED, AGE. */
export const volumeAttachmentPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Attacher', 'string', 'The CSI driver that attaches the volume.', { format: 'name' }),
    column('PV', 'string', 'The PersistentVolume attached.'),
    column('Node', 'string', 'The node the volume is attached to.'),
    column('Attached', 'boolean', 'Whether the volume is attached.'),
    ageColumn,
  ],
  row(o, now) {
    const spec = obj(o.spec);
    return [nameOf(o), str(spec.attacher), str(obj(spec.source).persistentVolumeName), str(spec.nodeName), obj(o.status).attached === true, ageOf(o, now)];
  },
};
