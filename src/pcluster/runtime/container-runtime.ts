/**
 * The simulated containers of a pcluster (what containerd is to a kubelet): it follows the pods' statuses as the
 * kubelet stand-in writes them and keeps, per container, the current instance and the previous one (after a
 * restart), each with its log: start-up lines, a line per declared probe and a heartbeat every `logIntervalMs`, a
 * line per HTTP request served, restart and exit lines. Each declared TCP container port answers on a loopback
 * listener (http-responder.ts) while the pod runs. A per-container working directory under the cluster's root dir is
 * where `kubectl exec` runs its commands. Everything of a pod is freed when the pod is deleted (or the cluster stops):
 * logs end (ending `kubectl logs -f`), listeners close, exec processes are killed, directories removed.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import { type JsonObject, type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { ContainerLog } from './container-log.js';
import { type ObjectLookup, containerEnvironment, expand } from './container-env.js';
import { hasPlainOutput, plainOutput } from './plain-output.js';
import { startResponder, type RunningResponder } from './http-responder.js';

export interface ContainerRuntimeOptions {
  clusterName: string;
  /** The cluster's root dir: working directories go under <rootDir>/containers/. */
  rootDir: string;
  /** How often running containers write their periodic lines (default 5000 ms). */
  logIntervalMs?: number;
  /**
   * Reads the pod's ConfigMaps and Secrets: with it, a container whose command's output is plain (plain-output.ts:
   * `echo`, `env`, `date`, ... as a `sh -c` script) logs that output instead of the simulator's lines.
   */
  lookup?: ObjectLookup;
}

/** One run of a container (a restart makes a new one). */
export interface ContainerInstance {
  name: string;
  restartCount: number;
  log: ContainerLog;
  running: boolean;
  /** The probes it declares, described ("readiness probe httpGet :8080/healthz"): a line each per heartbeat. */
  probes: string[];
  /** Its log is its command's own output (plain-output.ts): no simulator lines. */
  quiet?: boolean;
  /** While the output of a plain command is being worked out (its environment read): what terminate() waits for. */
  starting?: Promise<void>;
}

interface ContainerSlot {
  current?: ContainerInstance;
  previous?: ContainerInstance;
}

interface SimulatedPod {
  uid: string;
  namespace: string;
  name: string;
  containers: Map<string, ContainerSlot>;
  /** Declared container port → its responder (opening: the promise). */
  ports: Map<number, Promise<RunningResponder | undefined>>;
  timer?: NodeJS.Timeout;
  beats: number;
  /** What to do when the pod goes (kill exec processes, end attach sessions). */
  onGone: Set<() => void>;
}

const containersOf = (pod: KubeObject): JsonObject[] => {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  return Array.isArray(spec.containers) ? spec.containers.filter(isPlainObject) : [];
};

/** The pod's init containers: they run (and log) too, and sidecars (restartPolicy Always) serve their ports. */
const initContainersOf = (pod: KubeObject): JsonObject[] => {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  return Array.isArray(spec.initContainers) ? spec.initContainers.filter(isPlainObject) : [];
};

/** The probes a container declares, described for its log ("readiness probe httpGet :8080/healthz"). */
function probeDescriptions(c: JsonObject): string[] {
  const out: string[] = [];
  for (const kind of ['startup', 'liveness', 'readiness']) {
    const p = c[`${kind}Probe`];
    if (!isPlainObject(p)) continue;
    let how = 'exec';
    if (isPlainObject(p.httpGet)) how = `httpGet :${String(p.httpGet.port)}${String(p.httpGet.path ?? '/')}`;
    else if (isPlainObject(p.tcpSocket)) how = `tcpSocket :${String(p.tcpSocket.port)}`;
    else if (isPlainObject(p.grpc)) how = `grpc :${String(p.grpc.port)}`;
    out.push(`${kind} probe ${how}`);
  }
  return out;
}

/**
 * The pod's ephemeral containers (`kubectl debug`): they run and log like the others (a log for `kubectl logs -c`, a
 * working directory for exec, a main process to attach to) but declare no ports (validation forbids them).
 */
const ephemeralContainersOf = (pod: KubeObject): JsonObject[] => {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  return Array.isArray(spec.ephemeralContainers) ? spec.ephemeralContainers.filter(isPlainObject) : [];
};

/** The TCP ports a container declares. */
function declaredPorts(c: JsonObject): number[] {
  const ports = Array.isArray(c.ports) ? c.ports.filter(isPlainObject) : [];
  return ports.filter((p) => (p.protocol ?? 'TCP') === 'TCP' && typeof p.containerPort === 'number').map((p) => p.containerPort as number);
}

export class ContainerRuntime {
  private readonly pods = new Map<string, SimulatedPod>();
  private readonly logIntervalMs: number;

  constructor(private readonly opts: ContainerRuntimeOptions) {
    this.logIntervalMs = opts.logIntervalMs ?? 5000;
  }

  /** Sets how the runtime reads the pod's ConfigMaps and Secrets (ContainerRuntimeOptions.lookup), once the API serves. */
  useObjectLookup(lookup: ObjectLookup): void {
    this.opts.lookup = lookup;
  }

  /** Brings the simulation in line with a pod's status (called for every add and update the pod informer sees). */
  observe(pod: KubeObject): void {
    const uid = pod.metadata?.uid;
    const status = isPlainObject(pod.status) ? pod.status : {};
    if (!uid || !Array.isArray(status.containerStatuses)) return;
    let sim = this.pods.get(uid);
    const specs = new Map([...initContainersOf(pod), ...containersOf(pod), ...ephemeralContainersOf(pod)].map((c) => [String(c.name), c]));
    const listed = (v: unknown) => (Array.isArray(v) ? v : []);
    const statuses = [...listed(status.initContainerStatuses), ...status.containerStatuses, ...listed(status.ephemeralContainerStatuses)].filter(isPlainObject);
    for (const cs of statuses) {
      const state = isPlainObject(cs.state) ? cs.state : {};
      const name = String(cs.name);
      const restarts = Number(cs.restartCount ?? 0);
      if (!sim && !isPlainObject(state.running) && !isPlainObject(state.terminated)) continue;
      sim ??= this.track(pod, uid);
      const slot = sim.containers.get(name) ?? {};
      sim.containers.set(name, slot);
      if (isPlainObject(state.running) && (!slot.current || slot.current.restartCount < restarts)) {
        if (slot.current) {
          const last = isPlainObject(cs.lastState) && isPlainObject(cs.lastState.terminated) ? cs.lastState.terminated : {};
          this.terminate(slot.current, Number(last.exitCode ?? 0), String(last.reason ?? 'Error'));
          slot.previous = slot.current;
        }
        slot.current = this.start(pod, sim, specs.get(name) ?? { name }, restarts);
      } else if (isPlainObject(state.terminated) && slot.current?.running) {
        this.terminate(slot.current, Number(state.terminated.exitCode ?? 0), String(state.terminated.reason ?? 'Completed'));
      }
    }
    if (!sim) return;
    if (status.phase === 'Running') {
      const serving = [...initContainersOf(pod).filter((c) => c.restartPolicy === 'Always'), ...containersOf(pod)];
      for (const c of serving) for (const port of declaredPorts(c)) this.openPort(sim, String(c.name), port);
      sim.timer ??= setInterval(() => this.beat(sim!), this.logIntervalMs).unref();
    } else if (status.phase === 'Succeeded' || status.phase === 'Failed') {
      this.quiesce(sim);
    }
  }

  /** Frees everything of a deleted pod. */
  remove(uid: string): void {
    const sim = this.pods.get(uid);
    if (!sim) return;
    this.pods.delete(uid);
    this.quiesce(sim);
    for (const slot of sim.containers.values()) {
      slot.current?.log.end();
      slot.previous?.log.end();
    }
    for (const gone of sim.onGone) gone();
    rmSync(join(this.opts.rootDir, 'containers', uid), { recursive: true, force: true });
  }

  /** Stops everything (the cluster is shutting down). */
  stop(): void {
    for (const uid of [...this.pods.keys()]) this.remove(uid);
  }

  /** The current and previous instances of a container, if the simulation has seen it run. */
  container(uid: string, name: string): { current?: ContainerInstance; previous?: ContainerInstance } {
    return this.pods.get(uid)?.containers.get(name) ?? {};
  }

  /** Registers what to do when the pod goes; returns the unregister function. */
  onPodGone(uid: string, fn: () => void): () => void {
    const sim = this.pods.get(uid);
    if (!sim) {
      fn();
      return () => {};
    }
    sim.onGone.add(fn);
    return () => sim.onGone.delete(fn);
  }

  /** The container's working directory (created on demand): where exec runs its commands. */
  workDir(uid: string, container: string): string {
    const dir = join(this.opts.rootDir, 'containers', uid, container);
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  /** Connects to a port of the pod, as a process in its network namespace would dial localhost:port. */
  async dial(uid: string, port: number): Promise<Duplex> {
    const responder = await this.pods.get(uid)?.ports.get(port);
    if (!responder) {
      throw new Error(`failed to connect to localhost:${port} inside the pod's network namespace: dial tcp4 127.0.0.1:${port}: connect: connection refused`);
    }
    return new Promise((resolve, reject) => {
      const sock = connect(responder.localPort, '127.0.0.1');
      sock.once('connect', () => resolve(sock));
      sock.once('error', reject);
    });
  }

  /** The loopback ports the pod's declared ports answer on (for the docs' "curl it directly"). */
  async localPorts(uid: string): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    for (const [port, p] of this.pods.get(uid)?.ports ?? []) {
      const r = await p;
      if (r) out.set(port, r.localPort);
    }
    return out;
  }

  private track(pod: KubeObject, uid: string): SimulatedPod {
    const sim: SimulatedPod = { uid, namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', containers: new Map(), ports: new Map(), beats: 0, onGone: new Set() };
    this.pods.set(uid, sim);
    return sim;
  }

  private start(pod: KubeObject, sim: SimulatedPod, spec: JsonObject, restartCount: number): ContainerInstance {
    const instance: ContainerInstance = { name: String(spec.name), restartCount, log: new ContainerLog(), running: true, probes: probeDescriptions(spec) };
    const words = [...(Array.isArray(spec.command) ? spec.command : []), ...(Array.isArray(spec.args) ? spec.args : [])].map(String);
    // A command whose output is plain logs only that output, as a real container's log holds only what it printed;
    // its environment (ConfigMaps, Secrets, the downward API) is read first. Any other keeps the simulator's lines.
    const lookup = this.opts.lookup;
    if (lookup && hasPlainOutput(words.map((w) => w.replace(/\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, 'x')))) {
      instance.quiet = true;
      instance.starting = (async () => {
        const env = await containerEnvironment(pod, spec, lookup).catch(() => undefined);
        const lines = env && plainOutput(words.map((w) => expand(w, env)), env);
        if (lines) for (const line of lines) instance.log.append(line);
        else {
          instance.quiet = false;
          this.simulatorStartLines(pod, sim, spec, instance);
        }
      })();
      return instance;
    }
    this.simulatorStartLines(pod, sim, spec, instance);
    return instance;
  }

  /** The simulator's own lines at a container's start: what it runs, where, its ports and probes. */
  private simulatorStartLines(pod: KubeObject, sim: SimulatedPod, spec: JsonObject, instance: ContainerInstance): void {
    const node = isPlainObject(pod.spec) ? String(pod.spec.nodeName ?? '') : '';
    const log = (line: string) => instance.log.append(line);
    log(`[atrium-sim] starting container ${instance.name} (image ${String(spec.image ?? '')}) of pod ${sim.namespace}/${sim.name} on node ${node} in cluster ${this.opts.clusterName}`);
    if (instance.restartCount > 0) log(`[atrium-sim] restart #${instance.restartCount}`);
    for (const port of declaredPorts(spec)) log(`[atrium-sim] listening on port ${port}/TCP (simulated HTTP responder)`);
    for (const probe of instance.probes) log(`[atrium-sim] ${probe}: started`);
    // An ephemeral container is never ready (the kubelet does not probe it); it names the container whose processes
    // it would see (targetContainerName shares that container's process namespace).
    if (ephemeralContainersOf(pod).some((c) => c.name === instance.name)) {
      log(`[atrium-sim] ephemeral container${typeof spec.targetContainerName === 'string' && spec.targetContainerName ? ` targeting container ${spec.targetContainerName}` : ''}: running`);
    } else log('[atrium-sim] ready');
  }

  private terminate(instance: ContainerInstance, exitCode: number, reason: string): void {
    if (!instance.running) return;
    instance.running = false;
    const finish = () => {
      if (!instance.quiet) instance.log.append(`[atrium-sim] container ${instance.name} exited with code ${exitCode} (${reason})`);
      instance.log.end();
    };
    // A plain command's output is written before its log ends.
    if (instance.starting) void instance.starting.then(finish);
    else finish();
  }

  /** The periodic lines of every running container: a heartbeat and one line per declared probe. */
  private beat(sim: SimulatedPod): void {
    sim.beats++;
    for (const slot of sim.containers.values()) {
      const c = slot.current;
      if (!c?.running || c.quiet) continue;
      c.log.append(`[atrium-sim] heartbeat ${sim.beats}: ${c.name} is running`);
      for (const probe of c.probes) c.log.append(`[atrium-sim] ${probe}: succeeded`);
    }
  }

  private openPort(sim: SimulatedPod, container: string, port: number): void {
    if (sim.ports.has(port)) return;
    const log = (line: string) => {
      const c = sim.containers.get(container)?.current;
      if (c && !c.quiet) c.log.append(line);
    };
    sim.ports.set(
      port,
      startResponder({ cluster: this.opts.clusterName, namespace: sim.namespace, pod: sim.name, container, port }, log).catch(() => undefined),
    );
  }

  /** The pod stopped running: its periodic lines stop and its ports close. */
  private quiesce(sim: SimulatedPod): void {
    if (sim.timer) clearInterval(sim.timer);
    sim.timer = undefined;
    for (const p of sim.ports.values()) void p.then((r) => r?.close());
    sim.ports.clear();
  }
}
