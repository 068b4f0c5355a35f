/**
 * atrium's side of the syncer tunnels (the protocol: api/tunnel.ts): the control connection of each pull- or
 * none-mode SyncTarget's syncer, and the streams dialled back through it. A stream is asked for with an `open`
 * message and handed to the caller when the syncer's reverse dial arrives; a couple of streams are opened ahead of
 * need (warm-pool.ts), so a stream usually starts on a connection the syncer has already dialled back. When a control
 * connection drops, every stream opened through it (those opened ahead too) ends with TunnelClosedError (the caller
 * tells its client), and new streams fail at once until the syncer reconnects.
 */
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { logger } from '../../logging/logger.js';
import { encodeMessage, readMessages, TUNNEL_PING_INTERVAL_MS, TUNNEL_PING_TIMEOUT_MS } from '../api/tunnel.js';
import { defaultWarmPoolOptions, WarmPool } from './warm-pool.js';

/** A SyncTarget: its logical cluster and name. */
export interface TargetRef {
  cluster: string;
  name: string;
}

/** Why an open stream ended: its syncer's tunnel went away. */
export class TunnelClosedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TunnelClosedError';
  }
}

/** The message clients see when no tunnel leads to the cluster, as kube-apiserver words an unreachable kubelet. */
export function dialFailure(target: TargetRef, why: string): string {
  return `error dialing backend: ${why} (SyncTarget ${target.name} in ${target.cluster})`;
}

interface Pending {
  resolve(socket: Duplex): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

class ControlConnection {
  readonly pending = new Map<string, Pending>();
  readonly streams = new Set<Duplex>();
  lastHeard = Date.now();
  private readonly pinger: NodeJS.Timeout;
  /**
   * Streams the syncer has dialled back ahead of need. Both ends are ours (no server header timeout), so they may
   * idle for a minute.
   */
  readonly spares: WarmPool<{ socket: Duplex }>;

  constructor(readonly target: TargetRef, readonly socket: Duplex, onClose: (c: ControlConnection) => void, open: (c: ControlConnection) => Promise<Duplex>) {
    this.spares = new WarmPool(async () => ({ socket: await open(this) }), { ...defaultWarmPoolOptions, maxIdleMs: 60_000 });
    readMessages(socket, (m) => {
      this.lastHeard = Date.now();
      if (m.type === 'ping') socket.write(encodeMessage({ type: 'pong' }));
    });
    this.pinger = setInterval(() => {
      if (Date.now() - this.lastHeard > TUNNEL_PING_TIMEOUT_MS) socket.destroy(new Error('no answer to pings'));
      else socket.write(encodeMessage({ type: 'ping' }));
    }, TUNNEL_PING_INTERVAL_MS);
    this.pinger.unref();
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearInterval(this.pinger);
      onClose(this);
    });
  }

  /** Ends everything that went through this connection. */
  fail(why: string): void {
    this.spares.stop();
    const err = new TunnelClosedError(why);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
    for (const s of this.streams) s.destroy(err);
    this.streams.clear();
  }
}

export class TunnelHub {
  private readonly controls = new Map<string, ControlConnection>();

  constructor(private readonly opts: { dialTimeoutMs?: number } = {}) {}

  /** Takes over the control connection of `target`'s syncer (replacing an older one, whose streams end). */
  attachControl(target: TargetRef, socket: Duplex): void {
    const id = keyOf(target);
    const previous = this.controls.get(id);
    const control = new ControlConnection(target, socket, (c) => {
      if (this.controls.get(id) === c) this.controls.delete(id);
      c.fail(dialFailure(target, 'the tunnel to the syncer closed'));
      logger.info('syncer tunnel closed', { syncTarget: target.name, cluster: target.cluster });
    }, (c) => this.open(c));
    this.controls.set(id, control);
    previous?.socket.destroy();
    logger.info('syncer tunnel connected', { syncTarget: target.name, cluster: target.cluster });
  }

  /** Whether `target`'s syncer holds a tunnel now. */
  connected(target: TargetRef): boolean {
    return this.controls.has(keyOf(target));
  }

  /**
   * A new stream to `target`'s cluster: rejects with a dialFailure message when no tunnel is connected or the syncer
   * does not dial back in time. The stream is destroyed with TunnelClosedError if the tunnel drops.
   */
  async dial(target: TargetRef): Promise<Duplex> {
    const control = this.controls.get(keyOf(target));
    if (!control) throw new Error(dialFailure(target, 'no tunnel from the syncer is connected'));
    return (await control.spares.take()).socket;
  }

  /** Asks the syncer of `control` for a new stream: an `open` message, answered by its reverse dial. */
  private open(control: ControlConnection): Promise<Duplex> {
    const target = control.target;
    const id = randomUUID();
    return new Promise<Duplex>((resolve, reject) => {
      const timeoutMs = this.opts.dialTimeoutMs ?? 10_000;
      const timer = setTimeout(() => {
        control.pending.delete(id);
        reject(new Error(dialFailure(target, `the syncer did not dial back within ${timeoutMs / 1000}s`)));
      }, timeoutMs);
      control.pending.set(id, {
        timer,
        reject,
        resolve: (socket) => {
          control.streams.add(socket);
          socket.once('close', () => control.streams.delete(socket));
          resolve(socket);
        },
      });
      control.socket.write(encodeMessage({ type: 'open', id }));
    });
  }

  /** Hands a reverse dial to the stream waiting for `id`; false when no stream of `target` waits for it. */
  acceptStream(target: TargetRef, id: string, socket: Duplex): boolean {
    const control = this.controls.get(keyOf(target));
    const pending = control?.pending.get(id);
    if (!control || !pending) return false;
    control.pending.delete(id);
    clearTimeout(pending.timer);
    pending.resolve(socket);
    return true;
  }

  stop(): void {
    for (const c of this.controls.values()) c.socket.destroy();
    this.controls.clear();
  }
}

function keyOf(t: TargetRef): string {
  return `${t.cluster}\n${t.name}`;
}
