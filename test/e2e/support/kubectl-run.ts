/**
 * Small helpers the end-to-end suites share on top of test/helpers/harness.ts: running kubectl and failing with
 * everything kubectl printed, parsing its table output, and long-running kubectl processes (watch, wait).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { kubectlPath } from '../../helpers/harness.js';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Anything that can run kubectl against a server: the harness's TestServer or a bare kubeconfig runner. */
export interface KubectlRunner {
  kubectl(args: string[], opts?: { input?: string; env?: Record<string, string>; timeoutMs?: number }): Promise<KubectlResult>;
}

/** Runs kubectl and asserts exit code 0; the assertion message carries the command and both output streams. */
export async function kubectlOk(t: KubectlRunner, args: string[], opts?: { input?: string; env?: Record<string, string> }): Promise<string> {
  const r = await t.kubectl(args, opts);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r.stdout;
}

/** Runs kubectl expecting it to fail with exit code `code` (1 by default); returns what it printed. */
export async function kubectlFails(t: KubectlRunner, args: string[], code = 1, opts?: { input?: string }): Promise<KubectlResult> {
  const r = await t.kubectl(args, opts);
  assert.equal(r.code, code, `kubectl ${args.join(' ')} should exit ${code} but exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

/** Runs kubectl with -o json and parses stdout. */
export async function kubectlJson(t: KubectlRunner, args: string[]): Promise<any> {
  return JSON.parse(await kubectlOk(t, [...args, '-o', 'json']));
}

/** Splits kubectl's human-readable table into rows of cells (header first); cells must not contain spaces. */
export function tableRows(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.trim().split(/\s+/));
}

/** The row whose first cell (or the cell at `column`) equals `value`; fails when there is none. */
export function rowWhere(rows: string[][], value: string, column = 0): string[] {
  const row = rows.find((r) => r[column] === value);
  assert.ok(row, `no table row with ${value} in column ${column}:\n${rows.map((r) => r.join(' | ')).join('\n')}`);
  return row;
}

/** kubectl's AGE column for a just-created object: a short duration such as 0s, 5s or 2m. */
export const freshAge = /^\d+s$|^\d+m\d*s?$/;

/**
 * A kubectl process left running (get -w, wait): stdout and stderr accumulate as they arrive, `until` resolves once
 * stdout matches, `exited` once the process ends.
 */
export class LongRunningKubectl {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  readonly exited: Promise<KubectlResult>;
  private listeners: Array<() => void> = [];

  constructor(kubeconfig: string, args: string[]) {
    const cacheDir = join(kubeconfig, '..', 'kubectl-cache');
    this.child = spawn(kubectlPath(), ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdin.end();
    this.child.stdout.on('data', (d) => {
      this.stdout += d;
      for (const l of this.listeners) l();
    });
    this.child.stderr.on('data', (d) => (this.stderr += d));
    this.exited = new Promise((resolve, reject) => {
      this.child.on('error', reject);
      this.child.on('close', (code) => {
        for (const l of this.listeners) l();
        resolve({ code: code ?? -1, stdout: this.stdout, stderr: this.stderr });
      });
    });
  }

  /** Resolves when stdout matches `pattern`; rejects after `timeoutMs` or when the process ends first. */
  until(pattern: RegExp, timeoutMs = 20_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (pattern.test(this.stdout)) {
          done();
          resolve();
        } else if (this.child.exitCode !== null || this.child.signalCode !== null) {
          done();
          reject(new Error(`kubectl ended before printing ${pattern}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${pattern}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== check);
      };
      this.listeners.push(check);
      check();
    });
  }

  /** Stops the process (if still running) and waits for it to end. */
  async stop(): Promise<KubectlResult> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
