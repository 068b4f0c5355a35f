/**
 * Where a user's home lives (kcp's pkg/index/rewriters/user.go): a logical cluster whose name is derived from the user
 * name alone, so finding a home needs no lookup table, and the path alias `user:<name>[:rest]` that every path
 * resolution rewrites to it before walking the workspace tree.
 */
import { createHash } from 'node:crypto';
import { base36Padded } from './base36.js';
import { isValidPath } from './paths.js';

/** The first path segment of the alias `user:<name>`. */
export const USER_PATH_PREFIX = 'user';

/** How many bytes of the digest name a home: 64 bits, so collisions are not a practical concern. */
const NAME_BYTES = 8;

/**
 * The name of `username`'s home logical cluster (kcp's HomeClusterName): the first 8 bytes of SHA-224(username),
 * read as a big-endian unsigned number and spelled in base 36 (0-9a-z), preceded by one `0` per leading zero byte
 * (kcpcrypto.Base36.BytesPad; eight zero bytes give `00000000`). E.g. `alice` → `v1u4alow0iv9`.
 */
export function homeClusterName(username: string): string {
  return base36Padded(createHash('sha224').update(username, 'utf8').digest().subarray(0, NAME_BYTES));
}

/**
 * kcp's UserRewriter on a path's segments: `user:<name>[:rest]` becomes `<home cluster of name>[:rest]`; anything
 * else (a bare `user` included) is returned unchanged.
 */
export function rewriteUserPath(segments: string[]): string[] {
  if (segments[0] === USER_PATH_PREFIX && segments.length > 1) return [homeClusterName(segments[1]!), ...segments.slice(2)];
  return segments;
}

/**
 * The canonical path of `username`'s home (its LogicalCluster's kcp.io/path), `user:<name>` — or, deliberately unlike
 * kcp, the home's cluster name when `user:<name>` is no valid path (an e-mail address, upper case, a colon): the
 * paths and URLs of the workspaces made inside it are built from it, and kcp's would be refused (400) or, with a
 * colon, lead into another user's home.
 */
export function homeCanonicalPath(username: string): string {
  const path = `${USER_PATH_PREFIX}:${username}`;
  return isValidPath(path) && !username.includes(':') ? path : homeClusterName(username);
}
