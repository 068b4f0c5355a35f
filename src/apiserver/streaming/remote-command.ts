/**
 * The server side of kubectl exec and attach over WebSocket: the channel protocols of k8s.io/apimachinery
 * util/httpstream/wsstream and the remotecommand status reporting of kubelet (cri-streaming remotecommand). Each
 * binary message is one channel byte and data: 0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize (v3+); v5 adds the
 * client's "close" message [255, channel] (it half-closes stdin, so `kubectl cp` into a pod ends). The command's
 * outcome goes out on the error channel, a metav1.Status in JSON from v4 on (Success; Failure/NonZeroExitCode with
 * an ExitCode cause, which kubectl turns into its own exit code; Failure/InternalError), plain text before v4; then
 * the connection closes. The SPDY/3.1 transport of the same protocols is spdy-remote-command.ts; both implement
 * RemoteCommandStreams, what the command runner and attach use.
 */
import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import type { WebSocket } from 'ws';

/** Subprotocols in our order of preference; '' (none offered) means channel.k8s.io. */
export const remoteCommandProtocols = ['v5.channel.k8s.io', 'v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io', ''];

/** How long output waits after the handshake (see RemoteCommandSession.clientReady). */
const OUTPUT_HOLD_MS = 50;

const Channel = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

export interface RemoteCommandRequest {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** How the command ended: an exit code (0 is success), or an error that kept it from running. */
export type CommandOutcome = { exitCode: number; command?: string[] } | { error: string };

export interface TerminalSize {
  width: number;
  height: number;
}

/** The metav1.Status kubelet writes on the error channel (v4+), fields in Go's order. */
export function outcomeStatus(outcome: CommandOutcome): Record<string, unknown> {
  if ('error' in outcome) {
    return { metadata: {}, status: 'Failure', message: `Internal error occurred: ${outcome.error}`, reason: 'InternalError', details: { causes: [{ message: outcome.error }] }, code: 500 };
  }
  if (outcome.exitCode === 0) return { metadata: {}, status: 'Success' };
  const what = `error executing command ${outcome.command ? `[${outcome.command.join(' ')}]` : ''}, exit code ${outcome.exitCode}`;
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: ${what}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(outcome.exitCode) }] },
  };
}

/**
 * What the outcome writes on the error channel or stream for protocol version `v` (1 for channel.k8s.io): the Status
 * in JSON from v4 on; before, the failure's message only (kubelet's v1WriteStatusFunc writes nothing on success).
 */
export function outcomeMessage(v: number, outcome: CommandOutcome): Buffer | undefined {
  const status = outcomeStatus(outcome);
  if (v >= 4) return Buffer.from(JSON.stringify(status));
  return status.status !== 'Success' ? Buffer.from(String(status.message)) : undefined;
}

/** The version of a remote-command protocol name: vN's N, 1 for channel.k8s.io (and none). */
export function protocolVersion(protocol: string): number {
  const version = /^v(\d+)\./.exec(protocol)?.[1];
  return version ? Number(version) : 1;
}

/**
 * An exec or attach session over either transport: `stdin` carries what the client sends (it ends when the client
 * half-closes it or goes away), `stdout`/`stderr` write to the client with backpressure; 'resize' (TerminalSize) and
 * 'close' (the client went away before finish()) are emitted; finish() reports the outcome and closes.
 */
export interface RemoteCommandStreams extends EventEmitter {
  readonly request: RemoteCommandRequest;
  readonly stdin?: PassThrough;
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  /** Whether the client is still connected and no outcome was reported. */
  readonly open: boolean;
  finish(outcome: CommandOutcome): void;
}

/**
 * One exec or attach session on an accepted WebSocket. `stdin` carries what the client types (ends on v5's close or
 * when the connection goes), `stdout`/`stderr` write to the client with backpressure; 'resize' (TerminalSize) and
 * 'close' (the client went away) are emitted; finish() reports the outcome and closes.
 */
export class RemoteCommandSession extends EventEmitter implements RemoteCommandStreams {
  readonly stdin?: PassThrough;
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  private done = false;
  /** The protocol's version: 1 for channel.k8s.io (and none), else vN's N. */
  private readonly v: number;
  /**
   * Output is held until a moment after the handshake. client-go (v0.32, remotecommand/websocket.go) starts reading
   * the connection before it registers its stdout/stderr streams and drops a frame for a stream not yet registered
   * ("Unknown stream id"), so a command that prints at once (`echo`) could lose its output. A kubelet's exec start
   * (a container runtime round trip) hides the window upstream; a process spawned here starts within it.
   */
  private readonly clientReady = new Promise<void>((resolve) => setTimeout(resolve, OUTPUT_HOLD_MS));

  constructor(
    private readonly ws: WebSocket,
    readonly protocol: string,
    readonly request: RemoteCommandRequest,
  ) {
    super();
    const v = (this.v = protocolVersion(protocol));
    if (request.stdin) this.stdin = new PassThrough();
    if (request.stdout) this.stdout = this.channelWriter(Channel.stdout);
    // With a TTY there is no separate stderr (kubelet merges it), as kubectl does not ask for one.
    if (request.stderr && !request.tty) this.stderr = this.channelWriter(Channel.stderr);
    ws.on('message', (data: Buffer) => {
      if (data.length === 0) return;
      const channel = data[0];
      const body = data.subarray(1);
      if (channel === Channel.stdin) {
        if (body.length) this.stdin?.write(body);
      } else if (channel === Channel.resize && v >= 3) {
        try {
          const size = JSON.parse(body.toString('utf8')) as { Width?: number; Height?: number };
          this.emit('resize', { width: Number(size.Width ?? 0), height: Number(size.Height ?? 0) } satisfies TerminalSize);
        } catch {
          /* a malformed resize is ignored, as kubelet logs and drops it */
        }
      } else if (channel === Channel.close && v >= 5 && body[0] === Channel.stdin) {
        this.stdin?.end();
      }
    });
    ws.on('close', () => {
      this.stdin?.end();
      if (!this.done) {
        this.done = true;
        this.emit('close');
      }
    });
    ws.on('error', () => ws.terminate());
  }

  /** Whether the client is still connected and no outcome was reported. */
  get open(): boolean {
    return !this.done;
  }

  /** Reports how the command ended on the error channel and closes the connection. */
  finish(outcome: CommandOutcome): void {
    if (this.done) return;
    this.done = true;
    const flushOutputs = [this.stdout, this.stderr].filter((w): w is Writable => !!w).map((w) => new Promise<void>((r) => (w.writableFinished ? r() : w.end(r))));
    void Promise.all([...flushOutputs, this.clientReady]).then(() => {
      const message = outcomeMessage(this.v, outcome);
      const close = () => this.ws.close(1000);
      if (message && this.ws.readyState === 1) this.ws.send(Buffer.concat([Buffer.from([Channel.error]), message]), close);
      else close();
    });
  }

  private channelWriter(channel: number): Writable {
    const ws = this.ws;
    const clientReady = this.clientReady;
    return new Writable({
      highWaterMark: 256 * 1024,
      write(chunk: Buffer, _enc, cb) {
        void clientReady.then(() => {
          if (ws.readyState !== 1) return cb();
          ws.send(Buffer.concat([Buffer.from([channel]), chunk]), () => cb());
        });
      },
    });
  }
}
