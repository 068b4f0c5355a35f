/**
 * Child processes for suites that run atrium, simulated clusters and syncers as separate processes (bin/atrium
 * start|pcluster|syncer, bin/kubectl-atrium): a process that can be SIGKILLed and started again with the same
 * arguments, running a node script to completion, and the port a kubeconfig points at.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import YAML from 'yaml';
import { GiveUp, eventually } from './eventually.js';
import { pluginBinDir } from './harness.js';

/** A child process (node + args) that is ready once its output satisfies readyWhen; restartable. */
export class Proc {
  child?: ChildProcess;
  /** stdout and stderr of the current run, as they arrive. */
  output = '';
  /** stdout alone. */
  stdout = '';
  constructor(
    readonly name: string,
    private args: () => string[],
    private readyWhen: (out: string) => boolean,
  ) {}

  /** Starts the process (args are evaluated now) and waits until it is ready; fails if it exits first. */
  async start(timeoutMs = 30_000): Promise<void> {
    this.output = this.stdout = '';
    // ATRIUM_PROC_NODE_ARGS (space-separated) goes before the script, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to
    // profile every process of a fleet (node refuses --cpu-prof in NODE_OPTIONS).
    const nodeArgs = (process.env.ATRIUM_PROC_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, [...nodeArgs, ...this.args()], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout!.on('data', (b) => {
      this.output += b;
      this.stdout += b;
    });
    child.stderr!.on('data', (b) => (this.output += b));
    await eventually(`${this.name} to start`, async () => {
      if (child.exitCode !== null) throw new GiveUp(`${this.name} exited ${child.exitCode}: ${this.output.slice(-2000)}`);
      return this.readyWhen(this.output);
    }, timeoutMs, 200);
  }

  /** Sends `signal` (SIGKILL by default) and waits for the exit; nothing when the process is not running. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    await exited;
  }
}

/** Runs `node <args>` to completion (asynchronously, so a server in this process can answer it); never rejects. */
export function runNode(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (b) => (stdout += b));
    p.stderr.on('data', (b) => (stderr += b));
    p.on('error', (err) => done({ code: -1, stdout, stderr: stderr + String(err) }));
    p.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
  });
}

/** Runs the real `kubectl-atrium` executable with KUBECONFIG=kubeconfig; never rejects. */
export function kubectlAtrium(kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runNode([resolve(pluginBinDir, 'kubectl-atrium'), ...args], { KUBECONFIG: kubeconfig });
}

/** The port of the server the kubeconfig's first cluster points at. */
export function portOf(kubeconfigPath: string): string {
  const kc = YAML.parse(readFileSync(kubeconfigPath, 'utf8')) as { clusters: { cluster: { server: string } }[] };
  return new URL(kc.clusters[0]!.cluster.server).port;
}
