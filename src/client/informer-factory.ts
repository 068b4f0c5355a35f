/**
 * InformerFactory: one Informer per (resource, cluster, namespace, selectors), shared by every controller that asks,
 * so N controllers interested in namespaces cost one list+watch (client-go's SharedInformerFactory).
 */
import type { KubeObject } from '../apimachinery/object.js';
import { Informer, type InformerOptions } from './informer.js';
import type { GroupVersionResource } from './resource.js';
import type { RestClient } from './rest-client.js';

export type InformerSelection = Omit<InformerOptions, 'client' | 'gvr'>;

export class InformerFactory {
  private readonly informers = new Map<string, Informer>();
  /** How many times each informer was asked for and not yet dropped: drop() stops it only when none is left. */
  private readonly holders = new Map<Informer, number>();
  private started = false;

  constructor(readonly client: RestClient) {}

  /** The shared informer for this selection; started at once if the factory already runs. */
  informerFor<T extends KubeObject = KubeObject>(gvr: GroupVersionResource, selection: InformerSelection = {}): Informer<T> {
    const id = JSON.stringify([gvr.group, gvr.version, gvr.resource, selection.cluster ?? '', selection.namespace ?? '', selection.labelSelector ?? '', selection.fieldSelector ?? '', selection.transform ? (selection.transformId ?? 'anonymous') : '', selection.metadataOnly === true]);
    let inf = this.informers.get(id);
    if (!inf) {
      inf = new Informer({ client: this.client, gvr, ...selection });
      this.informers.set(id, inf);
      if (this.started) inf.start();
    }
    this.holders.set(inf, (this.holders.get(inf) ?? 0) + 1);
    return inf as unknown as Informer<T>;
  }

  /** Starts every informer created so far and any created later. */
  start(): void {
    this.started = true;
    for (const inf of this.informers.values()) inf.start();
  }

  /** Resolves when every informer created so far has synced. */
  async waitForSync(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync()));
  }

  /**
   * Gives back one informerFor() of `inf` (e.g. for a resource that disappeared from discovery); the informer is
   * stopped and forgotten once every holder gave it back, so consumers sharing it are not cut off by one leaving.
   */
  async drop(inf: Informer): Promise<void> {
    const left = (this.holders.get(inf) ?? 1) - 1;
    if (left > 0) {
      this.holders.set(inf, left);
      return;
    }
    this.holders.delete(inf);
    for (const [id, i] of this.informers) if (i === inf) this.informers.delete(id);
    await inf.stop();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
    this.informers.clear();
    this.holders.clear();
  }
}
