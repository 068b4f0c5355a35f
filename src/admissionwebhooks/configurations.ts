/**
 * The webhook configurations of every logical cluster, kept in memory from one watch per kind across all clusters
 * (upstream's configuration informers), so matching costs no storage read and a workspace without webhooks costs a
 * map lookup. Each cluster's webhooks are in upstream's order: configurations by name, then webhooks in order.
 */
import type { KubeObject } from '../apimachinery/object.js';
import type { GenericStore } from '../registry/generic/store.js';
import type { WatchHandle } from '../storage/interface.js';
import { logger } from '../logging/logger.js';

/** One webhook with the configuration it came from. */
export interface WebhookEntry {
  configurationName: string;
  /** `<configuration>/<index>`: identifies a webhook across reinvocations. */
  uid: string;
  hook: Record<string, unknown>;
}

const systemContext = { cluster: 'root', user: { username: 'system:apiserver', groups: ['system:masters'] } };

export class WebhookConfigurations {
  /** cluster → configuration name → object. */
  private readonly byCluster = new Map<string, Map<string, KubeObject>>();
  /** cluster → the ordered webhooks, rebuilt lazily after a change. */
  private readonly ordered = new Map<string, WebhookEntry[]>();
  private watch?: WatchHandle;
  private stopped = false;

  constructor(
    private readonly store: () => GenericStore | undefined,
    private readonly what: string,
  ) {}

  async start(): Promise<void> {
    const store = this.store();
    if (!store) return;
    this.watch = await store.watch(
      systemContext,
      '',
      { selection: {}, allowBookmarks: false },
      {
        event: (type, obj) => {
          this.observe(type, obj);
          return true;
        },
        error: (err) => {
          logger.warn(`${this.what} watch ended; restarting`, { error: err.message });
          this.byCluster.clear();
          this.ordered.clear();
          if (!this.stopped) setTimeout(() => void this.start().catch(() => undefined), 1000).unref();
        },
      },
      true,
    );
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
  }

  private observe(type: string, obj: KubeObject): void {
    const cluster = obj.metadata?.annotations?.['kcp.io/cluster'];
    const name = obj.metadata?.name;
    if (!cluster || !name) return;
    let configs = this.byCluster.get(cluster);
    if (type === 'DELETED') {
      configs?.delete(name);
      if (configs?.size === 0) this.byCluster.delete(cluster);
    } else if (type === 'ADDED' || type === 'MODIFIED') {
      if (!configs) this.byCluster.set(cluster, (configs = new Map()));
      configs.set(name, obj);
    } else return;
    this.ordered.delete(cluster);
  }

  /** The cluster's webhooks in calling order (empty when it has none). */
  webhooks(cluster: string): WebhookEntry[] {
    const cached = this.ordered.get(cluster);
    if (cached) return cached;
    const configs = this.byCluster.get(cluster);
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
