/**
 * `synctargets/<name>/tunnel`: where a pull- or none-mode syncer holds its control connection and dials back each
 * stream (protocol: api/tunnel.ts). Authorized by the filter chain as `get` on `synctargets/tunnel` of that name,
 * which `kubectl atrium workload sync` grants the syncer alone.
 */
import type { ConnectHandler } from '../../apiserver/connect.js';
import { errors } from '../../apimachinery/status.js';
import { TUNNEL_CONTROL_PROTOCOL, TUNNEL_STREAM_PROTOCOL, TUNNEL_SUBRESOURCE } from '../api/tunnel.js';
import { takeOver } from './forward.js';
import type { TunnelHub } from './tunnel-hub.js';

export function tunnelEndpoint(hub: TunnelHub): ConnectHandler {
  return {
    group: 'workload.kcp.io',
    resource: 'synctargets',
    subresource: TUNNEL_SUBRESOURCE,
    async serve(r) {
      await r.store.get(r.ctx, '', r.info.name); // 404 for a SyncTarget that does not exist
      const protocol = String(r.req.headers.upgrade ?? '').toLowerCase();
      const stream = r.query.get('stream');
      if (!r.upgrade || protocol !== (stream ? TUNNEL_STREAM_PROTOCOL : TUNNEL_CONTROL_PROTOCOL)) {
        throw errors.badRequest(`the tunnel takes an upgrade to ${stream ? TUNNEL_STREAM_PROTOCOL : TUNNEL_CONTROL_PROTOCOL}`);
      }
      const target = { cluster: r.ctx.cluster, name: r.info.name };
      const socket = takeOver(r);
      if (socket.destroyed) return;
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${protocol}\r\nConnection: Upgrade\r\n\r\n`);
      if (r.upgrade.head.length) socket.unshift(r.upgrade.head);
      (socket as { setNoDelay?(v: boolean): void }).setNoDelay?.(true);
      if (!stream) hub.attachControl(target, socket);
      else if (!hub.acceptStream(target, stream, socket)) socket.destroy();
    },
  };
}
