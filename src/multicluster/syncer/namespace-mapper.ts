/**
 * Namespace mapping for one syncer: upstream namespace ↔ downstream namespace (hashed `kcp-<hash>` or same-name),
 * creation of downstream namespaces with the locator annotation and the downstream label, and the reverse lookup
 * from a downstream namespace to its upstream one through the locator (so it survives restarts: nothing in memory).
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { Informer } from '../../client/informer.js';
import type { InformerFactory } from '../../client/informer-factory.js';
import type { RestClient } from '../../client/rest-client.js';
import { formatObjectKey } from '../../client/store.js';
import { downstreamNamespace, formatLocator, locatorOf, type NamespaceLocator } from '../api/keys.js';
import { DOWNSTREAM_CLUSTER_LABEL, NAMESPACE_LOCATOR_ANNOTATION, namespacesGVR, type NamespaceMapping } from '../api/types.js';

export interface NamespaceMapperDeps {
  upstreamCluster: string;
  /** The logical cluster name written into locators (stable identity of the workspace). */
  logicalCluster: string;
  downstream: RestClient;
  upstreamInformers: InformerFactory;
  downstreamInformers: InformerFactory;
  syncTarget: { cluster: string; name: string; uid: string };
  key: string;
  mapping: NamespaceMapping;
}

/** Upstream namespaces whose downstream names are remembered (cleared beyond: a bound, not a working set). */
const NAME_CACHE_LIMIT = 100_000;

export class NamespaceMapper {
  readonly upstream: Informer;
  readonly downstream: Informer;
  private readonly ensured = new Set<string>();
  /**
   * downstreamName is asked for on every reconcile and every downstream event (a sha224 and a base-36 conversion
   * each, ~1.3 s of atrium's CPU for 50 apps over 3 clusters): it is a pure function of the upstream name, so it is
   * remembered, both ways (the reverse map answers upstreamOf for a namespace not yet in the downstream cache).
   */
  private readonly names = new Map<string, string>();
  private readonly upstreamNames = new Map<string, string>();

  constructor(private readonly deps: NamespaceMapperDeps) {
    this.upstream = deps.upstreamInformers.informerFor(namespacesGVR, { cluster: deps.upstreamCluster });
    this.downstream = deps.downstreamInformers.informerFor(namespacesGVR, { labelSelector: `${DOWNSTREAM_CLUSTER_LABEL}=${deps.key}` });
  }

  locator(upstreamNs: string): NamespaceLocator {
    return { syncTarget: this.deps.syncTarget, cluster: this.deps.logicalCluster, namespace: upstreamNs };
  }

  /** The downstream namespace name for an upstream namespace. */
  downstreamName(upstreamNs: string): string {
    let name = this.names.get(upstreamNs);
    if (name === undefined) {
      name = downstreamNamespace(this.locator(upstreamNs), this.deps.mapping);
      if (this.names.size >= NAME_CACHE_LIMIT) {
        this.names.clear();
        this.upstreamNames.clear();
      }
      this.names.set(upstreamNs, name);
      this.upstreamNames.set(name, upstreamNs);
    }
    return name;
  }

  /** The upstream namespace object (from the cache). */
  upstreamNamespace(name: string): KubeObject | undefined {
    return this.upstream.lister.get(formatObjectKey({ cluster: this.deps.upstreamCluster, namespace: '', name }));
  }

  /** The upstream namespace a downstream namespace belongs to, from its locator; undefined if not ours. */
  upstreamOf(downstreamNs: string): string | undefined {
    // A name this mapper computed is this workspace's and target's (the hash covers both): no locator to parse.
    const known = this.upstreamNames.get(downstreamNs);
    if (known !== undefined) return known;
    const ns = this.downstream.lister.get(formatObjectKey({ cluster: 'root', namespace: '', name: downstreamNs }));
    const l = ns ? locatorOf(ns) : undefined;
    if (l && l.cluster === this.deps.logicalCluster && l.syncTarget.name === this.deps.syncTarget.name) return l.namespace;
    // Not yet in the cache (just created): the mapping is a pure function, so invert it over known upstream names.
    for (const up of this.upstream.lister.list()) if (this.downstreamName(up.metadata?.name ?? '') === downstreamNs) return up.metadata!.name;
    return undefined;
  }

  /**
   * Creates the downstream namespace if needed and returns its name. A namespace that exists without this target's
   * label (someone else's) is refused: the syncer never takes over objects it did not create.
   */
  async ensureDownstream(upstreamNs: string): Promise<string> {
    const name = this.downstreamName(upstreamNs);
    if (this.ensured.has(name)) return name;
    if (this.downstream.lister.get(formatObjectKey({ cluster: 'root', namespace: '', name }))) {
      this.ensured.add(name);
      return name;
    }
    // The first objects of a new namespace arrive in every resource's syncer at once: one create for all of them
    // (each made its own, all but one answered 409 and read the namespace back).
    let creating = this.creating.get(name);
    if (!creating) {
      creating = this.createDownstream(upstreamNs, name).finally(() => this.creating.delete(name));
      this.creating.set(name, creating);
    }
    await creating;
    return name;
  }

  /** Downstream namespaces being created, by name. */
  private readonly creating = new Map<string, Promise<void>>();

  private async createDownstream(upstreamNs: string, name: string): Promise<void> {
    const body: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { [DOWNSTREAM_CLUSTER_LABEL]: this.deps.key }, annotations: { [NAMESPACE_LOCATOR_ANNOTATION]: formatLocator(this.locator(upstreamNs)) } },
    };
    try {
      await this.deps.downstream.create(namespacesGVR, body);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
      const existing = await this.deps.downstream.get(namespacesGVR, name);
      if (existing.metadata?.labels?.[DOWNSTREAM_CLUSTER_LABEL] !== this.deps.key) {
        throw new StatusError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 409, reason: 'AlreadyExists', message: `namespace ${name} exists in the physical cluster and was not created by this syncer` } as never);
      }
      if (existing.metadata?.deletionTimestamp) throw new Error(`namespace ${name} is still terminating in the physical cluster`);
    }
    this.ensured.add(name);
  }

  /** Forgets a namespace we deleted (so the next object there re-creates it). */
  forget(name: string): void {
    this.ensured.delete(name);
  }
}
