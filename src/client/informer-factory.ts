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

  /** Stops and forgets one informer (e.g. for a resource that disappeared from discovery). */
  async drop(inf: Informer): Promise<void> {
    for (const [id, i] of this.informers) if (i === inf) this.informers.delete(id);
    await inf.stop();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
    this.informers.clear();
  }
}
