/**
 * A few connections dialled ahead of need, so a stream's set-up does not wait for its own TCP and TLS handshakes
 * (push mode: atrium to a cluster; tunnel: the syncer's dial back to atrium, and the syncer's dial to its cluster).
 * Each connection serves one stream and is never returned: taking one dials its replacement in the background.
 *
 * A pool goes cold by itself: it dials only while it was used within `keepWarmMs`, and an idle connection is dropped
 * after `maxIdleMs` (below the servers' 66 s header timeout, which also counts for a connection that sent nothing),
 * so a cluster nobody debugs costs no connections.
 */
import type { Duplex } from 'node:stream';

export interface WarmPoolOptions {
  /** Idle connections kept ready while the pool is warm. */
  size: number;
  /** An idle connection older than this is closed (and replaced while warm). */
  maxIdleMs: number;
  /** How long after its last use the pool keeps connections ready. */
  keepWarmMs: number;
}

export const defaultWarmPoolOptions: WarmPoolOptions = { size: 2, maxIdleMs: 20_000, keepWarmMs: 5 * 60_000 };

/** How long after a take the pool dials its replacement at the latest (sooner when the taken stream ends). */
const REFILL_AFTER_MS = 1000;

interface Idle<T> {
  conn: T;
  at: number;
  onError: () => void;
}

export class WarmPool<T extends { socket: Duplex }> {
  private idle: Idle<T>[] = [];
  private dialing = 0;
  private lastUsed = 0;
  private stopped = false;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly dial: () => Promise<T>,
    private readonly opts: WarmPoolOptions = defaultWarmPoolOptions,
  ) {}

  /** A ready connection if one is idle, else a fresh dial; either way the pool is topped up behind it. */
  take(): Promise<T> {
    this.lastUsed = Date.now();
    const ready = this.takeIdle();
    const taken = ready ? Promise.resolve(ready) : this.dial();
    // Topped up once the taken connection's stream is over, or a second after the take for a long one: a dial costs
    // CPU on both ends (a TLS handshake), which a short stream (an exec, the first lines of a log) should not wait
    // behind, here or on the server it is sending its request to.
    let done = false;
    const refill = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      this.refill();
    };
    const timer = setTimeout(refill, REFILL_AFTER_MS);
    timer.unref();
    taken.then((conn) => conn.socket.once('close', refill), () => undefined);
    return taken;
  }

  /** Closes the idle connections and dials no more (connections already taken are the caller's). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.sweeper);
    for (const e of this.idle.splice(0)) e.conn.socket.destroy();
  }

  /** Idle connections now (for tests and the tunnel's accounting). */
  get idleCount(): number {
    return this.idle.length;
  }

  private takeIdle(): T | undefined {
    const now = Date.now();
    for (let e = this.idle.shift(); e; e = this.idle.shift()) {
      e.conn.socket.off('error', e.onError);
      if (!e.conn.socket.destroyed && now - e.at < this.opts.maxIdleMs) return e.conn;
      e.conn.socket.destroy();
    }
    return undefined;
  }

  private refill(): void {
    if (this.stopped) return;
    while (this.idle.length + this.dialing < this.opts.size) {
      this.dialing++;
      this.dial().then(
        (conn) => {
          this.dialing--;
          if (this.stopped) return void conn.socket.destroy();
          this.park(conn);
        },
        // A failed dial is not retried here: the next take dials (and reports the failure) itself.
        () => void this.dialing--,
      );
    }
    if (!this.sweeper) {
      this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.floor(this.opts.maxIdleMs / 2)));
      this.sweeper.unref();
    }
  }

  private park(conn: T): void {
    const entry: Idle<T> = {
      conn,
      at: Date.now(),
      // An idle connection the server closes or resets just leaves the pool.
      onError: () => conn.socket.destroy(),
    };
    conn.socket.on('error', entry.onError);
    conn.socket.once('close', () => {
      const i = this.idle.indexOf(entry);
      if (i >= 0) this.idle.splice(i, 1);
    });
    this.idle.push(entry);
  }

  private sweep(): void {
    const now = Date.now();
    for (const e of [...this.idle]) {
      if (now - e.at >= this.opts.maxIdleMs) {
        this.idle.splice(this.idle.indexOf(e), 1);
        e.conn.socket.destroy();
      }
    }
    if (now - this.lastUsed < this.opts.keepWarmMs) this.refill();
    else if (this.idle.length === 0 && this.dialing === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}
