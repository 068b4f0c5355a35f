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
import { type ObjectLookup, type ServiceLister, containerEnvironment, expand } from './container-env.js';
import { mounttestFlags, mounttestLoop, mounttestLoopStep, runMounttest } from './mounttest.js';
import { hasPlainOutput, plainOutput } from './plain-output.js';
import { volumeView } from './volume-view.js';
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
  /** Lists a namespace's Services: the service environment variables. */
  services?: ServiceLister;
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
  /** A program's later output (mounttest's loop): stopped when the instance ends. */
  loop?: NodeJS.Timeout;
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
  /** The pod as last seen: what a program reading its volumes again sees (labels changed since, ...). */
  pod: KubeObject;
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

/** Images whose command is their arguments (no ENTRYPOINT): a shell or language image. */
function entrypointless(image: unknown): boolean {
  return typeof image === 'string' && /(^|\/)(busybox|alpine|ubuntu|debian|centos|fedora|rockylinux|almalinux|amazonlinux|bash|python|node|golang|perl|ruby)(:|@|$)/.test(image);
}

/**
 * The environment a container's program sees and `env` prints: the kubelet's variables, with the PATH and HOME of a
 * typical image instead of the pcluster's own PATH (which exec'd commands need, as they run as local programs).
 */
function printedEnvironment(env: Record<string, string>): Record<string, string> {
  // containerEnvironment seeds PATH with the pcluster's; a PATH the pod sets itself stays.
  const path = env.PATH === process.env.PATH ? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' : env.PATH;
  return { ...env, ...(path !== undefined ? { PATH: path } : {}), HOME: env.HOME ?? '/root' };
}

export class ContainerRuntime {
  private readonly pods = new Map<string, SimulatedPod>();
  private readonly logIntervalMs: number;

  constructor(private readonly opts: ContainerRuntimeOptions) {
    this.logIntervalMs = opts.logIntervalMs ?? 5000;
  }

  /** Sets how the runtime reads the pod's ConfigMaps and Secrets (ContainerRuntimeOptions.lookup), once the API serves. */
  useObjectLookup(lookup: ObjectLookup, services?: ServiceLister): void {
    this.opts.lookup = lookup;
    this.opts.services = services;
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
      sim.pod = pod;
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
      if (slot.current) this.stopLoop(slot.current);
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
    const sim: SimulatedPod = { uid, namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', containers: new Map(), ports: new Map(), beats: 0, onGone: new Set(), pod };
    this.pods.set(uid, sim);
    return sim;
  }

  private start(pod: KubeObject, sim: SimulatedPod, spec: JsonObject, restartCount: number): ContainerInstance {
    const instance: ContainerInstance = { name: String(spec.name), restartCount, log: new ContainerLog(), running: true, probes: probeDescriptions(spec) };
    const command = Array.isArray(spec.command) ? spec.command : [];
    // Arguments alone are the command only for images without an entrypoint (busybox and the like): another image's
    // entrypoint would run them (`nginx`'s script, agnhost's subcommands).
    const words = command.length > 0 || entrypointless(spec.image) ? [...command, ...(Array.isArray(spec.args) ? spec.args : [])].map(String) : [];
    // A command whose output is plain logs only that output, as a real container's log holds only what it printed;
    // its environment (ConfigMaps, Secrets, the downward API) and volumes are read first. So does agnhost's mounttest,
    // run against the container's simulated volumes. Any other keeps the simulator's lines.
    const lookup = this.opts.lookup;
    const mounttest = mounttestFlags(spec);
    if (lookup && (mounttest || hasPlainOutput(words.map((w) => w.replace(/\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, 'x'))))) {
      instance.quiet = true;
      instance.starting = (async () => {
        let lines: string[] | undefined;
        try {
          const view = await volumeView(pod, spec, lookup);
          if (mounttest) {
            lines = runMounttest(mounttest, view).lines;
            const loop = mounttestLoop(mounttest);
            if (loop) this.startMounttestLoop(sim, spec, instance, loop, lookup);
          }
          else {
            const env = await containerEnvironment(pod, spec, lookup, this.opts.services);
            lines = plainOutput(words.map((w) => expand(w, env)), printedEnvironment(env), (path) => {
              const f = view.stat(path);
              return f && !f.dir ? f.content : undefined;
            });
          }
        } catch {
          lines = undefined;
        }
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

  /**
   * mounttest's `--file_content_in_loop`: a pass now and every 2 s for its retry time, each reading the volumes anew
   * (the pod as last seen, its ConfigMaps and Secrets as they are now), until it ends or the instance does.
   */
  private startMounttestLoop(sim: SimulatedPod, spec: JsonObject, instance: ContainerInstance, loop: { path: string; retrySeconds: number; breakOnExpected: boolean }, lookup: ObjectLookup): void {
    const until = Date.now() + loop.retrySeconds * 1000;
    let busy = false;
    const pass = async () => {
      if (busy) return;
      busy = true;
      try {
        const step = mounttestLoopStep(loop, await volumeView(sim.pod, spec, lookup));
        if (!instance.running) return;
        for (const line of step.lines) instance.log.append(line);
        if (step.done || Date.now() >= until) this.stopLoop(instance);
      } catch {
        this.stopLoop(instance);
      } finally {
        busy = false;
      }
    };
    instance.loop = setInterval(() => void pass(), 2000).unref();
    void pass();
  }

  private stopLoop(instance: ContainerInstance): void {
    if (instance.loop) clearInterval(instance.loop);
    instance.loop = undefined;
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
    this.stopLoop(instance);
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
