/**
 * Table columns and cells for the storage, service-plumbing and networking kinds, as kube-apiserver 1.32's
 * internalversion printers produce them (server-side tables always carry the wide cells; kubectl shows priority-1
 * columns with `-o wide`): PersistentVolumeClaims, PersistentVolumes, ReplicationControllers, Endpoints,
 * EndpointSlices, PodTemplates, Ingresses, IngressClasses, NetworkPolicies and StorageClasses.
 */
import { formatLabelSelector, type LabelSelectorSpec } from '../../../apimachinery/labels/selector.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { column } from '../../../apimachinery/table/table.js';
import type { TablePrinter } from '../../../apimachinery/table/builtin-printers.js';
import { ageColumn, ageOf, containersColumn, imagesColumn, formatLabels, int, list, nameColumn, nameOf, obj, str, templateContainerCells } from './printers.js';
import { BETA_STORAGE_CLASS_ANNOTATION } from './storage-validation.js';

const annotationsOf = (o: JsonObject): JsonObject => obj(obj(o.metadata).annotations);
const deleting = (o: JsonObject): boolean => Boolean(obj(o.metadata).deletionTimestamp);

/** helper.GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, each once. */
function accessModes(modes: unknown): string {
  const set = new Set(Array.isArray(modes) ? modes.map(String) : []);
  return [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ]
    .filter(([mode]) => set.has(mode!))
    .map(([, short]) => short)
    .join(',');
}

/** The first `max` items, then ` + N more...` (listWithMoreString); `<unset>` when there are none. */
function listWithMore(items: string[], max = 3): string {
  const shown = items.slice(0, max).join(',');
  if (items.length > max) return `${shown} + ${items.length - max} more...`;
  return shown || '<unset>';
}

const storageClassColumn = (what: string) => column('StorageClass', 'string', `StorageClass of the ${what}.`);
const attributesClassColumn = (what: string) => column('VolumeAttributesClass', 'string', `VolumeAttributesClass of the ${what}.`);
const volumeModeColumn = column('VolumeMode', 'string', 'Whether the volume holds a filesystem or is a raw block device.', { priority: 1 });

export const persistentVolumeClaimPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Status', 'string', 'Phase of the claim: Pending, Bound or Lost.'),
    column('Volume', 'string', 'The PersistentVolume the claim is bound to.'),
    column('Capacity', 'string', 'Storage of the bound volume.'),
    column('Access Modes', 'string', 'Access modes of the bound volume.'),
    storageClassColumn('pvc'),
    attributesClassColumn('pvc'),
    ageColumn,
    volumeModeColumn,
  ],
  row(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const volumeName = str(spec.volumeName);
    const className = BETA_STORAGE_CLASS_ANNOTATION in annotationsOf(o) ? str(annotationsOf(o)[BETA_STORAGE_CLASS_ANNOTATION]) : str(spec.storageClassName);
    return [
      nameOf(o),
      deleting(o) ? 'Terminating' : str(status.phase),
      volumeName,
      volumeName ? String(obj(status.capacity).storage ?? '0') : '',
      volumeName ? accessModes(status.accessModes) : '',
      className,
      typeof spec.volumeAttributesClassName === 'string' ? spec.volumeAttributesClassName : '<unset>',
      ageOf(o, now),
      typeof spec.volumeMode === 'string' ? spec.volumeMode : '<unset>',
    ];
  },
};

export const persistentVolumePrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Capacity', 'string', 'Storage the volume offers.'),
    column('Access Modes', 'string', 'How the volume may be mounted.'),
    column('Reclaim Policy', 'string', 'What happens to the volume once its claim is gone.'),
    column('Status', 'string', 'Phase of the volume: Pending, Available, Bound, Released or Failed.'),
    column('Claim', 'string', 'The claim bound to the volume, as namespace/name.'),
    storageClassColumn('pv'),
    attributesClassColumn('pv'),
    column('Reason', 'string', 'Why the volume is in this phase, when it failed.'),
    ageColumn,
    volumeModeColumn,
  ],
  row(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const claimRef = isPlainObject(spec.claimRef) ? `${str(spec.claimRef.namespace)}/${str(spec.claimRef.name)}` : '';
    const className = BETA_STORAGE_CLASS_ANNOTATION in annotationsOf(o) ? str(annotationsOf(o)[BETA_STORAGE_CLASS_ANNOTATION]) : str(spec.storageClassName);
    return [
      nameOf(o),
      String(obj(spec.capacity).storage ?? '0'),
      accessModes(spec.accessModes),
      str(spec.persistentVolumeReclaimPolicy),
      deleting(o) ? 'Terminating' : str(status.phase),
      claimRef,
      className,
      typeof spec.volumeAttributesClassName === 'string' ? spec.volumeAttributesClassName : '<unset>',
      str(status.reason),
      ageOf(o, now),
      typeof spec.volumeMode === 'string' ? spec.volumeMode : '<unset>',
    ];
  },
};

export const replicationControllerPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Desired', 'integer', 'Desired number of pods.'),
    column('Current', 'integer', 'Pods currently counted.'),
    column('Ready', 'integer', 'Pods that are ready.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    column('Selector', 'string', 'Labels of the pods the controller counts.', { priority: 1 }),
  ],
  row(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const [names, images] = templateContainerCells(spec.template);
    return [nameOf(o), int(spec.replicas), int(status.replicas), int(status.readyReplicas), ageOf(o, now), names, images, formatLabels(spec.selector)];
  },
};

/** formatEndpoints: ip:port for every ready address and port (bare IPs for port-less subsets), at most 3 shown. */
function formatEndpoints(o: JsonObject): string {
  const subsets = list(o.subsets);
  if (subsets.length === 0) return '<none>';
  const shown: string[] = [];
  let count = 0;
  let more = false;
  for (const subset of subsets) {
    const addresses = list(subset.addresses);
    const ports = list(subset.ports);
    const targets = ports.length === 0 ? [undefined] : ports;
    for (const port of targets) {
      count += addresses.length;
      for (const address of addresses) {
        if (shown.length === 3) {
          more = true;
          break;
        }
        const ip = str(address.ip);
        if (port === undefined) shown.push(ip);
        else shown.push(ip.includes(':') ? `[${ip}]:${int(port.port)}` : `${ip}:${int(port.port)}`);
      }
    }
  }
  const joined = shown.join(',');
  return more ? `${joined} + ${count - 3} more...` : joined;
}

export const endpointsPrinter: TablePrinter = {
  columns: [nameColumn, column('Endpoints', 'string', 'Ready addresses and ports behind the service.'), ageColumn],
  row: (o, now) => [nameOf(o), formatEndpoints(o), ageOf(o, now)],
};

export const endpointSlicePrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('AddressType', 'string', 'Kind of address every endpoint of the slice has.'),
    column('Ports', 'string', 'Ports the endpoints serve.'),
    column('Endpoints', 'string', 'Addresses of the endpoints.'),
    ageColumn,
  ],
  row(o, now) {
    const ports = list(o.ports).map((p) => (typeof p.port === 'number' ? String(p.port) : typeof p.name === 'string' ? p.name : '*'));
    const addresses = list(o.endpoints).flatMap((e) => (Array.isArray(e.addresses) ? e.addresses.map(String) : []));
    return [nameOf(o), str(o.addressType), listWithMore(ports), listWithMore(addresses), ageOf(o, now)];
  },
};

export const podTemplatePrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Containers', 'string', 'Names of the containers in the template.'),
    column('Images', 'string', 'Images of the containers in the template.'),
    column('Pod Labels', 'string', 'Labels of the pods made from the template.'),
  ],
  row(o) {
    const template = obj(o.template);
    const [names, images] = templateContainerCells(template);
    return [nameOf(o), names, images, formatLabels(obj(template.metadata).labels)];
  },
};

/** formatHosts: the rules' hosts, at most 3 shown, `*` when none has a host. */
function ingressHosts(rules: JsonObject[]): string {
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === 3) more = true;
    if (!more && str(rule.host)) hosts.push(str(rule.host));
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - 3} more...` : hosts.join(',');
}

export const ingressPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Class', 'string', 'The IngressClass that implements the ingress.'),
    column('Hosts', 'string', 'Hosts the rules match.'),
    column('Address', 'string', 'Addresses of the load balancer serving the ingress.'),
    column('Ports', 'string', 'Ports the ingress is served on: 443 too when it has TLS settings.'),
    ageColumn,
  ],
  row(o, now) {
    const spec = obj(o.spec);
    const addresses = [
      ...new Set(
        list(obj(obj(o.status).loadBalancer).ingress)
          .map((i) => str(i.ip) || str(i.hostname))
          .filter(Boolean),
      ),
    ].sort();
    return [
      nameOf(o),
      typeof spec.ingressClassName === 'string' ? spec.ingressClassName : '<none>',
      ingressHosts(list(spec.rules)),
      addresses.join(','),
      list(spec.tls).length ? '80, 443' : '80',
      ageOf(o, now),
    ];
  },
};

export const ingressClassPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Controller', 'string', 'The controller that implements ingresses of this class.'),
    column('Parameters', 'string', 'The object with the controller parameters, as Kind.group/name.'),
    ageColumn,
  ],
  row(o, now) {
    const spec = obj(o.spec);
    let parameters = '<none>';
    if (isPlainObject(spec.parameters)) {
      const p = spec.parameters;
      parameters = `${str(p.kind)}${typeof p.apiGroup === 'string' ? `.${p.apiGroup}` : ''}/${str(p.name)}`;
    }
    return [nameOf(o), str(spec.controller), parameters, ageOf(o, now)];
  },
};

export const networkPolicyPrinter: TablePrinter = {
  columns: [nameColumn, column('Pod-Selector', 'string', 'The pods the policy applies to.'), ageColumn],
  row: (o, now) => [nameOf(o), formatLabelSelector((obj(o.spec).podSelector ?? {}) as LabelSelectorSpec), ageOf(o, now)],
};

/** storageutil.IsDefaultAnnotation: the GA or beta is-default-class annotation set to "true". */
export function isDefaultStorageClass(o: JsonObject): boolean {
  const annotations = annotationsOf(o);
  return annotations['storageclass.kubernetes.io/is-default-class'] === 'true' || annotations['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
}

export const storageClassPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Provisioner', 'string', 'The provisioner of volumes of this class.'),
    column('ReclaimPolicy', 'string', 'Reclaim policy of the volumes provisioned.'),
    column('VolumeBindingMode', 'string', 'When claims of this class are bound and provisioned.'),
    column('AllowVolumeExpansion', 'string', 'Whether claims of this class may grow.'),
    ageColumn,
  ],
  row(o, now) {
    return [
      isDefaultStorageClass(o) ? `${nameOf(o)} (default)` : nameOf(o),
      str(o.provisioner),
      str(o.reclaimPolicy) || 'Delete',
      str(o.volumeBindingMode) || 'Immediate',
      o.allowVolumeExpansion === true,
      ageOf(o, now),
    ];
  },
};
