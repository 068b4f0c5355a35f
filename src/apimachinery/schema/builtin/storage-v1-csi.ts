/**
 * Built-in type descriptors for the CSI kinds of storage.k8s.io/v1: CSIDriver, CSINode, CSIStorageCapacity and
 * VolumeAttachment. JSON names, protobuf field numbers (k8s.io/api v0.32.4 storage/v1 generated.proto), zero-value
 * rules from the Go struct tags (every CSIDriverSpec field is a pointer, so `false` is kept), and the merge/apply
 * markers (a CSINode's drivers merge by name). CSIStorageCapacity is not spec/status shaped: its fields sit at the top.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { BOOLEAN, CORE_V1, INT32, INT64, META_V1, OBJECT_META_FIELD, QUANTITY, STRING, TIME, TYPE_META_FIELDS, list, map, ref } from './field-types.js';
import { STORAGE_V1 } from './storage-v1.js';

const gvk = (kind: string) => [{ group: 'storage.k8s.io', version: 'v1', kind }];

export const storageV1CSITypes: readonly BuiltinTypeSpec[] = [
  {
    name: STORAGE_V1 + '.CSIDriver',
    description: 'A CSI volume driver deployed on the cluster, and how Kubernetes talks to it; named after the driver.',
    gvk: gvk('CSIDriver'),
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(STORAGE_V1, 'CSIDriverSpec'), required: true, description: 'How the driver is attached, mounted and given pod information.' },
    ],
  },
  {
    name: STORAGE_V1 + '.CSIDriverSpec',
    description: 'The behaviour of a CSI driver.',
    fields: [
      { name: 'attachRequired', proto: 1, type: BOOLEAN, emitZero: true, description: 'Whether volumes need a ControllerPublish (attach) step before mounting; true when unset. Immutable.' },
      { name: 'podInfoOnMount', proto: 2, type: BOOLEAN, emitZero: true, description: 'Whether NodePublishVolume receives the pod\'s name, namespace, UID and service account in its volume context.' },
      { name: 'volumeLifecycleModes', proto: 3, type: list(STRING), listType: 'set', description: 'Volume modes the driver supports: Persistent, Ephemeral (inline in pods), or both; Persistent when empty. Immutable.' },
      { name: 'storageCapacity', proto: 4, type: BOOLEAN, emitZero: true, description: 'Whether the scheduler considers the CSIStorageCapacity objects the driver publishes.' },
      { name: 'fsGroupPolicy', proto: 5, type: STRING, emitZero: true, description: 'Whether the pod\'s fsGroup applies to the driver\'s volumes: ReadWriteOnceWithFSType (the default), File or None.' },
      { name: 'tokenRequests', proto: 6, type: list(ref(STORAGE_V1, 'TokenRequest')), listType: 'atomic', description: 'Service account tokens, one per audience, passed to NodePublishVolume.' },
      { name: 'requiresRepublish', proto: 7, type: BOOLEAN, emitZero: true, description: 'Whether NodePublishVolume is called again periodically, e.g. to refresh tokens.' },
      { name: 'seLinuxMount', proto: 8, type: BOOLEAN, emitZero: true, description: 'Whether the driver supports mounting with an SELinux context mount option.' },
    ],
  },
  {
    name: STORAGE_V1 + '.TokenRequest',
    description: 'A service account token a CSI driver wants for a pod.',
    fields: [
      { name: 'audience', proto: 1, type: STRING, required: true, emitZero: true, description: 'The token\'s intended audience; the API server\'s when empty.' },
      { name: 'expirationSeconds', proto: 2, type: INT64, emitZero: true, description: 'How long the token is valid, at least 10 minutes.' },
    ],
  },
  {
    name: STORAGE_V1 + '.CSINode',
    description: 'The CSI drivers installed on a node, named after the node; the kubelet writes it.',
    gvk: gvk('CSINode'),
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(STORAGE_V1, 'CSINodeSpec'), required: true, description: 'The drivers registered on the node.' },
    ],
  },
  {
    name: STORAGE_V1 + '.CSINodeSpec',
    description: 'The CSI drivers of a node.',
    fields: [
      {
        name: 'drivers',
        proto: 1,
        type: list(ref(STORAGE_V1, 'CSINodeDriver')),
        required: true,
        emitZero: true,
        patchStrategy: 'merge',
        patchMergeKey: 'name',
        listType: 'map',
        listMapKeys: ['name'],
        description: 'One entry per driver registered on the node, by driver name.',
      },
    ],
  },
  {
    name: STORAGE_V1 + '.CSINodeDriver',
    description: 'One CSI driver as installed on a node.',
    fields: [
      { name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: 'The driver\'s name, as its CSIDriver object names it.' },
      { name: 'nodeID', proto: 2, type: STRING, required: true, emitZero: true, description: 'The node as the driver knows it, passed to its controller calls.' },
      { name: 'topologyKeys', proto: 3, type: list(STRING), listType: 'atomic', emitZero: true, description: 'The node label keys the driver reports topology under.' },
      { name: 'allocatable', proto: 4, type: ref(STORAGE_V1, 'VolumeNodeResources'), description: 'The volumes of this driver the node can hold.' },
    ],
  },
  {
    name: STORAGE_V1 + '.VolumeNodeResources',
    description: 'Limits on the volumes a node can hold.',
    fields: [{ name: 'count', proto: 1, type: INT32, emitZero: true, description: 'The most volumes of the driver the node can hold; unbounded when unset.' }],
  },
  {
    name: STORAGE_V1 + '.CSIStorageCapacity',
    description: 'Storage a CSI driver reports available for one storage class in one topology segment; the scheduler reads it.',
    gvk: gvk('CSIStorageCapacity'),
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'nodeTopology', proto: 2, type: ref(META_V1, 'LabelSelector'), description: 'The nodes that can reach the storage; none when unset. Immutable.' },
      { name: 'storageClassName', proto: 3, type: STRING, required: true, emitZero: true, description: 'The StorageClass the capacity applies to. Immutable.' },
      { name: 'capacity', proto: 4, type: QUANTITY, description: 'The capacity reported by the driver\'s GetCapacity; unknown when unset.' },
      { name: 'maximumVolumeSize', proto: 5, type: QUANTITY, description: 'The largest volume the driver can create in this segment; capacity is the limit when unset.' },
    ],
  },
  {
    name: STORAGE_V1 + '.VolumeAttachment',
    description: 'A request to attach a volume to a node, or detach it; the external attacher carries it out.',
    gvk: gvk('VolumeAttachment'),
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(STORAGE_V1, 'VolumeAttachmentSpec'), required: true, description: 'The volume, node and attacher. Immutable.' },
      { name: 'status', proto: 3, type: ref(STORAGE_V1, 'VolumeAttachmentStatus'), description: 'Whether the volume is attached; written by the attacher.' },
    ],
  },
  {
    name: STORAGE_V1 + '.VolumeAttachmentSpec',
    description: 'What to attach where.',
    fields: [
      { name: 'attacher', proto: 1, type: STRING, required: true, emitZero: true, description: 'The CSI driver that attaches the volume.' },
      { name: 'source', proto: 2, type: ref(STORAGE_V1, 'VolumeAttachmentSource'), required: true, description: 'The volume to attach.' },
      { name: 'nodeName', proto: 3, type: STRING, required: true, emitZero: true, description: 'The node to attach the volume to.' },
    ],
  },
  {
    name: STORAGE_V1 + '.VolumeAttachmentSource',
    description: 'The volume of a VolumeAttachment: a PersistentVolume by name, or an inline CSI volume; exactly one.',
    fields: [
      { name: 'persistentVolumeName', proto: 1, type: STRING, emitZero: true, description: 'The PersistentVolume to attach.' },
      { name: 'inlineVolumeSpec', proto: 2, type: ref(CORE_V1, 'PersistentVolumeSpec'), description: 'An inline volume of a pod, translated to a CSI PersistentVolume spec.' },
    ],
  },
  {
    name: STORAGE_V1 + '.VolumeAttachmentStatus',
    description: 'The progress of an attach or detach.',
    fields: [
      { name: 'attached', proto: 1, type: BOOLEAN, required: true, emitZero: true, description: 'Whether the volume is attached.' },
      { name: 'attachmentMetadata', proto: 2, type: map(STRING), description: 'What the attach step returned, handed to the mount step.' },
      { name: 'attachError', proto: 3, type: ref(STORAGE_V1, 'VolumeError'), description: 'The last attach failure, if any.' },
      { name: 'detachError', proto: 4, type: ref(STORAGE_V1, 'VolumeError'), description: 'The last detach failure, if any.' },
    ],
  },
  {
    name: STORAGE_V1 + '.VolumeError',
    description: 'A failure of an attach or detach.',
    fields: [
      { name: 'time', proto: 1, type: TIME, description: 'When the failure happened.' },
      { name: 'message', proto: 2, type: STRING, description: 'What went wrong; may be logged.' },
    ],
  },
];
