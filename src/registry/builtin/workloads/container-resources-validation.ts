/**
 * A container's resources, validated as kube-apiserver 1.32's ValidateContainerResourceRequirements does, with its
 * messages: resource names a container may use (cpu, memory, ephemeral-storage, hugepages-*, or an extended
 * `domain/name`), non-negative quantities, whole numbers for extended resources, hugepages in whole pages, a request
 * no larger than its limit (and equal to it where overcommit is not allowed), hugepages only beside cpu or memory.
 * Upstream walks Go maps, so its order among several resources varies per request; ours is the object's key order.
 * resources.claims are not checked: 1.32 drops them while DynamicResourceAllocation is off (its default).
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { type ExactQuantity, compareQuantity, formatQuantity, parseExactQuantity } from '../../../apimachinery/exact-quantity.js';
import { isQualifiedName } from '../../../apimachinery/validation/names.js';

const present = (v: unknown): v is JsonObject => isPlainObject(v);

const STANDARD_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory',
  'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims',
  'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);
const CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const INTEGER_RESOURCES = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);

const isHugePages = (name: string): boolean => name.startsWith('hugepages-');
/** A resource of the kubernetes.io namespace (or without a domain at all). */
const isNative = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
const isExtended = (name: string): boolean => !isNative(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
const overcommitAllowed = (name: string): boolean => isNative(name) && !isHugePages(name);

/** A resource name as upstream prints it (ResourceName is a Stringer: no quotes). */
function invalidName(path: string, name: string, msg: string): FieldError {
  return { ...fe.invalid(path, name, msg), renderedValue: name };
}

/** validateContainerResourceName: a qualified, known name, then one a container may request. */
function resourceName(name: string, path: string): FieldError[] {
  let errs = isQualifiedName(name).map((msg) => invalidName(path, name, msg));
  const plain = !name.includes('/');
  if (errs.length === 0 && plain && !STANDARD_RESOURCES.has(name) && !isHugePages(name) && !name.startsWith('requests.hugepages-')) {
    errs = [invalidName(path, name, 'must be a standard resource type or fully qualified')];
  }
  if (plain) {
    if (!CONTAINER_RESOURCES.has(name) && !isHugePages(name)) errs.push(invalidName(path, name, 'must be a standard resource for containers'));
  } else if (!isNative(name) && !isExtended(name)) {
    errs.push(invalidName(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/**
 * A resource.Quantity as Go's %#v prints it, for the one message that shows the whole struct ("must be an integer").
 * Covers decimal quantities that fit the int64 fast path of ParseQuantity (what a fractional extended resource like
 * `500m` or `0.5` is); others print in the same shape with their canonical text.
 */
function renderGoQuantity(text: string, q: ExactQuantity): string {
  const m = /^([+-]?)0*(\d*)(?:\.(\d*))?(n|u|m|k|M|G|T|P|E)?$/.exec(text);
  const exponents: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
  if (m && (m[2]!.length + (m[3] ?? '').length) <= 18) {
    const [, sign, whole, frac = '', suffix = ''] = m;
    const num = whole || '0';
    const shifted = num + frac;
    const scale = (exponents[suffix] ?? 0) - frac.length;
    const value = BigInt(shifted) * (sign === '-' ? -1n : 1n);
    // ParseQuantity keeps the text only when it is already canonical.
    const cached = scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0' ? text : '';
    return `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${JSON.stringify(cached)}, Format:"DecimalSI"}`;
  }
  return `resource.Quantity{i:resource.int64Amount{value:0, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${JSON.stringify(formatQuantity(q))}, Format:"${q.format}"}`;
}

/** ValidateResourceQuantityValue: not negative, and whole for the resources counted in units. */
function quantityValue(name: string, raw: unknown, q: ExactQuantity, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const shown = formatQuantity(q);
  if (q.nanos < 0n) errs.push(fe.invalid(path, shown, 'must be greater than or equal to 0'));
  if ((INTEGER_RESOURCES.has(name) || isExtended(name)) && q.nanos % 1_000_000_000n !== 0n) {
    errs.push({ ...fe.invalid(path, shown, 'must be an integer'), renderedValue: renderGoQuantity(String(raw).trim(), q) });
  }
  return errs;
}

/** validateResourceQuantityHugePageValue: hugepages come in whole pages of the size the name gives. */
function hugePageValue(name: string, q: ExactQuantity, path: string): FieldError[] {
  if (!isHugePages(name)) return [];
  let page: ExactQuantity | undefined;
  try {
    page = parseExactQuantity(name.slice('hugepages-'.length));
  } catch {
    page = undefined;
  }
  const whole = (n: bigint): bigint => (n + 999_999_999n) / 1_000_000_000n;
  const divisible = page !== undefined && page.nanos > 0n && page.nanos % 1_000_000_000n === 0n && whole(q.nanos) % whole(page.nanos) === 0n;
  const shown = formatQuantity(q);
  return divisible ? [] : [fe.invalid(path, shown, `${shown} is not positive integer multiple of ${name}`)];
}

function entries(v: unknown): [string, unknown, ExactQuantity | undefined][] {
  return Object.entries(present(v) ? v : {}).map(([name, raw]) => {
    try {
      return [name, raw, parseExactQuantity(raw)];
    } catch {
      return [name, raw, undefined];
    }
  });
}

/** ValidateContainerResourceRequirements (without claims). */
export function validateContainerResources(resources: unknown, path: string): FieldError[] {
  const r = present(resources) ? resources : {};
  const errs: FieldError[] = [];
  const limits = new Map<string, ExactQuantity>();
  let cpuOrMemory = false;
  let hugePages = false;
  for (const [name, raw, q] of entries(r.limits)) {
    const at = `${path}.limits[${name}]`;
    errs.push(...resourceName(name, at));
    if (!q) {
      errs.push(fe.invalid(at, raw, 'must be a valid quantity'));
      continue;
    }
    limits.set(name, q);
    errs.push(...quantityValue(name, raw, q, at), ...hugePageValue(name, q, at));
    hugePages ||= isHugePages(name);
    cpuOrMemory ||= name === 'cpu' || name === 'memory';
  }
  for (const [name, raw, q] of entries(r.requests)) {
    const at = `${path}.requests[${name}]`;
    errs.push(...resourceName(name, at));
    if (!q) {
      errs.push(fe.invalid(at, raw, 'must be a valid quantity'));
      continue;
    }
    errs.push(...quantityValue(name, raw, q, at));
    const limit = limits.get(name);
    const shown = formatQuantity(q);
    if (limit) {
      const cmp = compareQuantity(q, limit);
      if (cmp !== 0 && !overcommitAllowed(name)) errs.push(fe.invalid(`${path}.requests`, shown, `must be equal to ${name} limit of ${formatQuantity(limit)}`));
      else if (cmp > 0) errs.push(fe.invalid(`${path}.requests`, shown, `must be less than or equal to ${name} limit of ${formatQuantity(limit)}`));
    } else if (!overcommitAllowed(name)) {
      errs.push(fe.required(`${path}.limits`, 'Limit must be set for non overcommitable resources'));
    }
    errs.push(...hugePageValue(name, q, at));
    hugePages ||= isHugePages(name);
    cpuOrMemory ||= name === 'cpu' || name === 'memory';
  }
  if (hugePages && !cpuOrMemory) errs.push(fe.forbidden(path, 'HugePages require cpu or memory'));
  return errs;
}
