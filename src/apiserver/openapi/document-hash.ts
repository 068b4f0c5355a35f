/**
 * Content hashes for OpenAPI documents. kube-openapi's handlers use the SHA-512 of the served bytes,
 * printed as uppercase hex (Go's `%X`), both as the ETag and as the `?hash=` of /openapi/v3 URLs.
 */
import { createHash } from 'node:crypto';

/** Uppercase hex SHA-512 of `bytes`, as kube-openapi computes ETags. */
export function hashBytes(bytes: Uint8Array | string): string {
  return createHash('sha512').update(bytes).digest('hex').toUpperCase();
}

/**
 * Uppercase hex SHA-512 of `JSON.stringify(obj)`. Use it for `?hash=` and ETags only when the served
 * body is exactly that serialisation; otherwise hash the served bytes with hashBytes. Equal objects
 * with keys in a different insertion order hash differently, so build documents deterministically.
 */
export function hashDocument(obj: unknown): string {
  return hashBytes(JSON.stringify(obj));
}
