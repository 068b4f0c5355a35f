/**
 * Helpers for end-to-end tests that run atrium, simulated clusters and syncers as separate processes: a process that
 * can be SIGKILLed and started again with the same arguments, polling until a condition holds, and the port a
 * kubeconfig points at.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { eventually as eventuallyPoll } from '../../helpers/eventually.js';

/** A child process (node + args) that is ready once its output satisfies readyWhen; restartable. */
export class Proc {
  child?: ChildProcess;
  output = '';
  constructor(
    readonly name: string,
    private args: () => string[],
    private readyWhen: (out: string) => boolean,
  ) {}

  async start(): Promise<void> {
    this.output = '';
    const child = spawn(process.execPath, this.args(), { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout!.on('data', (b) => (this.output += b));
    child.stderr!.on('data', (b) => (this.output += b));
    await eventually(`${this.name} to start`, async () => {
      if (child.exitCode !== null) throw new Error(`${this.name} exited ${child.exitCode}: ${this.output.slice(-2000)}`);
      return this.readyWhen(this.output);
    }, 30_000);
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    await exited;
  }
}

/** Polls fn until it holds (see test/helpers/eventually.ts); multi-process suites wait up to a minute by default. */
export function eventually<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  return eventuallyPoll(what, fn, timeoutMs, 200);
}

/** The port of the server the kubeconfig's first cluster points at. */
export function portOf(kubeconfigPath: string): string {
  const kc = YAML.parse(readFileSync(kubeconfigPath, 'utf8')) as { clusters: { cluster: { server: string } }[] };
  return new URL(kc.clusters[0]!.cluster.server).port;
}
