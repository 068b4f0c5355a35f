/**
 * Validation of networking.k8s.io/v1 Ingresses, IngressClasses and NetworkPolicies with kube-apiserver 1.32's field
 * paths and messages (pkg/apis/networking/validation).
 */
import * as fe from '../../../apimachinery/field-errors.js';
import { type FieldError, FieldPath } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { validateLabelSelector } from '../../../apimachinery/validation/label-selector.js';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isValidPathSegmentName,
  isWildcardDNS1123Subdomain,
} from '../../../apimachinery/validation/names.js';
import { FIELD_IMMUTABLE_ERROR_MSG } from '../../../apimachinery/validation/object-meta.js';
import { cidrStrictlyContains, isValidPortName, isValidPortNum, parseCIDR, parseIP, validateCIDR } from '../../../apimachinery/validation/network.js';

function asObject(v: unknown): JsonObject {
  return isPlainObject(v) ? v : {};
}
function objects(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.map(asObject) : [];
}
function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';
const supportedPathTypes = ['Exact', 'ImplementationSpecific', 'Prefix'];
const invalidPathSequences = ['//', '/./', '/../', '%2f', '%2F'];
const invalidPathSuffixes = ['/..', '/.'];

/** An Ingress or IngressClass parameters reference (validateIngressTypedLocalObjectReference). */
function validateTypedReference(ref: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof ref.apiGroup === 'string') for (const msg of isDNS1123Subdomain(ref.apiGroup)) errs.push(fe.invalid(path.child('apiGroup').toString(), ref.apiGroup, msg));
  for (const field of ['kind', 'name'] as const) {
    const value = str(ref[field]);
    if (!value) errs.push(fe.required(path.child(field).toString(), `${field} is required`));
    else for (const msg of isValidPathSegmentName(value)) errs.push(fe.invalid(path.child(field).toString(), value, msg));
  }
  return errs;
}

/** validateIngressBackend: a service (name and a port name or number) or a resource, not both. */
function validateIngressBackend(backendValue: unknown, path: FieldPath): FieldError[] {
  const backend = asObject(backendValue);
  const hasResource = isPlainObject(backend.resource);
  const hasService = isPlainObject(backend.service);
  if (hasResource && hasService) return [fe.invalid(path.toString(), '', 'cannot set both resource and service backends')];
  if (hasResource) return validateTypedReference(backend.resource as JsonObject, path.child('resource'));
  if (!hasService) return [fe.invalid(path.toString(), '', 'resource or service backend is required')];
  const errs: FieldError[] = [];
  const service = backend.service as JsonObject;
  const name = str(service.name);
  if (!name) errs.push(fe.required(path.child('service').child('name').toString()));
  else for (const msg of isDNS1035Label(name)) errs.push(fe.invalid(path.child('service').child('name').toString(), name, msg));
  const port = asObject(service.port);
  const portName = str(port.name);
  const portNumber = typeof port.number === 'number' ? port.number : 0;
  if (portName && portNumber !== 0) errs.push(fe.invalid(path.toString(), '', 'cannot set both port name & port number'));
  else if (portName) for (const msg of isValidPortName(portName)) errs.push(fe.invalid(path.child('service').child('port').child('name').toString(), portName, msg));
  else if (portNumber !== 0) for (const msg of isValidPortNum(portNumber)) errs.push(fe.invalid(path.child('service').child('port').child('number').toString(), portNumber, msg));
  else errs.push(fe.required(path.toString(), 'port name or number is required'));
  return errs;
}

function validateHTTPIngressPath(p: JsonObject, path: FieldPath): FieldError[] {
  if (p.pathType === undefined || p.pathType === null) return [fe.required(path.child('pathType').toString(), 'pathType must be specified')];
  const errs: FieldError[] = [];
  const value = str(p.path);
  const pathPath = path.child('path').toString();
  switch (p.pathType) {
    case 'Exact':
    case 'Prefix':
      if (!value.startsWith('/')) errs.push(fe.invalid(pathPath, value, 'must be an absolute path'));
      if (value.length > 0) {
        for (const seq of invalidPathSequences) if (value.includes(seq)) errs.push(fe.invalid(pathPath, value, `must not contain '${seq}'`));
        for (const suffix of invalidPathSuffixes) if (value.endsWith(suffix)) errs.push(fe.invalid(pathPath, value, `cannot end with '${suffix}'`));
      }
      break;
    case 'ImplementationSpecific':
      if (value.length > 0 && !value.startsWith('/')) errs.push(fe.invalid(pathPath, value, 'must be an absolute path'));
      break;
    default:
      errs.push(fe.notSupported(path.child('pathType').toString(), p.pathType, supportedPathTypes));
  }
  errs.push(...validateIngressBackend(p.backend, path.child('backend')));
  return errs;
}

function validateIngressRuleValue(rule: JsonObject, path: FieldPath): FieldError[] {
  if (!isPlainObject(rule.http)) return [];
  const http = rule.http;
  const errs: FieldError[] = [];
  const paths = objects(http.paths);
  if (paths.length === 0) errs.push(fe.required(path.child('http').child('paths').toString()));
  paths.forEach((p, i) => errs.push(...validateHTTPIngressPath(p, path.child('http').child('paths').index(i))));
  return errs;
}

interface IngressValidationOptions {
  allowInvalidSecretName: boolean;
  allowInvalidWildcardHostRule: boolean;
}

function validateIngressRules(rules: JsonObject[], path: FieldPath, opts: IngressValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const host = str(rule.host);
    const hostPath = path.index(i).child('host').toString();
    let wildcard = false;
    if (host.length > 0) {
      if (parseIP(host)) errs.push(fe.invalid(hostPath, host, 'must be a DNS name, not an IP address'));
      if (host.includes('*')) {
        for (const msg of isWildcardDNS1123Subdomain(host)) errs.push(fe.invalid(hostPath, host, msg));
        wildcard = true;
      } else {
        for (const msg of isDNS1123Subdomain(host)) errs.push(fe.invalid(hostPath, host, msg));
      }
    }
    if (!wildcard || !opts.allowInvalidWildcardHostRule) errs.push(...validateIngressRuleValue(rule, path.index(i)));
  });
  return errs;
}

function validateIngressSpec(specValue: unknown, opts: IngressValidationOptions): FieldError[] {
  const spec = asObject(specValue);
  const path = FieldPath.root('spec');
  const errs: FieldError[] = [];
  const rules = objects(spec.rules);
  if (rules.length === 0 && !isPlainObject(spec.defaultBackend)) {
    // Go prints the rules with %#v: "null" when absent, the empty slice's type when empty.
    const empty = Array.isArray(spec.rules) ? { renderedValue: '[]networking.IngressRule{}' } : {};
    errs.push({ ...fe.invalid('spec', null, 'either `defaultBackend` or `rules` must be specified'), ...empty });
  }
  if (isPlainObject(spec.defaultBackend)) errs.push(...validateIngressBackend(spec.defaultBackend, path.child('defaultBackend')));
  if (rules.length > 0) errs.push(...validateIngressRules(rules, path.child('rules'), opts));
  objects(spec.tls).forEach((tls, i) => {
    const tlsPath = path.child('tls').index(i);
    (Array.isArray(tls.hosts) ? tls.hosts : []).forEach((rawHost, j) => {
      const host = String(rawHost);
      const check = host.includes('*') ? isWildcardDNS1123Subdomain : isDNS1123Subdomain;
      for (const msg of check(host)) errs.push(fe.invalid(tlsPath.child('hosts').index(j).toString(), host, msg));
    });
    const secretName = str(tls.secretName);
    if (!opts.allowInvalidSecretName && secretName) {
      for (const msg of isDNS1123Subdomain(secretName)) errs.push(fe.invalid(tlsPath.child('secretName').toString(), secretName, msg));
    }
  });
  if (typeof spec.ingressClassName === 'string') {
    for (const msg of isDNS1123Subdomain(spec.ingressClassName)) errs.push(fe.invalid('spec.ingressClassName', spec.ingressClassName, msg));
  }
  return errs;
}

/** ValidateIngressCreate: the spec, and the deprecated class annotation agreeing with ingressClassName. */
export function validateIngressCreate(obj: JsonObject): FieldError[] {
  const errs = validateIngressSpec(obj.spec, { allowInvalidSecretName: false, allowInvalidWildcardHostRule: false });
  const annotations = asObject(asObject(obj.metadata).annotations);
  const className = asObject(obj.spec).ingressClassName;
  if (INGRESS_CLASS_ANNOTATION in annotations && typeof className === 'string' && annotations[INGRESS_CLASS_ANNOTATION] !== className) {
    errs.push(fe.invalid(`annotations.${INGRESS_CLASS_ANNOTATION}`, annotations[INGRESS_CLASS_ANNOTATION], 'must match `ingressClassName` when both are specified'));
  }
  return errs;
}

/** ValidateIngressUpdate: invalid values an existing object already stored stay allowed. */
export function validateIngressUpdate(obj: JsonObject, old: JsonObject): FieldError[] {
  const oldSpec = asObject(old.spec);
  const allowInvalidSecretName = objects(oldSpec.tls).some((tls) => str(tls.secretName) !== '' && isDNS1123Subdomain(str(tls.secretName)).length > 0);
  const allowInvalidWildcardHostRule = objects(oldSpec.rules).some((rule) => str(rule.host).includes('*') && validateIngressRuleValue(rule, FieldPath.root('')).length > 0);
  return validateIngressSpec(obj.spec, { allowInvalidSecretName, allowInvalidWildcardHostRule });
}

/** ValidateIngressStatusUpdate: load balancer IPs and hostnames. */
export function validateIngressStatus(obj: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  objects(asObject(asObject(obj.status).loadBalancer).ingress).forEach((ingress, i) => {
    const at = FieldPath.root('status').child('loadBalancer').child('ingress').index(i);
    const ip = str(ingress.ip);
    if (ip && !parseIP(ip)) errs.push(fe.invalid(at.child('ip').toString(), ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    const hostname = str(ingress.hostname);
    if (hostname) {
      for (const msg of isDNS1123Subdomain(hostname)) errs.push(fe.invalid(at.child('hostname').toString(), hostname, msg));
      if (parseIP(hostname)) errs.push(fe.invalid(at.child('hostname').toString(), hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

/** Warnings on create: the deprecated class annotation without ingressClassName. */
export function ingressWarnings(obj: JsonObject): string[] {
  const annotations = asObject(asObject(obj.metadata).annotations);
  if (INGRESS_CLASS_ANNOTATION in annotations && asObject(obj.spec).ingressClassName === undefined) {
    return [`annotation "${INGRESS_CLASS_ANNOTATION}" is deprecated, please use 'spec.ingressClassName' instead`];
  }
  return [];
}

const httpPathRegexp = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

/** validateIngressClassSpec: a domain-prefixed controller name and a well-formed parameters reference. */
export function validateIngressClass(obj: JsonObject): FieldError[] {
  const spec = asObject(obj.spec);
  const errs: FieldError[] = [];
  const controller = str(spec.controller);
  if (controller.length > 250) errs.push(fe.tooLong('spec.controller', '', 250));
  if (!controller) errs.push(fe.required('spec.controller'));
  else {
    const slash = controller.indexOf('/');
    const host = slash < 0 ? '' : controller.slice(0, slash);
    const rest = slash < 0 ? '' : controller.slice(slash + 1);
    if (!host || !rest) errs.push(fe.invalid('spec.controller', controller, 'must be a domain-prefixed path (such as "acme.io/foo")'));
    else {
      for (const msg of isDNS1123Subdomain(host)) errs.push(fe.invalid('spec.controller', host, msg));
      if (!httpPathRegexp.test(rest)) {
        errs.push(fe.invalid('spec.controller', rest, "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"));
      }
    }
  }
  if (isPlainObject(spec.parameters)) {
    const params = spec.parameters;
    const path = FieldPath.root('spec').child('parameters');
    errs.push(...validateTypedReference(params, path));
    if (params.scope === undefined || params.scope === null) errs.push(fe.required(path.child('scope').toString()));
    else if (!['Cluster', 'Namespace'].includes(String(params.scope))) errs.push(fe.notSupported(path.child('scope').toString(), params.scope, ['Cluster', 'Namespace']));
    else {
      if (params.scope === 'Namespace') {
        if (params.namespace === undefined || params.namespace === null) errs.push(fe.required(path.child('namespace').toString(), "`parameters.scope` is set to 'Namespace'"));
        else for (const msg of isDNS1123Label(str(params.namespace))) errs.push(fe.invalid(path.child('namespace').toString(), params.namespace, msg));
      }
      if (params.scope === 'Cluster' && params.namespace !== undefined && params.namespace !== null) {
        errs.push(fe.forbidden(path.child('namespace').toString(), "`parameters.scope` is set to 'Cluster'"));
      }
    }
  }
  return errs;
}

/** ValidateIngressClassUpdate: the controller cannot change. */
export function validateIngressClassUpdate(obj: JsonObject, old: JsonObject): FieldError[] {
  const controller = asObject(obj.spec).controller ?? '';
  const errs = controller === (asObject(old.spec).controller ?? '') ? [] : [fe.invalid('spec.controller', controller, FIELD_IMMUTABLE_ERROR_MSG)];
  return [...errs, ...validateIngressClass(obj)];
}

function validateNetworkPolicyPort(port: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (port.protocol !== undefined && port.protocol !== null && !['TCP', 'UDP', 'SCTP'].includes(String(port.protocol))) {
    errs.push(fe.notSupported(path.child('protocol').toString(), port.protocol, ['TCP', 'UDP', 'SCTP']));
  }
  const endPort = port.endPort;
  const hasEndPort = endPort !== undefined && endPort !== null;
  if (port.port !== undefined && port.port !== null) {
    if (typeof port.port === 'number') {
      for (const msg of isValidPortNum(port.port)) errs.push(fe.invalid(path.child('port').toString(), port.port, msg));
      if (hasEndPort) {
        if (typeof endPort === 'number' && endPort < port.port) errs.push(fe.invalid(path.child('endPort').toString(), port.port, 'must be greater than or equal to `port`'));
        for (const msg of isValidPortNum(endPort)) errs.push(fe.invalid(path.child('endPort').toString(), endPort, msg));
      }
    } else {
      if (hasEndPort) errs.push(fe.invalid(path.child('endPort').toString(), endPort, 'may not be specified when `port` is non-numeric'));
      for (const msg of isValidPortName(String(port.port))) errs.push(fe.invalid(path.child('port').toString(), port.port, msg));
    }
  } else if (hasEndPort) {
    errs.push(fe.invalid(path.child('endPort').toString(), endPort, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

function validateIPBlock(block: JsonObject, path: FieldPath): FieldError[] {
  const cidr = str(block.cidr);
  if (!cidr) return [fe.required(path.child('cidr').toString())];
  const errs = validateCIDR(cidr, path.child('cidr').toString());
  const outer = parseCIDR(cidr);
  if (!outer) return errs;
  (Array.isArray(block.except) ? block.except : []).forEach((raw, i) => {
    const except = String(raw);
    const at = path.child('except').index(i).toString();
    errs.push(...validateCIDR(except, at));
    const inner = parseCIDR(except);
    if (inner && !cidrStrictlyContains(outer, inner)) errs.push(fe.invalid(at, except, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

function validateNetworkPolicyPeer(peer: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let peers = 0;
  if (isPlainObject(peer.podSelector)) {
    peers++;
    errs.push(...validateLabelSelector(peer.podSelector, path.child('podSelector')));
  }
  if (isPlainObject(peer.namespaceSelector)) {
    peers++;
    errs.push(...validateLabelSelector(peer.namespaceSelector, path.child('namespaceSelector')));
  }
  if (isPlainObject(peer.ipBlock)) {
    peers++;
    errs.push(...validateIPBlock(peer.ipBlock, path.child('ipBlock')));
  }
  if (peers === 0) errs.push(fe.required(path.toString(), 'must specify a peer'));
  else if (peers > 1 && isPlainObject(peer.ipBlock)) errs.push(fe.forbidden(path.toString(), 'may not specify both ipBlock and another peer'));
  return errs;
}

/** ValidateNetworkPolicySpec. */
export function validateNetworkPolicy(obj: JsonObject): FieldError[] {
  const spec = asObject(obj.spec);
  const path = FieldPath.root('spec');
  const errs = validateLabelSelector(spec.podSelector, path.child('podSelector'));
  for (const [direction, peersField] of [['ingress', 'from'], ['egress', 'to']] as const) {
    objects(spec[direction]).forEach((rule, i) => {
      const rulePath = path.child(direction).index(i);
      objects(rule.ports).forEach((port, j) => errs.push(...validateNetworkPolicyPort(port, rulePath.child('ports').index(j))));
      objects(rule[peersField]).forEach((peer, j) => errs.push(...validateNetworkPolicyPeer(peer, rulePath.child(peersField).index(j))));
    });
  }
  const policyTypes = Array.isArray(spec.policyTypes) ? spec.policyTypes : [];
  if (policyTypes.length > 2) return [...errs, fe.invalid('spec.policyTypes', policyTypes, 'may not specify more than two policyTypes')];
  policyTypes.forEach((t, i) => {
    if (t !== 'Ingress' && t !== 'Egress') errs.push(fe.notSupported(path.child('policyTypes').index(i).toString(), t, ['Ingress', 'Egress']));
  });
  return errs;
}
