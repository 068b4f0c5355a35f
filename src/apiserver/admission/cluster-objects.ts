import type { KubeObject } from '../../apimachinery/object.js';
import type { GenericStore } from '../../registry/generic/store.js';
import type { WatchHandle } from '../../storage/interface.js';
import { logger } from '../../logging/logger.js';

const systemContext = { cluster: 'root', user: { username: 'system:apiserver', groups: ['system:masters'] } };

/**
 * One kind's objects per logical cluster, kept in memory from one watch across all clusters (upstream's informers for
 * admission configuration: webhook configurations, policies, bindings), so admission finds what applies without a
 * storage read and a workspace with none costs a map lookup. `changed` is told of every change of a cluster's set
 * (type `RESET` for each cluster when the watch ended and the cache was emptied; it restarts a second later).
 */
export class ClusterObjects {
  readonly byCluster = new Map<string, Map<string, KubeObject>>();
  private watch?: WatchHandle;
  private stopped = false;

  constructor(
    private readonly store: () => GenericStore | undefined,
    private readonly what: string,
    private readonly changed: (cluster: string, obj: KubeObject, type: string) => void,
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
          const clusters = [...this.byCluster.keys()];
          this.byCluster.clear();
          for (const c of clusters) this.changed(c, {}, 'RESET');
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
    let objects = this.byCluster.get(cluster);
    if (type === 'DELETED') {
      objects?.delete(name);
      if (objects?.size === 0) this.byCluster.delete(cluster);
    } else if (type === 'ADDED' || type === 'MODIFIED') {
      if (!objects) this.byCluster.set(cluster, (objects = new Map()));
      objects.set(name, obj);
    } else return;
    this.changed(cluster, obj, type);
  }
}
