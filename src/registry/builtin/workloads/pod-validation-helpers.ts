/**
 * Readers shared by the pod-level validators (pod-level-validation.ts and its parts). Upstream validates the decoded
 * internal struct, where a field the client omitted is Go's zero value ("" or 0) and is printed that way in
 * messages; these readers give the same zero values for missing or mistyped JSON.
 */
import { FieldPath } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';

export const obj = (v: unknown): JsonObject => (isPlainObject(v) ? v : {});
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** Whether an optional (pointer) field was given: upstream checks `!= nil`. */
export const isSet = (v: unknown): boolean => v !== undefined && v !== null;
/** A string path for the FieldPath-taking apimachinery helpers (they report `path.toString()`, the same string). */
export const at = (path: string): FieldPath => FieldPath.root(path);
