/**
 * The in-memory map from workspace paths to logical cluster names, and what the server knows about each logical
 * cluster (canonical path, type, phase). It plays the role of kcp's index.State in the local proxy: every request's
 * `/clusters/<path>` is resolved here with a few Map lookups, never with a storage read.
 *
 * Cost per workspace is one small entry plus one child link, which is why an idle workspace costs next to nothing;
 * nothing here runs timers or watches per workspace.
 */
import { ROOT_CLUSTER, isClusterName } from './paths.js';

/** Rewrites a path's segments before they are walked (kcp's index.PathRewriter), e.g. the `user:<name>` alias. */
export type PathRewriter = (segments: string[]) => string[];

export interface LogicalClusterEntry {
  /** The logical cluster name (storage keys carry it). */
  name: string;
  /** Canonical path, e.g. root:org:team (kcp.io/path on the LogicalCluster). */
  path: string;
  /** Fully qualified type, e.g. root:universal (internal.tenancy.kcp.io/type on the LogicalCluster). */
  type: string;
  /** Scheduling, Initializing, Ready, Terminating, ... */
  phase: string;
}

export class WorkspaceIndex {
  private readonly clusters = new Map<string, LogicalClusterEntry>();
  /** parent logical cluster → workspace name → child logical cluster. */
  private readonly children = new Map<string, Map<string, string>>();

  /** Applied in order to every multi-segment path before it is walked, as kcp's index.State.Lookup does. */
  constructor(private readonly rewriters: PathRewriter[] = []) {}

  /** Records (or refreshes) a logical cluster. */
  upsertCluster(entry: LogicalClusterEntry): void {
    this.clusters.set(entry.name, entry);
  }

  removeCluster(name: string): void {
    this.clusters.delete(name);
    this.children.delete(name);
  }

  /** Records that workspace `workspace` in `parent` is stored in logical cluster `child`. */
  linkChild(parent: string, workspace: string, child: string): void {
    let m = this.children.get(parent);
    if (!m) {
      m = new Map();
      this.children.set(parent, m);
    }
    m.set(workspace, child);
  }

  unlinkChild(parent: string, workspace: string): void {
    const m = this.children.get(parent);
    if (!m) return;
    m.delete(workspace);
    if (m.size === 0) this.children.delete(parent);
  }

  cluster(name: string): LogicalClusterEntry | undefined {
    return this.clusters.get(name);
  }

  /** The logical cluster a child workspace of `parent` lives in, if it has been scheduled. */
  child(parent: string, workspace: string): string | undefined {
    return this.children.get(parent)?.get(workspace);
  }

  /**
   * Resolves a path (`root:org:team`) or a logical cluster name to the logical cluster name, walking the tree from
   * the first segment (itself a cluster name, usually `root`) after the rewriters had their say (so `user:alice:x`
   * starts from alice's home cluster). Returns undefined when any step is unknown.
   */
  resolve(pathOrName: string): string | undefined {
    if (isClusterName(pathOrName)) return this.clusters.has(pathOrName) ? pathOrName : undefined;
    let segments = pathOrName.split(':');
    for (const rewrite of this.rewriters) segments = rewrite(segments);
    let current = segments[0]!;
    if (!this.clusters.has(current)) return undefined;
    for (let i = 1; i < segments.length; i++) {
      const next = this.child(current, segments[i]!);
      if (next === undefined || !this.clusters.has(next)) return undefined;
      current = next;
    }
    return current;
  }

  /** How many logical clusters are known (root included). */
  get size(): number {
    return this.clusters.size;
  }

  /** True when `name` is root or known. */
  has(name: string): boolean {
    return name === ROOT_CLUSTER ? this.clusters.has(ROOT_CLUSTER) : this.clusters.has(name);
  }
}
