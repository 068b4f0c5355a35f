/**
 * The resource root of a storage key or prefix: its first three segments, `/registry/<group>/<resource>/`
 * (keys are `/registry/<group>/<resource>/<cluster>/<namespace>/<name>`). The watch cache keeps one
 * storage watch and one event ring per root.
 */

/**
 * Returns the root that contains every key under prefix, or null when the prefix is wider than one
 * resource (`/registry/core/`), does not end its resource segment (`/registry/core/pods` would also
 * match `/registry/core/podtemplates/...`), or has an empty segment.
 */
export function resourceRootOf(prefix: string): string | null {
  if (!prefix.startsWith('/')) return null;
  let end = 0;
  for (let segment = 0; segment < 3; segment++) {
    const next = prefix.indexOf('/', end + 1);
    if (next < 0 || next === end + 1) return null;
    end = next;
  }
  return prefix.slice(0, end + 1);
}
