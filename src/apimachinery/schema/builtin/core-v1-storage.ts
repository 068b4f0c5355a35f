/**
 * Built-in type descriptors for core/v1 storage: PersistentVolumeClaim and PersistentVolume with their specs and
 * statuses, and the topology selector StorageClasses use. JSON names, protobuf field numbers (k8s.io/api v1.32
 * generated.proto), merge/apply semantics from the Go struct tags and markers. PersistentVolumeClaimSpec itself lives in core-v1-workloads.ts, where pod volumes and
 * ephemeral volume templates first needed it.
 */
import { embedded, type BuiltinTypeSpec } from './builtin-type.js';
import { BOOLEAN, CORE_V1, INT32, OBJECT_META_FIELD, QUANTITY, STRING, TIME, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

export const coreV1StorageTypes: readonly BuiltinTypeSpec[] = [
  {
    name: CORE_V1 + '.PersistentVolumeClaim',
    description: "A user's request for storage; it binds to one PersistentVolume that satisfies it.",
    gvk: [{ group: '', version: 'v1', kind: 'PersistentVolumeClaim' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(CORE_V1, 'PersistentVolumeClaimSpec'), description: 'The storage the claim asks for: size, access modes, class and an optional data source.' },
      { name: 'status', proto: 3, type: ref(CORE_V1, 'PersistentVolumeClaimStatus'), description: 'What the volume controllers last observed about the claim; written by the server.' },
    ],
  },
  {
    name: CORE_V1 + '.PersistentVolumeClaimStatus',
    description: 'The observed state of a PersistentVolumeClaim.',
    fields: [
      { name: 'phase', proto: 1, type: STRING, description: 'Pending, Bound or Lost.' },
      { name: 'accessModes', proto: 2, type: list(STRING), listType: 'atomic', description: 'Access modes of the bound volume.' },
      { name: 'capacity', proto: 3, type: map(QUANTITY), description: 'Resources of the bound volume, such as its storage size.' },
      { name: 'conditions', proto: 4, type: list(ref(CORE_V1, 'PersistentVolumeClaimCondition')), patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'], description: 'Latest observations, such as an ongoing resize.' },
      { name: 'allocatedResources', proto: 5, type: map(QUANTITY), description: 'Resources the system has allotted to the claim, which may exceed what it requested during a resize.' },
      { name: 'allocatedResourceStatuses', proto: 7, type: map(STRING), mapType: 'granular', description: 'Per resource, the state of a pending resize (for example ControllerResizeInProgress).' },
      { name: 'currentVolumeAttributesClassName', proto: 8, type: STRING, emitZero: true, description: 'The VolumeAttributesClass the volume currently uses.' },
      { name: 'modifyVolumeStatus', proto: 9, type: ref(CORE_V1, 'ModifyVolumeStatus'), description: 'Progress of a change to another VolumeAttributesClass; absent when none is under way.' },
    ],
  },
  {
    name: CORE_V1 + '.PersistentVolumeClaimCondition',
    description: 'One observation about a PersistentVolumeClaim.',
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: 'Condition type, such as Resizing or FileSystemResizePending.' },
      { name: 'status', proto: 2, type: STRING, required: true, emitZero: true, description: 'True, False or Unknown.' },
      { name: 'lastProbeTime', proto: 3, type: TIME, description: 'When the condition was last checked.' },
      { name: 'lastTransitionTime', proto: 4, type: TIME, description: 'When status last changed.' },
      { name: 'reason', proto: 5, type: STRING, description: 'CamelCase reason for the last transition.' },
      { name: 'message', proto: 6, type: STRING, description: 'Human-readable details.' },
    ],
  },
  {
    name: CORE_V1 + '.ModifyVolumeStatus',
    description: 'Progress of changing a claim to another VolumeAttributesClass.',
    fields: [
      { name: 'targetVolumeAttributesClassName', proto: 1, type: STRING, description: 'The class being changed to.' },
      { name: 'status', proto: 2, type: STRING, required: true, emitZero: true, description: 'Pending, InProgress or Infeasible.' },
    ],
  },
  {
    name: CORE_V1 + '.PersistentVolume',
    description: 'A piece of storage in the cluster, provisioned by an administrator or a StorageClass; claims bind to it.',
    gvk: [{ group: '', version: 'v1', kind: 'PersistentVolume' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(CORE_V1, 'PersistentVolumeSpec'), description: 'What the volume offers and where its storage lives.' },
      { name: 'status', proto: 3, type: ref(CORE_V1, 'PersistentVolumeStatus'), description: 'What the volume controllers last observed; written by the server.' },
    ],
  },
  {
    name: CORE_V1 + '.PersistentVolumeSpec',
    description: 'The desired state of a PersistentVolume.',
    fields: [
      { name: 'capacity', proto: 1, type: map(QUANTITY), description: 'Resources the volume offers, such as storage: 10Gi.' },
      embedded(2, CORE_V1 + '.PersistentVolumeSource'),
      { name: 'accessModes', proto: 3, type: list(STRING), listType: 'atomic', description: 'How the volume may be mounted: ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod.' },
      { name: 'claimRef', proto: 4, type: ref(CORE_V1, 'ObjectReference'), mapType: 'granular', description: 'The claim bound to this volume, or reserved for it when set ahead of binding.' },
      { name: 'persistentVolumeReclaimPolicy', proto: 5, type: STRING, description: 'What happens once the claim is deleted: Retain (the default for manual volumes), Delete or Recycle.' },
      { name: 'storageClassName', proto: 6, type: STRING, description: 'The StorageClass the volume belongs to; only claims asking for that class bind to it.' },
      { name: 'mountOptions', proto: 7, type: list(STRING), listType: 'atomic', description: 'Mount options used when the volume is mounted, not validated by the server.' },
      { name: 'volumeMode', proto: 8, type: STRING, emitZero: true, description: 'Filesystem (the default) or Block.' },
      { name: 'nodeAffinity', proto: 9, type: ref(CORE_V1, 'VolumeNodeAffinity'), description: 'The nodes the volume can be reached from; pods using it are scheduled there.' },
      { name: 'volumeAttributesClassName', proto: 10, type: STRING, emitZero: true, description: 'VolumeAttributesClass the volume belongs to.' },
    ],
  },
  {
    name: CORE_V1 + '.PersistentVolumeSource',
    description: "Where a persistent volume's storage lives; exactly one member is set. Inlined into PersistentVolumeSpec in JSON, field 2 of it in protobuf.",
    fields: [
      { name: 'gcePersistentDisk', proto: 1, type: ref(CORE_V1, 'GCEPersistentDiskVolumeSource'), description: 'A Google Compute Engine persistent disk (deprecated in favour of its CSI driver).' },
      { name: 'awsElasticBlockStore', proto: 2, type: ref(CORE_V1, 'AWSElasticBlockStoreVolumeSource'), description: 'An AWS EBS volume (deprecated in favour of its CSI driver).' },
      { name: 'hostPath', proto: 3, type: ref(CORE_V1, 'HostPathVolumeSource'), description: 'A directory on the node; for single-node development and testing only.' },
      { name: 'glusterfs', proto: 4, type: ref(CORE_V1, 'GlusterfsPersistentVolumeSource'), description: 'A GlusterFS volume (no longer supported by the kubelet).' },
      { name: 'nfs', proto: 5, type: ref(CORE_V1, 'NFSVolumeSource'), description: 'An NFS export.' },
      { name: 'rbd', proto: 6, type: ref(CORE_V1, 'RBDPersistentVolumeSource'), description: 'A Ceph RADOS block device (deprecated).' },
      { name: 'iscsi', proto: 7, type: ref(CORE_V1, 'ISCSIPersistentVolumeSource'), description: 'An iSCSI disk.' },
      { name: 'cinder', proto: 8, type: ref(CORE_V1, 'CinderPersistentVolumeSource'), description: 'An OpenStack Cinder volume (deprecated in favour of its CSI driver).' },
      { name: 'cephfs', proto: 9, type: ref(CORE_V1, 'CephFSPersistentVolumeSource'), description: 'A CephFS mount (deprecated).' },
      { name: 'fc', proto: 10, type: ref(CORE_V1, 'FCVolumeSource'), description: 'A Fibre Channel disk.' },
      { name: 'flocker', proto: 11, type: ref(CORE_V1, 'FlockerVolumeSource'), description: 'A Flocker dataset (deprecated).' },
      { name: 'flexVolume', proto: 12, type: ref(CORE_V1, 'FlexPersistentVolumeSource'), description: 'A volume mounted by a FlexVolume driver (deprecated).' },
      { name: 'azureFile', proto: 13, type: ref(CORE_V1, 'AzureFilePersistentVolumeSource'), description: 'An Azure File share (deprecated in favour of its CSI driver).' },
      { name: 'vsphereVolume', proto: 14, type: ref(CORE_V1, 'VsphereVirtualDiskVolumeSource'), description: 'A vSphere virtual disk (deprecated in favour of its CSI driver).' },
      { name: 'quobyte', proto: 15, type: ref(CORE_V1, 'QuobyteVolumeSource'), description: 'A Quobyte volume (deprecated).' },
      { name: 'azureDisk', proto: 16, type: ref(CORE_V1, 'AzureDiskVolumeSource'), description: 'An Azure data disk (deprecated in favour of its CSI driver).' },
      { name: 'photonPersistentDisk', proto: 17, type: ref(CORE_V1, 'PhotonPersistentDiskVolumeSource'), description: 'A Photon Controller persistent disk (deprecated).' },
      { name: 'portworxVolume', proto: 18, type: ref(CORE_V1, 'PortworxVolumeSource'), description: 'A Portworx volume (deprecated in favour of its CSI driver).' },
      { name: 'scaleIO', proto: 19, type: ref(CORE_V1, 'ScaleIOPersistentVolumeSource'), description: 'A ScaleIO volume (deprecated).' },
      { name: 'local', proto: 20, type: ref(CORE_V1, 'LocalVolumeSource'), description: 'A disk, partition or directory on one node; needs nodeAffinity.' },
      { name: 'storageos', proto: 21, type: ref(CORE_V1, 'StorageOSPersistentVolumeSource'), description: 'A StorageOS volume (deprecated).' },
      { name: 'csi', proto: 22, type: ref(CORE_V1, 'CSIPersistentVolumeSource'), description: 'A volume managed by an external CSI driver.' },
    ],
  },
  {
    name: CORE_V1 + '.PersistentVolumeStatus',
    description: 'The observed state of a PersistentVolume.',
    fields: [
      { name: 'phase', proto: 1, type: STRING, description: 'Pending, Available, Bound, Released or Failed.' },
      { name: 'message', proto: 2, type: STRING, description: 'Human-readable reason the volume is in this phase.' },
      { name: 'reason', proto: 3, type: STRING, description: 'Short CamelCase reason for a failure, for tools to read.' },
      { name: 'lastPhaseTransitionTime', proto: 4, type: TIME, description: 'When the phase last changed; reset whenever it changes.' },
    ],
  },
  {
    name: CORE_V1 + '.VolumeNodeAffinity',
    description: 'The nodes a volume can be used from.',
    fields: [
      { name: 'required', proto: 1, type: ref(CORE_V1, 'NodeSelector'), description: 'Node selector terms a node must match to use the volume.' },
    ],
  },
  {
    name: CORE_V1 + '.SecretReference',
    description: 'A Secret by name and namespace.',
    mapType: 'atomic',
    fields: [
      { name: 'name', proto: 1, type: STRING, description: 'Name of the Secret.' },
      { name: 'namespace', proto: 2, type: STRING, description: 'Namespace of the Secret.' },
    ],
  },
  {
    name: CORE_V1 + '.LocalVolumeSource',
    description: 'A local disk, partition or directory on a node.',
    fields: [
      { name: 'path', proto: 1, type: STRING, required: true, emitZero: true, description: 'Full path of the volume on the node.' },
      { name: 'fsType', proto: 2, type: STRING, emitZero: true, description: 'Filesystem type of a block device path, such as ext4; detected when unset.' },
    ],
  },
  {
    name: CORE_V1 + '.CSIPersistentVolumeSource',
    description: 'A volume managed by an external CSI driver.',
    fields: [
      { name: 'driver', proto: 1, type: STRING, required: true, emitZero: true, description: 'Name of the CSI driver, as it registers itself.' },
      { name: 'volumeHandle', proto: 2, type: STRING, required: true, emitZero: true, description: "The driver's unique id of the volume." },
      { name: 'readOnly', proto: 3, type: BOOLEAN, description: 'Publish the volume read-only. Default false.' },
      { name: 'fsType', proto: 4, type: STRING, description: 'Filesystem type to mount, such as ext4.' },
      { name: 'volumeAttributes', proto: 5, type: map(STRING), description: 'Driver-specific attributes of the volume.' },
      { name: 'controllerPublishSecretRef', proto: 6, type: ref(CORE_V1, 'SecretReference'), description: 'Secret passed to the driver when attaching the volume.' },
      { name: 'nodeStageSecretRef', proto: 7, type: ref(CORE_V1, 'SecretReference'), description: 'Secret passed to the driver when staging the volume on a node.' },
      { name: 'nodePublishSecretRef', proto: 8, type: ref(CORE_V1, 'SecretReference'), description: 'Secret passed to the driver when mounting the volume for a pod.' },
      { name: 'controllerExpandSecretRef', proto: 9, type: ref(CORE_V1, 'SecretReference'), description: 'Secret passed to the driver when expanding the volume.' },
      { name: 'nodeExpandSecretRef', proto: 10, type: ref(CORE_V1, 'SecretReference'), description: 'Secret passed to the driver when expanding the volume on a node.' },
    ],
  },
  {
    name: CORE_V1 + '.GlusterfsPersistentVolumeSource',
    description: 'A GlusterFS volume.',
    fields: [
      { name: 'endpoints', proto: 1, type: STRING, required: true, emitZero: true, description: 'Endpoints object naming the Glusterfs servers.' },
      { name: 'path', proto: 2, type: STRING, required: true, emitZero: true, description: 'Glusterfs volume path.' },
      { name: 'readOnly', proto: 3, type: BOOLEAN, description: 'Mount read-only. Default false.' },
      { name: 'endpointsNamespace', proto: 4, type: STRING, emitZero: true, description: "Namespace of the endpoints object; the claim's namespace when unset." },
    ],
  },
  {
    name: CORE_V1 + '.RBDPersistentVolumeSource',
    description: 'A Ceph RADOS block device.',
    fields: [
      { name: 'monitors', proto: 1, type: list(STRING), required: true, listType: 'atomic', emitZero: true, description: 'Ceph monitor addresses.' },
      { name: 'image', proto: 2, type: STRING, required: true, emitZero: true, description: 'RADOS image name.' },
      { name: 'fsType', proto: 3, type: STRING, description: 'Filesystem type to mount, such as ext4.' },
      { name: 'pool', proto: 4, type: STRING, description: 'RADOS pool. Default rbd.' },
      { name: 'user', proto: 5, type: STRING, description: 'RADOS user. Default admin.' },
      { name: 'keyring', proto: 6, type: STRING, description: 'Path of the keyring. Default /etc/ceph/keyring.' },
      { name: 'secretRef', proto: 7, type: ref(CORE_V1, 'SecretReference'), description: 'Secret with the authentication key, overriding keyring.' },
      { name: 'readOnly', proto: 8, type: BOOLEAN, description: 'Mount read-only. Default false.' },
    ],
  },
  {
    name: CORE_V1 + '.ISCSIPersistentVolumeSource',
    description: 'An iSCSI disk.',
    fields: [
      { name: 'targetPortal', proto: 1, type: STRING, required: true, emitZero: true, description: 'Target portal, an IP or ip:port (port 3260 when omitted).' },
      { name: 'iqn', proto: 2, type: STRING, required: true, emitZero: true, description: 'iSCSI qualified name of the target.' },
      { name: 'lun', proto: 3, type: INT32, required: true, emitZero: true, description: 'Logical unit number of the target.' },
      { name: 'iscsiInterface', proto: 4, type: STRING, description: 'iSCSI interface name. Default default (tcp).' },
      { name: 'fsType', proto: 5, type: STRING, description: 'Filesystem type to mount, such as ext4.' },
      { name: 'readOnly', proto: 6, type: BOOLEAN, description: 'Mount read-only. Default false.' },
      { name: 'portals', proto: 7, type: list(STRING), listType: 'atomic', description: 'Further target portals for multipath.' },
      { name: 'chapAuthDiscovery', proto: 8, type: BOOLEAN, description: 'Use CHAP authentication for discovery.' },
      { name: 'chapAuthSession', proto: 11, type: BOOLEAN, description: 'Use CHAP authentication for the session.' },
      { name: 'secretRef', proto: 10, type: ref(CORE_V1, 'SecretReference'), description: 'Secret with the CHAP credentials.' },
      { name: 'initiatorName', proto: 12, type: STRING, emitZero: true, description: 'Custom initiator name; with iscsiInterface a new interface <target portal>:<volume name> is created.' },
    ],
  },
  {
    name: CORE_V1 + '.CinderPersistentVolumeSource',
    description: 'An OpenStack Cinder volume.',
    fields: [
      { name: 'volumeID', proto: 1, type: STRING, required: true, emitZero: true, description: 'Cinder volume id.' },
      { name: 'fsType', proto: 2, type: STRING, description: 'Filesystem type to mount, such as ext4.' },
      { name: 'readOnly', proto: 3, type: BOOLEAN, description: 'Mount read-only. Default false.' },
      { name: 'secretRef', proto: 4, type: ref(CORE_V1, 'SecretReference'), description: 'Secret with the OpenStack connection parameters.' },
    ],
  },
  {
    name: CORE_V1 + '.CephFSPersistentVolumeSource',
    description: 'A CephFS mount.',
    fields: [
      { name: 'monitors', proto: 1, type: list(STRING), required: true, listType: 'atomic', emitZero: true, description: 'Ceph monitor addresses.' },
      { name: 'path', proto: 2, type: STRING, description: 'Path inside the filesystem to mount. Default /.' },
      { name: 'user', proto: 3, type: STRING, description: 'RADOS user. Default admin.' },
      { name: 'secretFile', proto: 4, type: STRING, description: 'Path of the key file. Default /etc/ceph/user.secret.' },
      { name: 'secretRef', proto: 5, type: ref(CORE_V1, 'SecretReference'), description: 'Secret with the authentication key, overriding secretFile.' },
      { name: 'readOnly', proto: 6, type: BOOLEAN, description: 'Mount read-only. Default false.' },
    ],
  },
  {
    name: CORE_V1 + '.FlexPersistentVolumeSource',
    description: 'A volume mounted by a FlexVolume driver.',
    fields: [
      { name: 'driver', proto: 1, type: STRING, required: true, emitZero: true, description: 'Name of the driver.' },
      { name: 'fsType', proto: 2, type: STRING, description: "Filesystem type; the driver's default when unset." },
      { name: 'secretRef', proto: 3, type: ref(CORE_V1, 'SecretReference'), description: 'Secret passed to the driver.' },
      { name: 'readOnly', proto: 4, type: BOOLEAN, description: 'Mount read-only. Default false.' },
      { name: 'options', proto: 5, type: map(STRING), description: 'Driver-specific options.' },
    ],
  },
  {
    name: CORE_V1 + '.AzureFilePersistentVolumeSource',
    description: 'An Azure File share.',
    fields: [
      { name: 'secretName', proto: 1, type: STRING, required: true, emitZero: true, description: 'Secret with the storage account name and key.' },
      { name: 'shareName', proto: 2, type: STRING, required: true, emitZero: true, description: 'Name of the share.' },
      { name: 'readOnly', proto: 3, type: BOOLEAN, description: 'Mount read-only. Default false.' },
      { name: 'secretNamespace', proto: 4, type: STRING, emitZero: true, description: "Namespace of the secret; the pod's namespace when unset." },
    ],
  },
  {
    name: CORE_V1 + '.ScaleIOPersistentVolumeSource',
    description: 'A ScaleIO volume.',
    fields: [
      { name: 'gateway', proto: 1, type: STRING, required: true, emitZero: true, description: 'Address of the ScaleIO API gateway.' },
      { name: 'system', proto: 2, type: STRING, required: true, emitZero: true, description: 'Name of the storage system.' },
      { name: 'secretRef', proto: 3, type: ref(CORE_V1, 'SecretReference'), required: true, description: 'Secret with the ScaleIO user credentials.' },
      { name: 'sslEnabled', proto: 4, type: BOOLEAN, description: 'Talk to the gateway over TLS. Default false.' },
      { name: 'protectionDomain', proto: 5, type: STRING, description: 'Protection domain of the storage.' },
      { name: 'storagePool', proto: 6, type: STRING, description: 'Storage pool of the protection domain.' },
      { name: 'storageMode', proto: 7, type: STRING, description: 'ThickProvisioned or ThinProvisioned. Default ThinProvisioned.' },
      { name: 'volumeName', proto: 8, type: STRING, description: 'Name of an existing volume in the system.' },
      { name: 'fsType', proto: 9, type: STRING, description: 'Filesystem type to mount. Default xfs.' },
      { name: 'readOnly', proto: 10, type: BOOLEAN, description: 'Mount read-only. Default false.' },
    ],
  },
  {
    name: CORE_V1 + '.StorageOSPersistentVolumeSource',
    description: 'A StorageOS volume.',
    fields: [
      { name: 'volumeName', proto: 1, type: STRING, description: 'Name of the volume within its StorageOS namespace.' },
      { name: 'volumeNamespace', proto: 2, type: STRING, description: "StorageOS namespace of the volume; the pod's namespace when unset." },
      { name: 'fsType', proto: 3, type: STRING, description: 'Filesystem type to mount, such as ext4.' },
      { name: 'readOnly', proto: 4, type: BOOLEAN, description: 'Mount read-only. Default false.' },
      { name: 'secretRef', proto: 5, type: ref(CORE_V1, 'ObjectReference'), description: 'Secret with the StorageOS API credentials.' },
    ],
  },
  {
    name: CORE_V1 + '.TopologySelectorTerm',
    description: 'Topology labels that must all match (the terms of a list are ORed).',
    mapType: 'atomic',
    fields: [
      { name: 'matchLabelExpressions', proto: 1, type: list(ref(CORE_V1, 'TopologySelectorLabelRequirement')), listType: 'atomic', description: 'Label requirements, all of which must hold.' },
    ],
  },
  {
    name: CORE_V1 + '.TopologySelectorLabelRequirement',
    description: 'A topology label and the values it may have.',
    fields: [
      { name: 'key', proto: 1, type: STRING, required: true, emitZero: true, description: 'The label key, such as topology.kubernetes.io/zone.' },
      { name: 'values', proto: 2, type: list(STRING), required: true, listType: 'atomic', emitZero: true, description: 'Values the label may have; at least one.' },
    ],
  },
];
