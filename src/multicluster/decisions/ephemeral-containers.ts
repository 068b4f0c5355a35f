/**
 * A Pod's ephemeral containers (`kubectl debug`) on their way between a workspace and a cluster. A Pod takes them
 * through its pods/ephemeralcontainers subresource only: refused on create, immutable in a PUT of the pod. So whoever
 * copies a pod from one API server to another (the syncer: a synced Pod down to its cluster, a cluster's pod up into
 * its mirror) creates or replaces the pod without changing them, and writes them there. Pure decisions, no I/O.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { contentHash } from '../syncer/transform.js';

/** A pod's spec.ephemeralContainers (`kubectl debug`), undefined when it has none. */
export function ephemeralContainersOf(pod: KubeObject): unknown[] | undefined {
  const list = (pod.spec as { ephemeralContainers?: unknown } | undefined)?.ephemeralContainers;
  return Array.isArray(list) && list.length > 0 ? list : undefined;
}

/**
 * `pod` with the ephemeral containers of `from` (none when `from` is undefined): what a create (none) or a PUT (those
 * the target already has) of the copy carries.
 */
export function withEphemeralContainersOf(pod: KubeObject, from: KubeObject | undefined): KubeObject {
  const spec: Record<string, unknown> = { ...((pod.spec ?? {}) as Record<string, unknown>) };
  const theirs = from ? ephemeralContainersOf(from) : undefined;
  if (theirs) spec.ephemeralContainers = theirs;
  else delete spec.ephemeralContainers;
  return { ...pod, spec };
}

/**
 * Whether the copy's ephemeral containers are not the source's (compared whole: they never change once added). Asked
 * on every write of a pod copy or mirror, so pods without any answer at once.
 */
export function ephemeralContainersDiffer(current: KubeObject, desired: KubeObject): boolean {
  const have = ephemeralContainersOf(current);
  const want = ephemeralContainersOf(desired);
  if (have === undefined || want === undefined) return have !== want;
  return have.length !== want.length || contentHash(have) !== contentHash(want);
}

/** The strategic merge patch of pods/ephemeralcontainers that gives a copy `desired`'s containers (merged by name). */
export function ephemeralContainersPatch(desired: KubeObject): { spec: { ephemeralContainers: unknown[] } } {
  return { spec: { ephemeralContainers: ephemeralContainersOf(desired) ?? [] } };
}
