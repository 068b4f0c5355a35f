/**
 * The resource names quotas and limit ranges speak (k8s.io/api core/v1 ResourceName constants and
 * pkg/apis/core/helper): which names are standard, which must be whole numbers, which are extended resources.
 */
import { isQualifiedName } from '../validation/names.js';

export const REQUESTS_PREFIX = 'requests.';
export const HUGEPAGES_PREFIX = 'hugepages-';
export const REQUESTS_HUGEPAGES_PREFIX = 'requests.hugepages-';
const DEFAULT_NAMESPACE_PREFIX = 'kubernetes.io/';

/** The object count name of a group/resource: `count/<resource>[.<group>]` (ObjectCountQuotaResourceNameFor). */
export function objectCountName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

/** The legacy object count names, by core/v1 resource (the aliases upstream keeps for backwards compatibility). */
export const legacyCountNames: Readonly<Record<string, string>> = {
  configmaps: 'configmaps',
  resourcequotas: 'resourcequotas',
  replicationcontrollers: 'replicationcontrollers',
  secrets: 'secrets',
  services: 'services',
  persistentvolumeclaims: 'persistentvolumeclaims',
  pods: 'pods',
};

const standardQuotaResources = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers',
  'secrets', 'persistentvolumeclaims', 'configmaps', 'services.nodeports', 'services.loadbalancers',
]);

const standardResources = new Set([...standardQuotaResources, 'storage']);

const integerResources = new Set([
  'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims',
  'services.nodeports', 'services.loadbalancers',
]);

const standardContainerResources = new Set(['cpu', 'memory', 'ephemeral-storage']);

export function isHugePageResourceName(name: string): boolean {
  return name.startsWith(HUGEPAGES_PREFIX);
}

export function isQuotaHugePageResourceName(name: string): boolean {
  return name.startsWith(HUGEPAGES_PREFIX) || name.startsWith(REQUESTS_HUGEPAGES_PREFIX);
}

export function isStandardQuotaResourceName(name: string): boolean {
  return standardQuotaResources.has(name) || isQuotaHugePageResourceName(name);
}

export function isStandardResourceName(name: string): boolean {
  return standardResources.has(name) || isQuotaHugePageResourceName(name);
}

export function isStandardContainerResourceName(name: string): boolean {
  return standardContainerResources.has(name) || isHugePageResourceName(name);
}

/** No '/' or in the kubernetes.io/ namespace. */
export function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes(DEFAULT_NAMESPACE_PREFIX);
}

/** A fully qualified, non-native name that `requests.<name>` keeps valid (example.com/dongle). */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith(REQUESTS_PREFIX)) return false;
  return isQualifiedName(REQUESTS_PREFIX + name).length === 0;
}

export function isIntegerResourceName(name: string): boolean {
  return integerResources.has(name) || isExtendedResourceName(name);
}

/** Whether a limit may exceed a request for this resource (not for extended resources and huge pages). */
export function isOvercommitAllowed(name: string): boolean {
  return isNativeResource(name) && !isHugePageResourceName(name);
}
