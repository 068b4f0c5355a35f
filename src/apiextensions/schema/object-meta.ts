/**
 * ObjectMeta handling inside custom resources (apiextensions-apiserver schema/objectmeta): `metadata` at the root and
 * in `x-kubernetes-embedded-resource` objects is cut down to the fields of ObjectMeta, and embedded resources must
 * carry a valid apiVersion, kind and metadata.
 */
import { isPlainObject, OBJECT_META_FIELDS } from '../../apimachinery/object.js';
import { type FieldError, type FieldPath, invalid, required } from '../../apimachinery/field-errors.js';
import type { Structural } from './structural.js';
import { isEmbeddedResource, subtreeHas } from './subtree.js';

/** The JSON field names of metav1.ObjectMeta. */
const objectMetaFields = new Set(OBJECT_META_FIELDS);

/**
 * Removes fields that ObjectMeta does not have from `metadata` at the resource root (when `isResourceRoot`) and in
 * every embedded resource, returning their paths (`metadata.foo`, `spec.template.metadata.foo`) for fieldValidation.
 */
export function coerceObjectMeta(obj: unknown, s: Structural | undefined, isResourceRoot: boolean): string[] {
  const unknown: string[] = [];
  coerce(obj, s, isResourceRoot, '', unknown);
  return unknown;
}

const join = (parent: string, key: string): string => (parent ? `${parent}.${key}` : key);

function coerce(x: unknown, s: Structural | undefined, isResource: boolean, path: string, unknown: string[]): void {
  // Only the root and embedded resources carry a metadata to trim.
  if (!isResource && !subtreeHas(s, isEmbeddedResource)) return;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) coerce(x[i], s?.items, false, `${path}[${i}]`, unknown);
    return;
  }
  if (!isPlainObject(x)) return;
  if (isResource || s?.embeddedResource) {
    const meta = x['metadata'];
    if (isPlainObject(meta)) {
      for (const k of Object.keys(meta)) {
        if (!objectMetaFields.has(k)) {
          unknown.push(join(join(path, 'metadata'), k));
          delete meta[k];
        }
      }
    }
  }
  if (!s) return;
  for (const k of Object.keys(x)) {
    if ((isResource || s.embeddedResource) && k === 'metadata') continue;
    const prop = s.properties?.get(k);
    if (prop) coerce(x[k], prop, false, join(path, k), unknown);
    else if (s.additionalProperties?.schema) coerce(x[k], s.additionalProperties.schema, false, join(path, k), unknown);
  }
}

const dns1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const dns1035Error =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/**
 * Validates the embedded resources under `obj` (not the root itself, whose type meta the registry checks):
 * apiVersion and kind are required and well-formed, metadata.name is a valid path segment.
 */
export function validateEmbeddedResources(obj: unknown, s: Structural | undefined, base: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  walk(obj, s, base, errs);
  return errs;
}

function walk(x: unknown, s: Structural | undefined, p: FieldPath, errs: FieldError[]): void {
  if (!s || !subtreeHas(s, isEmbeddedResource)) return;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) walk(x[i], s.items, p.index(i), errs);
    return;
  }
  if (!isPlainObject(x)) return;
  if (s.embeddedResource) validateEmbedded(x, p, errs);
  for (const k of Object.keys(x)) {
    const prop = s.properties?.get(k);
    if (prop) walk(x[k], prop, p.child(k), errs);
    else if (s.additionalProperties?.schema) walk(x[k], s.additionalProperties.schema, p.key(k), errs);
  }
}

function validateEmbedded(x: Record<string, unknown>, p: FieldPath, errs: FieldError[]): void {
  if (!('apiVersion' in x)) errs.push(required(p.child('apiVersion').toString(), 'must not be empty'));
  if (!('kind' in x)) errs.push(required(p.child('kind').toString(), 'must not be empty'));
  if ('apiVersion' in x) {
    const v = x['apiVersion'];
    const at = p.child('apiVersion').toString();
    if (typeof v !== 'string') errs.push(invalid(at, v, 'must be a string'));
    else if (v === '') errs.push(invalid(at, v, 'must not be empty'));
    else if (v.split('/').length > 2) errs.push(invalid(at, v, `unexpected GroupVersion string: ${v}`));
  }
  if ('kind' in x) {
    const v = x['kind'];
    const at = p.child('kind').toString();
    if (typeof v !== 'string') errs.push(invalid(at, v, 'must be a string'));
    else if (v === '') errs.push(invalid(at, v, 'must not be empty'));
    else {
      const problems: string[] = [];
      if (v.length > 63) problems.push('must be no more than 63 characters');
      if (!dns1035.test(v.toLowerCase())) problems.push(dns1035Error);
      if (problems.length) errs.push(invalid(at, v, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
    }
  }
  if ('metadata' in x) {
    const meta = x['metadata'];
    const at = p.child('metadata');
    if (!isPlainObject(meta)) {
      errs.push(invalid(at.toString(), meta, 'must be an object'));
      return;
    }
    const name = meta['name'];
    if (typeof name === 'string' && name !== '') {
      const nameAt = at.child('name').toString();
      if (name === '.' || name === '..') errs.push(invalid(nameAt, name, `may not be '${name}'`));
      else {
        if (name.includes('/')) errs.push(invalid(nameAt, name, "may not contain '/'"));
        if (name.includes('%')) errs.push(invalid(nameAt, name, "may not contain '%'"));
      }
    }
  }
}
