/**
 * Logical cluster paths and names (kcp's github.com/kcp-dev/logicalcluster): a path is `root:org:team`, its segments
 * joined by `:`; a logical cluster name is one segment (`root`, or a generated `k3x9...`) or a `system:` name.
 */
import { randomBytes } from 'node:crypto';

/** The name and canonical path of the root logical cluster. */
export const ROOT_CLUSTER = 'root';

const segment = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const pathPattern = new RegExp(`^${segment}(:${segment})*$`);
const systemNamePattern = /^system:[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Whether `path` is a well-formed workspace path (also true for a plain name such as `root`). */
export function isValidPath(path: string): boolean {
  return pathPattern.test(path);
}

/**
 * Whether `path` names a logical cluster directly rather than walking the tree: a single segment, or a shard-local
 * system cluster such as `system:admin` (which only privileged users may address).
 */
export function isClusterName(path: string): boolean {
  return !path.includes(':') || isSystemCluster(path);
}

/** System logical clusters (`system:admin`, `system:system-crds`, ...) are shard-local and privileged. */
export function isSystemCluster(name: string): boolean {
  return systemNamePattern.test(name);
}

/** Splits `a:b:c` into the parent path `a:b` and the base `c`; a single segment has parent ''. */
export function splitPath(path: string): { parent: string; base: string } {
  const i = path.lastIndexOf(':');
  return i < 0 ? { parent: '', base: path } : { parent: path.slice(0, i), base: path.slice(i + 1) };
}

/** Joins a path and a child segment; an empty parent yields the child alone. */
export function joinPath(parent: string, child: string): string {
  return parent ? `${parent}:${child}` : child;
}

const base36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * A fresh logical cluster name: 16 random base36 characters starting with a letter, so it is a valid path segment,
 * never looks like a number, and cannot collide with `root` or a `system:` name.
 */
export function newLogicalClusterName(): string {
  const bytes = randomBytes(16);
  let out = base36[10 + (bytes[0]! % 26)]!;
  for (let i = 1; i < 16; i++) out += base36[bytes[i]! % 36]!;
  return out;
}
