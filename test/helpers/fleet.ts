/**
 * The fleet fixture: atrium with the multi-cluster options plus N simulated physical clusters (`atrium pcluster`),
 * registered as SyncTargets, which every multi-cluster suite (and bench/scheduling.ts) starts from.
 *
 *   const fleet = await startFleet({ clusters: ['st-a', 'st-b'], multicluster: { ... }, bindCompute: true, waitReady: true });
 *   fleet.up                      // admin client of atrium
 *   fleet.cluster('st-a').client  // admin client of a cluster
 *   await fleet.stop();           // syncer processes, atrium, then the clusters (last first); removes the temp dir
 *
 * By default everything runs in this process (startTestServer, startPcluster) and every cluster is registered in
 * push mode (spec.kubeconfig: atrium runs its syncer). The variations are options:
 * - `register: false`: nothing is registered at start; the suite calls fleet.register(name, { mode }) itself, also in
 *   `none` mode (a SyncTarget without kubeconfig and an `atrium syncer` process with atrium's admin kubeconfig) or
 *   `pull` mode (`kubectl atrium workload sync` prints the manifest; an `atrium syncer` process runs with its
 *   ServiceAccount kubeconfig, as the in-cluster Deployment would);
 * - `processes`: atrium and the clusters as `atrium start` / `atrium pcluster` processes, each restartable (SIGKILL
 *   and start again) on the same port, root dir and credentials;
 * - `workspace`: the SyncTargets in another workspace than root (created by the fixture);
 * - per cluster: nodes, node capacity, ready delay, a deviating Deployment schema, how long Job pods run and how fast
 *   CronJob schedules tick.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { eventually } from './eventually.js';
import { pluginBinDir, startTestServer, type TestServer } from './harness.js';
import { Proc, kubectlAtrium, portOf } from './processes.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import type { ServerOptions } from '../../src/server/server.js';
import { RestClient } from '../../src/client/rest-client.js';
import { startPcluster, type RunningPcluster } from '../../src/pcluster/pcluster.js';
import type { DeploymentSchemaVariant } from '../../src/pcluster/schema-variants.js';
import { bindCompute, type BindComputeOptions } from '../../src/multicluster/scheduling/bind-compute.js';
import { multiclusterServerOptions, type MulticlusterOptions } from '../../src/multicluster/server-options.js';

/** The multi-cluster timings of the in-process scheduling suites: heartbeats every 300 ms, failover within seconds. */
export const fastScheduling = (): MulticlusterOptions => ({
  heartbeatThresholdMs: 3000,
  pushSyncer: { heartbeatIntervalMs: 300, importPollIntervalMs: 300 },
  scheduling: { tolerationSeconds: 1, resyncMs: 300 },
  splitter: { resyncMs: 300 },
});

/** The multi-cluster timings of the in-process syncer suites: push-mode syncers heartbeating and importing every 500 ms. */
export const fastSync = (): MulticlusterOptions => ({ heartbeatThresholdMs: 5000, pushSyncer: { heartbeatIntervalMs: 500, importPollIntervalMs: 500 } });

const syncTargetsGVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };
const workspacesGVR = { group: 'tenancy.kcp.io', version: 'v1alpha1', resource: 'workspaces' };
const atriumBin = join(pluginBinDir, 'atrium');

export interface FleetClusterSpec {
  name: string;
  /** Simulated nodes (the pcluster default, 1, otherwise). */
  nodes?: number;
  /** Capacity of every node, e.g. { cpu: '1', memory: '16Gi', pods: '110' }. */
  nodeCapacity?: Record<string, string>;
  /** How long a scheduled pod takes to become Ready: 100 ms in process, 200 ms as a process unless given. */
  readyDelayMs?: number;
  /** Publish a deliberately different Deployment schema (type-negotiation tests). */
  deploymentSchema?: DeploymentSchemaVariant;
  /** How long the containers of Job-style pods run (`--job-duration`; the pcluster default, 2 s, otherwise). */
  jobDurationMs?: number;
  /** Simulated seconds per real second for CronJob schedules (`--cronjob-time-scale`; 60: `* * * * *` fires every second). */
  cronJobTimeScale?: number;
}

/** push: spec.kubeconfig, atrium runs the syncer; none and pull: an `atrium syncer` process (see the file comment). */
export type RegistrationMode = 'push' | 'none' | 'pull';

export interface RegisterOptions {
  mode?: RegistrationMode;
  /** spec.deletionPolicy of the SyncTarget (push and none mode). */
  deletionPolicy?: 'Delete' | 'Orphan';
  /** Push and none mode: the logical cluster (name) of the SyncTarget, when not the fleet's workspace. */
  cluster?: string;
}

export interface Registration {
  /** Pull mode: what `kubectl atrium workload sync` printed on stderr, and the documents of the manifest it wrote. */
  stderr?: string;
  manifest?: any[];
}

export interface FleetOptions {
  /** The simulated clusters, by name or spec; started, and registered, in this order. */
  clusters: (string | FleetClusterSpec)[];
  /** A word in the temp dir's name. */
  name?: string;
  /** Options of atrium's multi-cluster controllers (in process; as processes, pass `atrium start` flags instead). */
  multicluster?: MulticlusterOptions;
  /** More options of the in-process atrium (builtinControllers, tokenAuthFile, ...). */
  server?: Partial<ServerOptions>;
  /** Run atrium and the clusters as processes: `atrium start <atriumArgs>` and `atrium pcluster`. */
  processes?: { atriumArgs?: string[] };
  /** The workspace (path) that holds the SyncTargets; the fixture creates it first when it is not root. */
  workspace?: string;
  /** Register every cluster at start in this mode (push by default); false leaves it to fleet.register(). */
  register?: RegistrationMode | false;
  /** After registering: the default Placement (`bind compute`) of `workspace`, over its own SyncTargets. */
  bindCompute?: boolean;
  /** After registering: wait until every SyncTarget is Ready, and these resources Accepted (timeout 30 s by default). */
  waitReady?: boolean | { resources?: string[]; timeoutMs?: number };
  /** Flags of the `atrium syncer` processes of none and pull registrations (the syncer defaults otherwise). */
  syncer?: { heartbeatInterval?: string; importPollInterval?: string };
}

export interface FleetCluster {
  readonly name: string;
  /** The cluster's root dir. */
  readonly dir: string;
  /** The cluster's admin kubeconfig. */
  readonly kubeconfigPath: string;
  /** Admin client of the cluster. */
  readonly client: RestClient;
  /** In process: the running cluster. */
  readonly pcluster?: RunningPcluster;
  /** As processes: the `atrium pcluster` process; kill() and start() restart it on the same port. */
  readonly proc?: Proc;
  /** The `atrium syncer` process of a none or pull registration; kill() and start() restart it. */
  syncer?: Proc;
  /** Stops the cluster (in process for good; the fleet's stop() then leaves it alone). */
  stop(): Promise<void>;
}

export interface Fleet<Atrium> {
  /** The temp dir holding every root dir; removed by stop(). */
  readonly dir: string;
  /** The in-process atrium (a TestServer, a new one after startAtrium()) or the `atrium start` process. */
  atrium: Atrium;
  /** atrium's admin kubeconfig. */
  readonly kubeconfig: string;
  /** Admin client of atrium (in process: a new one after startAtrium(), so read it again). */
  up: RestClient;
  readonly clusters: FleetCluster[];
  /** The workspace holding the SyncTargets: its path and its logical cluster name. */
  readonly workspace: { path: string; cluster: string };
  cluster(name: string): FleetCluster;
  /** Registers a cluster as a SyncTarget of `workspace` (push mode by default). */
  register(name: string, opts?: RegisterOptions): Promise<Registration>;
  /** `bind compute`: the default Placement of `cluster` (workspace's by default) over `locationWorkspace` (workspace by default). */
  bindCompute(opts?: Partial<BindComputeOptions>): Promise<string>;
  /** Waits until the SyncTargets (every registered one by default) are Ready and `resources` Accepted; returns them. */
  waitReady(names?: string[], opts?: { resources?: string[]; timeoutMs?: number }): Promise<KubeObject[]>;
  /** Creates Workspace `name` in `parent` (root by default) and waits until it is Ready. */
  createWorkspace(name: string, parent?: string): Promise<{ path: string; cluster: string }>;
  /** Stops atrium: in process gracefully; a process with `signal` (SIGKILL by default). */
  stopAtrium(signal?: NodeJS.Signals): Promise<void>;
  /** Starts atrium again on the same root dir (a process on the same port); `controllers: false` serves without them. */
  startAtrium(opts?: { controllers?: boolean }): Promise<void>;
  /** The tail of every process's output (for failure messages); empty in process. */
  logs(): string;
  stop(): Promise<void>;
}

/** A fleet whose atrium runs in this process. */
export type InProcessFleet = Fleet<TestServer>;
/** A fleet of `atrium start` and `atrium pcluster` processes. */
export type ProcessFleet = Fleet<Proc>;

/** Starts the fleet described by `opts` (see the file comment). */
export function startFleet(opts: FleetOptions & { processes?: undefined }): Promise<Fleet<TestServer>>;
export function startFleet(opts: FleetOptions & { processes: { atriumArgs?: string[] } }): Promise<Fleet<Proc>>;
export async function startFleet(opts: FleetOptions): Promise<Fleet<TestServer | Proc>> {
  const fleet = new FleetImpl(opts);
  try {
    await fleet.start();
  } catch (err) {
    await fleet.stop().catch(() => undefined);
    throw err;
  }
  return fleet;
}

class FleetImpl implements Fleet<TestServer | Proc> {
  readonly dir: string;
  readonly kubeconfig: string;
  readonly clusters: FleetCluster[] = [];
  atrium!: TestServer | Proc;
  up!: RestClient;
  workspace = { path: 'root', cluster: 'root' };
  private readonly atriumDir: string;
  private readonly specs: FleetClusterSpec[];
  private readonly registered: string[] = [];
  private atriumRunning = false;
  private atriumPort = '0';

  constructor(private readonly opts: FleetOptions) {
    this.dir = mkdtempSync(join(tmpdir(), `atrium-fleet-${opts.name ?? 'test'}-`));
    this.atriumDir = join(this.dir, 'atrium');
    this.kubeconfig = join(this.atriumDir, 'admin.kubeconfig');
    this.specs = opts.clusters.map((c) => (typeof c === 'string' ? { name: c } : c));
  }

  async start(): Promise<void> {
    for (const spec of this.specs) this.clusters.push(await this.startCluster(spec));
    if (this.opts.processes) {
      const proc = new Proc('atrium', () => [atriumBin, 'start', '--root-dir', this.atriumDir, '--secure-port', this.atriumPort, ...(this.opts.processes?.atriumArgs ?? [])], (o) => o.includes('atrium is serving at'));
      this.atrium = proc;
    }
    await this.startAtrium();
    if (this.opts.workspace && this.opts.workspace !== 'root') {
      const parts = this.opts.workspace.split(':');
      this.workspace = await this.createWorkspace(parts.at(-1)!, parts.slice(0, -1).join(':'));
    }
    const mode = this.opts.register ?? 'push';
    if (mode) for (const c of this.clusters) await this.register(c.name, { mode });
    if (this.opts.bindCompute) await this.bindCompute();
    if (this.opts.waitReady) await this.waitReady(undefined, this.opts.waitReady === true ? {} : this.opts.waitReady);
  }

  private async startCluster(spec: FleetClusterSpec): Promise<FleetCluster> {
    const dir = join(this.dir, spec.name);
    const kubeconfigPath = join(dir, 'admin.kubeconfig');
    if (this.opts.processes) {
      mkdirSync(dir, { recursive: true });
      let port = '0';
      const args = () => [
        atriumBin, 'pcluster', '--name', spec.name, '--root-dir', dir, '--secure-port', port, '--ready-delay', `${spec.readyDelayMs ?? 200}ms`,
        ...(spec.nodes !== undefined ? ['--nodes', String(spec.nodes)] : []),
        ...(spec.nodeCapacity ? ['--node-capacity', Object.entries(spec.nodeCapacity).map(([k, v]) => `${k}=${v}`).join(',')] : []),
        ...(spec.deploymentSchema ? ['--deployment-schema', spec.deploymentSchema] : []),
        ...(spec.jobDurationMs !== undefined ? ['--job-duration', `${spec.jobDurationMs}ms`] : []),
        ...(spec.cronJobTimeScale !== undefined ? ['--cronjob-time-scale', String(spec.cronJobTimeScale)] : []),
      ];
      const proc = new Proc(spec.name, args, (o) => o.includes('is serving at') && existsSync(kubeconfigPath));
      await proc.start().catch(async (err) => {
        await proc.kill();
        throw err;
      });
      port = portOf(kubeconfigPath);
      const client = await RestClient.fromKubeconfig(kubeconfigPath);
      return { name: spec.name, dir, kubeconfigPath, client, proc, stop: () => proc.kill('SIGTERM') };
    }
    const pc = await startPcluster({
      name: spec.name,
      rootDir: dir,
      bindAddress: '127.0.0.1',
      securePort: 0,
      readyDelayMs: spec.readyDelayMs ?? 100,
      ...(spec.nodes !== undefined ? { nodes: spec.nodes } : {}),
      ...(spec.nodeCapacity ? { nodeCapacity: spec.nodeCapacity } : {}),
      ...(spec.deploymentSchema ? { deploymentSchema: spec.deploymentSchema } : {}),
      ...(spec.jobDurationMs !== undefined ? { jobDurationMs: spec.jobDurationMs } : {}),
      ...(spec.cronJobTimeScale !== undefined ? { cronJobTimeScale: spec.cronJobTimeScale } : {}),
    });
    let stopped: Promise<void> | undefined;
    return {
      name: spec.name,
      dir,
      kubeconfigPath: pc.kubeconfigPath,
      client: new RestClient({ url: pc.url, ca: pc.caPem, token: pc.adminToken }),
      pcluster: pc,
      stop: () => (stopped ??= pc.stop()),
    };
  }

  async startAtrium(o: { controllers?: boolean } = {}): Promise<void> {
    if (this.atrium instanceof Proc) {
      await this.atrium.start();
      this.atriumPort = portOf(this.kubeconfig);
      this.up ??= await RestClient.fromKubeconfig(this.kubeconfig);
    } else {
      const mc = multiclusterServerOptions(this.opts.multicluster ?? {});
      const server = o.controllers === false ? { ...this.opts.server, plugins: mc.plugins.map(({ name, resources, install }) => ({ name, resources, install })) } : { ...this.opts.server, ...mc };
      const atrium = await startTestServer({ rootDir: this.atriumDir, server });
      this.atrium = atrium;
      this.up = new RestClient({ url: atrium.url, ca: atrium.server.caPem, token: atrium.server.adminToken });
    }
    this.atriumRunning = true;
  }

  async stopAtrium(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.atriumRunning) return;
    this.atriumRunning = false;
    if (this.atrium instanceof Proc) return this.atrium.kill(signal);
    this.up.close();
    await this.atrium.stop();
  }

  cluster(name: string): FleetCluster {
    const c = this.clusters.find((x) => x.name === name);
    if (!c) throw new Error(`no cluster ${name} in the fleet (${this.clusters.map((x) => x.name).join(', ')})`);
    return c;
  }

  private get scope(): { cluster?: string } {
    return this.workspace.path === 'root' ? {} : { cluster: this.workspace.cluster };
  }

  async register(name: string, o: RegisterOptions = {}): Promise<Registration> {
    const c = this.cluster(name);
    const mode = o.mode ?? 'push';
    const result: Registration = {};
    let upstreamKubeconfig = this.kubeconfig;
    if (mode === 'pull') {
      const manifestPath = join(this.dir, `${name}-syncer.yaml`);
      const r = await kubectlAtrium(this.kubeconfig, ['workload', 'sync', name, '--kubeconfig', this.kubeconfig, '-o', manifestPath]);
      if (r.code !== 0) throw new Error(`kubectl atrium workload sync ${name} exited ${r.code}: ${r.stderr}`);
      result.stderr = r.stderr;
      result.manifest = YAML.parseAllDocuments(readFileSync(manifestPath, 'utf8')).map((d) => d.toJSON());
      upstreamKubeconfig = join(this.dir, `${name}-upstream.kubeconfig`);
      writeFileSync(upstreamKubeconfig, result.manifest.find((d) => d.kind === 'Secret').stringData.kubeconfig);
    } else {
      const spec = { ...(mode === 'push' ? { kubeconfig: readFileSync(c.kubeconfigPath, 'utf8') } : {}), ...(o.deletionPolicy ? { deletionPolicy: o.deletionPolicy } : {}) };
      await this.up.create(syncTargetsGVR, { apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', metadata: { name }, ...(Object.keys(spec).length ? { spec } : {}) }, o.cluster ? { cluster: o.cluster } : this.scope);
    }
    if (mode !== 'push') {
      const s = this.opts.syncer ?? {};
      c.syncer = new Proc(
        `syncer ${name}`,
        () => [
          atriumBin, 'syncer', '--from-kubeconfig', upstreamKubeconfig, '--to-kubeconfig', c.kubeconfigPath, '--sync-target-name', name,
          ...(s.heartbeatInterval ? ['--heartbeat-interval', s.heartbeatInterval] : []),
          ...(s.importPollInterval ? ['--import-poll-interval', s.importPollInterval] : []),
        ],
        (out) => out.includes('is running'),
      );
      await c.syncer.start();
    }
    if (!o.cluster) this.registered.push(name);
    return result;
  }

  bindCompute(o: Partial<BindComputeOptions> = {}): Promise<string> {
    return bindCompute(this.up, { cluster: this.workspace.cluster, locationWorkspace: this.workspace.path, ...o });
  }

  async waitReady(names: string[] = this.registered, o: { resources?: string[]; timeoutMs?: number } = {}): Promise<KubeObject[]> {
    const resources = o.resources ?? [];
    const out: KubeObject[] = [];
    for (const name of names) {
      const what = `SyncTarget ${name} Ready${resources.length ? ` and ${resources.join(', ')} Accepted` : ''}`;
      const st = await eventually(what, async () => {
        const t = await this.up.get(syncTargetsGVR, name, this.scope);
        const s = t.status as { conditions?: { type: string; status: string }[]; syncedResources?: { resource: string; state: string }[] } | undefined;
        return s?.conditions?.find((x) => x.type === 'Ready')?.status === 'True' && resources.every((r) => s.syncedResources?.find((x) => x.resource === r)?.state === 'Accepted') && t;
      }, o.timeoutMs ?? 30_000).catch((e: Error) => {
        throw new Error(`${e.message}${this.logs() ? `\n${this.logs()}` : ''}`);
      });
      out.push(st);
    }
    return out;
  }

  async createWorkspace(name: string, parent = 'root'): Promise<{ path: string; cluster: string }> {
    const scope = parent === 'root' ? {} : { cluster: parent };
    await this.up.create(workspacesGVR, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: {} }, scope);
    const ws = await eventually(`workspace ${parent}:${name} Ready`, async () => {
      const w = await this.up.get(workspacesGVR, name, scope);
      return (w.status as { phase?: string } | undefined)?.phase === 'Ready' && w;
    });
    return { path: `${parent}:${name}`, cluster: (ws.spec as { cluster: string }).cluster };
  }

  logs(): string {
    const procs = [...(this.atrium instanceof Proc ? [this.atrium] : []), ...this.clusters.flatMap((c) => [c.proc, c.syncer])].filter((p): p is Proc => p !== undefined);
    return procs.map((p) => `--- ${p.name}\n${p.output.slice(-1500)}`).join('\n');
  }

  async stop(): Promise<void> {
    const errors: unknown[] = [];
    const attempt = async (f: () => Promise<void> | void) => {
      try {
        await f();
      } catch (err) {
        errors.push(err);
      }
    };
    for (const c of this.clusters) if (c.syncer) await attempt(() => c.syncer!.kill('SIGTERM'));
    if (this.atrium instanceof Proc) await attempt(() => (this.atrium as Proc).kill('SIGTERM'));
    else if (this.atriumRunning) await attempt(() => this.stopAtrium());
    this.up?.close();
    for (const c of [...this.clusters].reverse()) {
      c.client.close();
      await attempt(() => c.stop());
    }
    rmSync(this.dir, { recursive: true, force: true });
    if (errors.length) throw errors[0];
  }
}
