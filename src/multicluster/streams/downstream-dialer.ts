/**
 * A connection to a SyncTarget's cluster API server for one forwarded request. Push mode (spec.kubeconfig): atrium
 * dials the cluster itself with that kubeconfig's credentials, as its push syncer does. Pull and none modes: the
 * cluster is not reachable from atrium, so the stream goes through the syncer's tunnel (tunnel-hub.ts), and the
 * syncer adds its own credentials.
 */
import { createHash } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { dialApiServer, type ApiServerConnection } from '../../client/dial.js';
import { parseKubeconfig } from '../../client/kubeconfig/kubeconfig.js';
import type { RestClientConfig } from '../../client/rest-client.js';
import type { SyncTarget } from '../api/types.js';
import { dialFailure, type TunnelHub } from './tunnel-hub.js';
import { WarmPool } from './warm-pool.js';

export interface DownstreamConnection {
  socket: Duplex;
  /** The Host header for the request. */
  host: string;
  /** Push mode: the Authorization header for the cluster (the tunnel's syncer sets its own). */
  authorization?: string;
  /** Whether the connection runs through a syncer tunnel. */
  tunnelled: boolean;
}

export class DownstreamDialer {
  /** Parsed push kubeconfigs by content hash (parsing reads certificates: once per kubeconfig, not per stream). */
  private readonly configs = new Map<string, Promise<RestClientConfig>>();
  /**
   * Push clusters' connections dialled ahead, by kubeconfig hash: a stream takes a connection whose TLS handshake is
   * done (measured: the handshake was most of what a forwarded exec or `logs -f` added, bench/debug-streams.ts).
   */
  private readonly pools = new Map<string, WarmPool<ApiServerConnection>>();

  constructor(private readonly hub: TunnelHub) {}

  /** Connects to the cluster of `target` (in `cluster`); rejects with an `error dialing backend: ...` message. */
  async dial(target: SyncTarget, cluster: string): Promise<DownstreamConnection> {
    const ref = { cluster, name: target.metadata!.name! };
    const kubeconfig = target.spec?.kubeconfig;
    if (!kubeconfig) return { socket: await this.hub.dial(ref), host: 'kubernetes.default.svc', tunnelled: true };
    const hash = createHash('sha256').update(kubeconfig).digest('hex');
    let config: RestClientConfig;
    try {
      config = await this.pushConfig(hash, kubeconfig);
    } catch (err) {
      throw new Error(dialFailure(ref, `invalid spec.kubeconfig: ${(err as Error).message}`));
    }
    try {
      const c = await this.pool(hash, config).take();
      return { socket: c.socket, host: c.host, ...(c.authorization ? { authorization: c.authorization } : {}), tunnelled: false };
    } catch (err) {
      throw new Error(dialFailure(ref, (err as Error).message));
    }
  }

  /** Closes the connections dialled ahead. */
  stop(): void {
    for (const p of this.pools.values()) p.stop();
    this.pools.clear();
  }

  private pool(hash: string, config: RestClientConfig): WarmPool<ApiServerConnection> {
    let pool = this.pools.get(hash);
    if (!pool) {
      if (this.pools.size > 1000) this.stop();
      pool = new WarmPool(() => dialApiServer(config));
      this.pools.set(hash, pool);
    }
    return pool;
  }

  private pushConfig(hash: string, kubeconfig: string): Promise<RestClientConfig> {
    let config = this.configs.get(hash);
    if (!config) {
      if (this.configs.size > 1000) this.configs.clear();
      config = (async () => {
        const kc = parseKubeconfig(kubeconfig, process.cwd());
        const creds = await kc.currentCredentials();
        const server = new URL(kc.currentServer());
        return { url: `${server.protocol}//${server.host}`, ca: await kc.currentCaPem(), cert: creds.certPem, key: creds.keyPem, token: creds.token };
      })();
      config.catch(() => this.configs.delete(hash));
      this.configs.set(hash, config);
    }
    return config;
  }
}
