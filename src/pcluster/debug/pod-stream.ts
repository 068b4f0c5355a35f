/**
 * pods/exec, pods/attach and pods/portforward on the simulated cluster. The pod is read and its container chosen as
 * the API server does (400s for a missing or ambiguous container, an unbound or finished pod), then the connection
 * switches protocols, as kubelet 1.32 serves them: WebSocket (kubectl 1.30+: v5.channel.k8s.io … channel.k8s.io for
 * exec and attach, SPDY/3.1+portforward.k8s.io for port-forward, SPDY tunnelled in binary messages) or SPDY/3.1 itself
 * (client-go's SPDY executor for exec and attach: v4.channel.k8s.io … channel.k8s.io, spdy-remote-command.ts; and
 * kubectl's port-forward fallback).
 *
 * What attach joins: the simulated main process's output is its log, so attach streams the container's new log
 * lines; each line typed on stdin is echoed into the log (and so comes back through attach), as an echo server
 * would. The session ends when the container instance ends or the pod is deleted, or, for a container with
 * `stdin: true`, when the client's stdin ends (detachesOnStdinEnd).
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { StatusError, errors } from '../../apimachinery/status.js';
import type { ConnectHandler, ConnectRequest } from '../../apiserver/connect.js';
import { podAttachOptions, podExecOptions, podPortForwardOptions } from '../../apiserver/connect-options.js';
import { servePortForward, portForwardProtocol } from '../../apiserver/streaming/port-forward.js';
import { RemoteCommandSession, remoteCommandProtocols, type RemoteCommandStreams } from '../../apiserver/streaming/remote-command.js';
import { serveSpdyRemoteCommand, spdyRemoteCommandProtocols } from '../../apiserver/streaming/spdy-remote-command.js';
import { SpdySession } from '../../apiserver/streaming/spdy-session.js';
import { acceptSpdy, acceptWebSocket, upgradeKind, webSocketTunnel } from '../../apiserver/streaming/upgrade.js';
import { runCommand } from '../runtime/command-process.js';
import { containerEnvironment, type ObjectLookup, type ServiceLister } from '../runtime/container-env.js';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import { chooseContainer, containerStatus, parseBoolParam, podContainer } from './pod-containers.js';

/** The pod must be bound and not finished before anything streams (strategy.go streamLocation, kubectl's checks). */
function requireStreamable(pod: KubeObject): void {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const status = isPlainObject(pod.status) ? pod.status : {};
  if (!spec.nodeName) throw errors.badRequest(`pod ${pod.metadata?.name} does not have a host assigned`);
  if (status.phase === 'Succeeded' || status.phase === 'Failed') {
    throw errors.badRequest(`cannot exec into or attach to a container in a completed pod; current phase is ${String(status.phase)}`);
  }
}

/** The running container a remote command addresses; kubelet's "container not found" otherwise. */
function requireRunning(pod: KubeObject, container: string): void {
  const cs = containerStatus(pod, container);
  if (!cs || !(isPlainObject(cs.state) && isPlainObject(cs.state.running))) throw errors.badRequest(`container not found (${JSON.stringify(container)})`);
}

/**
 * Whether the end of an attach client's stdin ends the session, as containerd's CRI attach decides: a container
 * with an open stdin (spec stdin) that is not "stdinOnce without a TTY" keeps its stdin and drops the session's
 * output, so the client is detached (`kubectl debug -i` with piped input returns once the input is sent). With
 * stdinOnce (and no TTY) the container's stdin closes instead and the session follows the container to its end; a
 * container without stdin ignores the client's.
 */
export function detachesOnStdinEnd(spec: JsonObject): boolean {
  if (spec.stdin !== true) return false;
  return !(spec.stdinOnce === true && spec.tty !== true);
}

/** kubelet's answer to a streaming request that does not switch protocols (httpstream.Handshake's). */
function notUpgraded(): StatusError {
  return errors.badRequest('Upgrade request required');
}

/**
 * Checks the request, switches protocols and opens the session; undefined when a SPDY client went away or did not
 * open its streams in time (its connection is closed then, as there is nothing to answer on it).
 */
async function openRemoteCommand(r: ConnectRequest, kind: 'exec' | 'attach'): Promise<{ pod: KubeObject; container: string; session: RemoteCommandStreams } | undefined> {
  const { req, info, query, ctx, store } = r;
  const pod = await store.get(ctx, info.namespace, info.name);
  const request = { stdin: parseBoolParam(query, 'stdin'), stdout: parseBoolParam(query, 'stdout'), stderr: parseBoolParam(query, 'stderr'), tty: parseBoolParam(query, 'tty') };
  const container = chooseContainer(pod, query.get('container') ?? '');
  requireStreamable(pod);
  if (kind === 'exec' && query.getAll('command').length === 0) throw errors.badRequest('you must specify at least 1 command');
  if (!request.stdin && !request.stdout && !request.stderr) throw errors.badRequest('you must specify at least 1 of stdin, stdout, stderr');
  requireRunning(pod, container);
  const how = upgradeKind(req, r.upgrade);
  if (how === 'spdy') {
    const { socket, protocol } = acceptSpdy(req, r.upgrade!, spdyRemoteCommandProtocols);
    const session = await serveSpdyRemoteCommand(new SpdySession(socket), protocol, request);
    return session && { pod, container, session };
  }
  if (how !== 'websocket') throw notUpgraded();
  const ws = await acceptWebSocket(req, r.upgrade!, remoteCommandProtocols);
  return { pod, container, session: new RemoteCommandSession(ws, ws.negotiatedProtocol, request) };
}

export function podExecHandler(runtime: ContainerRuntime, lookup: ObjectLookup, services?: ServiceLister): ConnectHandler {
  return {
    group: '',
    resource: 'pods',
    subresource: 'exec',
    connectOptions: podExecOptions,
    async serve(r) {
      const opened = await openRemoteCommand(r, 'exec');
      if (!opened) return;
      const { pod, container, session } = opened;
      const uid = pod.metadata?.uid ?? '';
      runtime.observe(pod);
      const env = await containerEnvironment(pod, podContainer(pod, container) ?? {}, lookup, services);
      runCommand(session, { command: r.query.getAll('command'), cwd: runtime.workDir(uid, container), env: { ...env, HOME: runtime.workDir(uid, container) }, tty: session.request.tty }, (kill) =>
        runtime.onPodGone(uid, kill),
      );
    },
  };
}

export function podAttachHandler(runtime: ContainerRuntime): ConnectHandler {
  return {
    group: '',
    resource: 'pods',
    subresource: 'attach',
    connectOptions: podAttachOptions,
    async serve(r) {
      const opened = await openRemoteCommand(r, 'attach');
      if (!opened) return;
      const { pod, container, session } = opened;
      const uid = pod.metadata?.uid ?? '';
      runtime.observe(pod);
      const instance = runtime.container(uid, container).current;
      if (!instance || !instance.running) {
        session.finish({ exitCode: 0 });
        return;
      }
      const stop = instance.log.follow({ line: (e) => session.stdout?.write(`${e.text}\n`), end: () => session.finish({ exitCode: 0 }) });
      const undo = runtime.onPodGone(uid, () => session.finish({ exitCode: 0 }));
      const detach = () => {
        stop();
        undo();
      };
      let partial = '';
      session.stdin?.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString('utf8')).split(/\r?\n|\r/);
        partial = lines.pop() ?? '';
        for (const line of lines) instance.log.append(`[stdin] ${line}`);
      });
      session.stdin?.once('end', () => {
        if (partial) instance.log.append(`[stdin] ${partial}`);
        partial = '';
        if (!session.open || !detachesOnStdinEnd(podContainer(pod, container) ?? {})) return;
        // The echoed lines are written; no later line may reach a finished session.
        detach();
        session.finish({ exitCode: 0 });
      });
      session.once('close', detach);
    },
  };
}

export function podPortForwardHandler(runtime: ContainerRuntime): ConnectHandler {
  return {
    group: '',
    resource: 'pods',
    subresource: 'portforward',
    connectOptions: podPortForwardOptions,
    async serve({ req, upgrade, info, ctx, store }) {
      const pod = await store.get(ctx, info.namespace, info.name);
      requireStreamable(pod);
      runtime.observe(pod);
      const uid = pod.metadata?.uid ?? '';
      const target = { podName: `${pod.metadata?.name}_${pod.metadata?.namespace}`, uid, dial: (port: number) => runtime.dial(uid, port) };
      const kind = upgradeKind(req, upgrade);
      let session: SpdySession;
      if (kind === 'websocket') {
        // client-go's tunneling dialer: SPDY inside WebSocket binary messages, subprotocol SPDY/3.1+<protocol>.
        const ws = await acceptWebSocket(req, upgrade!, [`SPDY/3.1+${portForwardProtocol}`]);
        session = new SpdySession(webSocketTunnel(ws));
      } else if (kind === 'spdy') {
        session = new SpdySession(acceptSpdy(req, upgrade!, [portForwardProtocol]).socket);
      } else {
        throw notUpgraded();
      }
      servePortForward(session, target);
      const undo = runtime.onPodGone(uid, () => session.close());
      session.once('close', undo);
    },
  };
}
