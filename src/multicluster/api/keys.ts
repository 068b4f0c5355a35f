/**
 * Names derived from a SyncTarget's identity: its key (used in labels, finalizers), the downstream namespace of an
 * upstream namespace (collision-free across workspaces), and the namespace locator written on it.
 */
import { createHash } from 'node:crypto';
import { NAMESPACE_LOCATOR_ANNOTATION, SYNCER_FINALIZER_PREFIX, STATE_LABEL_PREFIX, type NamespaceMapping } from './types.js';

/** Encodes bytes as a base-N number over `alphabet` (big-endian). */
function encodeBase(bytes: Buffer, alphabet: string): string {
  let n = BigInt('0x' + bytes.toString('hex'));
  const base = BigInt(alphabet.length);
  let out = '';
  while (n > 0n) {
    out = alphabet[Number(n % base)]! + out;
    n /= base;
  }
  return out || alphabet[0]!;
}

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * A SyncTarget's key, as kcp's ToSyncTargetKey: base62(sha224(`<logical cluster>:<name>`)). Stable for the target's
 * lifetime and distinct across workspaces; at most 38 characters, valid in label values and name suffixes.
 */
export function syncTargetKey(cluster: string, name: string): string {
  const id = `${cluster}:${name}`;
  let key = keyCache.get(id);
  if (key === undefined) {
    key = encodeBase(createHash('sha224').update(id).digest(), base62);
    if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.clear();
    keyCache.set(id, key);
  }
  return key;
}

/**
 * Keys are asked for on every pass over every SyncTarget of a workspace (the splitter, the scheduler): remembered,
 * since hashing and the base-62 conversion of 100 targets per pass showed in atrium's profile.
 */
const keyCache = new Map<string, string>();
const KEY_CACHE_LIMIT = 10_000;

/** The upstream finalizer a syncer for `key` holds on objects it synced. */
export function syncerFinalizer(key: string): string {
  return SYNCER_FINALIZER_PREFIX + key;
}

/** The per-target state label (`state.workload.kcp.io/<key>`). */
export function stateLabel(key: string): string {
  return STATE_LABEL_PREFIX + key;
}

/** Where a downstream namespace's content comes from. */
export interface NamespaceLocator {
  syncTarget: { cluster: string; name: string; uid: string };
  /** The upstream logical cluster. */
  cluster: string;
  /** The upstream namespace. */
  namespace: string;
}

/** The locator as stored in the annotation (stable key order, so it can be compared textually). */
export function formatLocator(l: NamespaceLocator): string {
  return JSON.stringify({ syncTarget: { cluster: l.syncTarget.cluster, name: l.syncTarget.name, uid: l.syncTarget.uid }, cluster: l.cluster, namespace: l.namespace });
}

/** Parses a namespace's locator annotation; undefined when absent or malformed. */
export function locatorOf(ns: { metadata?: { annotations?: Record<string, string> } }): NamespaceLocator | undefined {
  const text = ns.metadata?.annotations?.[NAMESPACE_LOCATOR_ANNOTATION];
  if (!text) return undefined;
  try {
    const l = JSON.parse(text) as NamespaceLocator;
    return typeof l.cluster === 'string' && typeof l.namespace === 'string' && l.syncTarget ? l : undefined;
  } catch {
    return undefined;
  }
}

/** Namespaces every physical cluster has for itself: never the downstream name of a workspace's namespace. */
export const CLUSTER_SYSTEM_NAMESPACES: ReadonlySet<string> = new Set(['kube-system', 'kube-public', 'kube-node-lease']);

/**
 * The downstream namespace for an upstream one. Hashed (default): `kcp-` + 12 chars of base36(sha224(locator)), as
 * kcp's PhysicalClusterNamespaceName, so two workspaces' `default` never meet. SameName keeps the upstream name
 * (only safe when a single workspace syncs to the cluster), but for the cluster's own system namespaces
 * (CLUSTER_SYSTEM_NAMESPACES), which are hashed even then: a workspace's kube-system never lands in the cluster's real
 * kube-system. (kcp has no such exception; atrium places kube-system, see scheduling/types.ts UNSCHEDULED_NAMESPACES.)
 */
export function downstreamNamespace(l: NamespaceLocator, mapping: NamespaceMapping = 'Hashed'): string {
  if (mapping === 'SameName' && !CLUSTER_SYSTEM_NAMESPACES.has(l.namespace)) return l.namespace;
  const digest = createHash('sha224').update(formatLocator(l)).digest();
  return 'kcp-' + encodeBase(digest, base36).padStart(12, '0').slice(0, 12);
}
