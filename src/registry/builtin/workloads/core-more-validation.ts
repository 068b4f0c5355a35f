/**
 * Validation of ReplicationControllers, PodTemplates, Endpoints and EndpointSlices with kube-apiserver 1.32's field
 * paths and messages (pkg/apis/core/validation, pkg/apis/discovery/validation).
 */
import * as fe from '../../../apimachinery/field-errors.js';
import { type FieldError, FieldPath } from '../../../apimachinery/field-errors.js';
import { selectorFromSet } from '../../../apimachinery/labels/selector.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../../apimachinery/validation/names.js';
import { FIELD_IMMUTABLE_ERROR_MSG, validateLabels, validateNonnegativeField } from '../../../apimachinery/validation/object-meta.js';
import {
  isValidPortNum,
  validateFullyQualifiedDomainName,
  validateIP,
  validateIPv4Address,
  validateIPv6Address,
  validateNonSpecialIP,
} from '../../../apimachinery/validation/network.js';
import { validatePodTemplateSpec as validateTemplate } from './validation.js';

function asObject(v: unknown): JsonObject {
  return isPlainObject(v) ? v : {};
}
function objects(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.map(asObject) : [];
}
function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
function int(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

const protocols = ['SCTP', 'TCP', 'UDP'];

/** A map[string]string as Go's %#v prints it in a field error: `map[string]string{"a":"1", "b":"2"}`, keys sorted. */
function goStringMap(value: unknown): string {
  if (!isPlainObject(value)) return 'map[string]string(nil)';
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[string]string{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(String(v))}`).join(', ')}}`;
}

/** ValidatePodTemplateSpec (validation.ts), at a FieldPath. */
export function validatePodTemplateSpec(template: JsonObject, path: FieldPath): FieldError[] {
  return validateTemplate(template, path.toString());
}

/** ValidatePodTemplate. */
export function validatePodTemplate(obj: JsonObject): FieldError[] {
  return validatePodTemplateSpec(asObject(obj.template), FieldPath.root('template'));
}

/** ValidateReplicationControllerSpec: a non-empty selector matching the template's labels, and a restartable template. */
export function validateReplicationController(obj: JsonObject): FieldError[] {
  const spec = asObject(obj.spec);
  const path = FieldPath.root('spec');
  const errs = validateNonnegativeField(int(spec.minReadySeconds), path.child('minReadySeconds'));
  const selector = isPlainObject(spec.selector) ? (spec.selector as Record<string, string>) : {};
  if (Object.keys(selector).length === 0) errs.push(fe.required('spec.selector'));
  errs.push(...validateNonnegativeField(int(spec.replicas), path.child('replicas')));
  if (!isPlainObject(spec.template)) {
    errs.push(fe.required('spec.template'));
    return errs;
  }
  const template = spec.template;
  const labels = asObject(asObject(template.metadata).labels) as Record<string, string>;
  if (Object.keys(selector).length > 0 && !selectorFromSet(selector).matches(labels)) {
    errs.push({ ...fe.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'), renderedValue: goStringMap(asObject(template.metadata).labels) });
  }
  errs.push(...validatePodTemplateSpec(template, path.child('template')));
  const podSpec = asObject(template.spec);
  if (podSpec.restartPolicy !== 'Always') errs.push(fe.notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy ?? '', ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    errs.push(fe.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicationController is not Supported'));
  }
  return errs;
}

/** ValidateReplicationControllerStatus (the /status subresource). */
export function validateReplicationControllerStatus(obj: JsonObject): FieldError[] {
  const status = asObject(obj.status);
  const path = FieldPath.root('status');
  const errs: FieldError[] = [];
  for (const field of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']) {
    errs.push(...validateNonnegativeField(int(status[field]), path.child(field)));
  }
  const msg = 'cannot be greater than status.replicas';
  for (const field of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']) {
    if (int(status[field]) > int(status.replicas)) errs.push(fe.invalid(`status.${field}`, int(status[field]), msg));
  }
  if (int(status.availableReplicas) > int(status.readyReplicas)) errs.push(fe.invalid('status.availableReplicas', int(status.availableReplicas), 'cannot be greater than readyReplicas'));
  return errs;
}

function validateEndpointAddress(address: JsonObject, path: FieldPath): FieldError[] {
  const ip = str(address.ip);
  const errs = validateIP(ip, path.child('ip').toString());
  if (str(address.hostname)) for (const msg of isDNS1123Label(str(address.hostname))) errs.push(fe.invalid(path.child('hostname').toString(), address.hostname, msg));
  if (typeof address.nodeName === 'string') {
    for (const msg of isDNS1123Subdomain(address.nodeName)) errs.push(fe.invalid(path.child('nodeName').toString(), address.nodeName, msg));
  }
  errs.push(...validateNonSpecialIP(ip, path.child('ip').toString()));
  return errs;
}

function validateQualifiedName(value: string, path: string): FieldError[] {
  return isQualifiedName(value).map((msg) => fe.invalid(path, value, msg));
}

/** ValidateEndpoints: every subset has addresses, valid IPs, and (with several ports) named ports. */
export function validateEndpoints(obj: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  objects(obj.subsets).forEach((subset, i) => {
    const path = FieldPath.root('subsets').index(i);
    const addresses = objects(subset.addresses);
    const notReady = objects(subset.notReadyAddresses);
    if (addresses.length === 0 && notReady.length === 0) errs.push(fe.required(path.toString(), 'must specify `addresses` or `notReadyAddresses`'));
    addresses.forEach((a, j) => errs.push(...validateEndpointAddress(a, path.child('addresses').index(j))));
    notReady.forEach((a, j) => errs.push(...validateEndpointAddress(a, path.child('notReadyAddresses').index(j))));
    const ports = objects(subset.ports);
    ports.forEach((port, j) => {
      const at = path.child('ports').index(j);
      const name = str(port.name);
      if (ports.length > 1 && !name) errs.push(fe.required(at.child('name').toString()));
      else if (name) for (const msg of isDNS1123Label(name)) errs.push(fe.invalid(at.child('name').toString(), name, msg));
      for (const msg of isValidPortNum(port.port)) errs.push(fe.invalid(at.child('port').toString(), port.port ?? 0, msg));
      if (!str(port.protocol)) errs.push(fe.required(at.child('protocol').toString()));
      else if (!protocols.includes(str(port.protocol))) errs.push(fe.notSupported(at.child('protocol').toString(), port.protocol, protocols));
      if (typeof port.appProtocol === 'string') errs.push(...validateQualifiedName(port.appProtocol, at.child('appProtocol').toString()));
    });
  });
  return errs;
}

const addressTypes = ['FQDN', 'IPv4', 'IPv6'];

/** ValidateEndpointSlice. */
export function validateEndpointSlice(obj: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const addressType = str(obj.addressType);
  if (!addressType) errs.push(fe.required('addressType'));
  else if (!addressTypes.includes(addressType)) errs.push(fe.notSupported('addressType', addressType, addressTypes));
  const endpoints = objects(obj.endpoints);
  if (endpoints.length > 1000) errs.push(fe.tooMany('endpoints', endpoints.length, 1000));
  else {
    endpoints.forEach((endpoint, i) => {
      const path = FieldPath.root('endpoints').index(i);
      const addressPath = path.child('addresses');
      const addresses = Array.isArray(endpoint.addresses) ? endpoint.addresses.map(String) : [];
      if (addresses.length === 0) errs.push(fe.required(addressPath.toString(), 'must contain at least 1 address'));
      else if (addresses.length > 100) errs.push(fe.tooMany(addressPath.toString(), addresses.length, 100));
      addresses.forEach((address, j) => {
        const at = addressPath.index(j).toString();
        if (addressType === 'IPv4') errs.push(...validateIPv4Address(address, at), ...validateNonSpecialIP(address, at));
        else if (addressType === 'IPv6') errs.push(...validateIPv6Address(address, at), ...validateNonSpecialIP(address, at));
        else if (addressType === 'FQDN') errs.push(...validateFullyQualifiedDomainName(address, at));
      });
      if (typeof endpoint.nodeName === 'string') {
        for (const msg of isDNS1123Subdomain(endpoint.nodeName)) errs.push(fe.invalid(path.child('nodeName').toString(), endpoint.nodeName, msg));
      }
      const topology = isPlainObject(endpoint.deprecatedTopology) ? (endpoint.deprecatedTopology as Record<string, string>) : undefined;
      if (topology && Object.keys(topology).length > 16) errs.push(fe.tooMany(path.child('deprecatedTopology').toString(), Object.keys(topology).length, 16));
      errs.push(...validateLabels(topology, path.child('deprecatedTopology')));
      if (typeof endpoint.hostname === 'string') {
        for (const msg of isDNS1123Label(endpoint.hostname)) errs.push(fe.invalid(path.child('hostname').toString(), endpoint.hostname, msg));
      }
      if (isPlainObject(endpoint.hints)) {
        const zones = objects(endpoint.hints.forZones);
        const zonesPath = path.child('hints').child('forZones');
        if (zones.length > 8) errs.push(fe.tooMany(zonesPath.toString(), zones.length, 8));
        else {
          const seen = new Set<string>();
          zones.forEach((zone, j) => {
            const at = zonesPath.index(j).child('name').toString();
            const name = str(zone.name);
            if (seen.has(name)) errs.push(fe.duplicate(at, name));
            seen.add(name);
            for (const msg of isValidLabelValue(name)) errs.push(fe.invalid(at, name, msg));
          });
        }
      }
    });
  }
  const ports = objects(obj.ports);
  if (ports.length > 20000) errs.push(fe.tooMany('ports', ports.length, 20000));
  else {
    const names = new Set<string>();
    ports.forEach((port, i) => {
      const path = FieldPath.root('ports').index(i);
      const name = str(port.name);
      if (name) for (const msg of isDNS1123Label(name)) errs.push(fe.invalid(path.child('name').toString(), name, msg));
      if (names.has(name)) errs.push(fe.duplicate(path.child('name').toString(), name));
      names.add(name);
      if (port.protocol === undefined || port.protocol === null) errs.push(fe.required(path.child('protocol').toString()));
      else if (!protocols.includes(String(port.protocol))) errs.push(fe.notSupported(path.child('protocol').toString(), port.protocol, protocols));
      if (typeof port.appProtocol === 'string') errs.push(...validateQualifiedName(port.appProtocol, path.child('appProtocol').toString()));
    });
  }
  return errs;
}

/** ValidateEndpointSliceUpdate: the address type cannot change. */
export function validateEndpointSliceUpdate(obj: JsonObject, old: JsonObject): FieldError[] {
  const errs = validateEndpointSlice(obj);
  if ((obj.addressType ?? '') !== (old.addressType ?? '')) errs.push(fe.invalid('addressType', obj.addressType ?? '', FIELD_IMMUTABLE_ERROR_MSG));
  return errs;
}

/** Warnings on create: FQDN slices are deprecated. */
export function endpointSliceWarnings(obj: JsonObject): string[] {
  return obj.addressType === 'FQDN' ? ['spec.addressType: FQDN endpoints are deprecated'] : [];
}
