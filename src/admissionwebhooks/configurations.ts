/**
 * The webhook configurations of every logical cluster, kept in memory from one watch per kind across all clusters
 * (upstream's configuration informers), so matching costs no storage read and a workspace without webhooks costs a
 * map lookup. Each cluster's webhooks are in upstream's order: configurations by name, then webhooks in order.
 */
import type { GenericStore } from '../registry/generic/store.js';
import { ClusterObjects } from '../apiserver/admission/cluster-objects.js';

/** One webhook with the configuration it came from. */
export interface WebhookEntry {
  configurationName: string;
  /** `<configuration>/<index>`: identifies a webhook across reinvocations. */
  uid: string;
  hook: Record<string, unknown>;
}

export class WebhookConfigurations {
  private readonly configurations: ClusterObjects;
  /** cluster → the ordered webhooks, rebuilt lazily after a change. */
  private readonly ordered = new Map<string, WebhookEntry[]>();

  constructor(store: () => GenericStore | undefined, what: string) {
    this.configurations = new ClusterObjects(store, what, (cluster) => this.ordered.delete(cluster));
  }

  start(): Promise<void> {
    return this.configurations.start();
  }

  stop(): void {
    this.configurations.stop();
  }

  /** The cluster's webhooks in calling order (empty when it has none). */
  webhooks(cluster: string): WebhookEntry[] {
    const cached = this.ordered.get(cluster);
    if (cached) return cached;
    const configs = this.configurations.byCluster.get(cluster);
    if (!configs) return [];
    const out: WebhookEntry[] = [];
    for (const name of [...configs.keys()].sort()) {
      const hooks = configs.get(name)!.webhooks;
      if (!Array.isArray(hooks)) continue;
      hooks.forEach((hook, i) => out.push({ configurationName: name, uid: `${name}/${i}`, hook: hook as Record<string, unknown> }));
    }
    this.ordered.set(cluster, out);
    return out;
  }
}
