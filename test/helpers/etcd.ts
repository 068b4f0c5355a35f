/**
 * Real etcd servers for tests: one member or a small cluster on free loopback ports, each in its own
 * temp data dir. etcd must be installed (.ci/run installs Debian's etcd-server); when it is not, this
 * throws instead of letting the tests skip, so a broken CI setup cannot pass silently.
 *
 * Members are stopped with SIGTERM and SIGKILLed after a timeout: a member that has lost quorum ignores
 * SIGTERM.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GiveUp, eventually } from './eventually.js';

export interface EtcdMember {
  name: string;
  clientUrl: string;
  peerUrl: string;
  dataDir: string;
  /** Whether the process is running. */
  running(): boolean;
  /** Sends signal (default SIGKILL) and waits for the process to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the member again on the same ports and data dir and waits until it is healthy. */
  restart(): Promise<void>;
  /** etcd's member id (hex) as its status endpoint reports it. */
  memberId(): Promise<string>;
}

export interface EtcdCluster {
  /** Client URLs of all members. */
  endpoints: string[];
  members: EtcdMember[];
  /** The member that currently leads (polls until one does). */
  leader(): Promise<EtcdMember>;
  /** Stops every member (SIGKILL after 3 s) and deletes the data dirs. */
  stop(): Promise<void>;
}

/** The etcd binary; throws a loud error when etcd is not installed. */
export function etcdBinary(): string {
  const found = spawnSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  if (found.status !== 0 || !path) {
    throw new Error(
      'etcd is not installed: the etcd storage tests need the etcd binary on PATH (apt-get install -y etcd-server; .ci/run installs it)',
    );
  }
  return path;
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts an etcd cluster of `members` members (default 1) and waits until every member is healthy. A port taken by
 * someone else between freePort() and etcd's bind (suites start servers in parallel) is retried on new ports.
 */
export async function startEtcd(options: { members?: number } = {}): Promise<EtcdCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startEtcdOnce(options);
    } catch (err) {
      if (attempt >= 3 || !/address already in use/.test((err as Error).message)) throw err;
    }
  }
}

async function startEtcdOnce(options: { members?: number }): Promise<EtcdCluster> {
  const binary = etcdBinary();
  const count = options.members ?? 1;
  const baseDir = mkdtempSync(join(tmpdir(), 'atrium-etcd-'));
  const specs: Array<{ name: string; clientUrl: string; peerUrl: string; dataDir: string }> = [];
  for (let i = 0; i < count; i++) {
    specs.push({
      name: `m${i}`,
      clientUrl: `http://127.0.0.1:${await freePort()}`,
      peerUrl: `http://127.0.0.1:${await freePort()}`,
      dataDir: join(baseDir, `m${i}`),
    });
  }
  const initialCluster = specs.map((s) => `${s.name}=${s.peerUrl}`).join(',');
  const members = specs.map((spec) => new Member(binary, spec, initialCluster));
  for (const m of members) m.spawn();
  try {
    await Promise.all(members.map((m) => m.waitHealthy(20_000)));
  } catch (err) {
    await Promise.all(members.map((m) => m.kill()));
    rmSync(baseDir, { recursive: true, force: true });
    throw err;
  }
  return {
    endpoints: members.map((m) => m.clientUrl),
    members,
    async leader() {
      return eventually('an etcd member to lead', async () => {
        for (const m of members) {
          if (!m.running()) continue;
          const status = await m.status().catch(() => null);
          if (status && status.leader && status.leader === status.header?.member_id) return m;
        }
        return undefined;
      }, 15_000, 100);
    },
    async stop() {
      await Promise.all(members.map((m) => m.stop()));
      rmSync(baseDir, { recursive: true, force: true });
    },
  };
}

interface MemberStatus {
  header?: { member_id?: string };
  leader?: string;
}

class Member implements EtcdMember {
  readonly name: string;
  readonly clientUrl: string;
  readonly peerUrl: string;
  readonly dataDir: string;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private log = '';

  constructor(
    private readonly binary: string,
    spec: { name: string; clientUrl: string; peerUrl: string; dataDir: string },
    private readonly initialCluster: string,
  ) {
    this.name = spec.name;
    this.clientUrl = spec.clientUrl;
    this.peerUrl = spec.peerUrl;
    this.dataDir = spec.dataDir;
  }

  spawn(): void {
    const args = [
      '--name', this.name,
      '--data-dir', this.dataDir,
      '--listen-client-urls', this.clientUrl,
      '--advertise-client-urls', this.clientUrl,
      '--listen-peer-urls', this.peerUrl,
      '--initial-advertise-peer-urls', this.peerUrl,
      '--initial-cluster', this.initialCluster,
      '--initial-cluster-state', 'new',
      '--initial-cluster-token', 'atrium-test',
      // Fast elections on loopback so leader-loss tests finish quickly.
      '--heartbeat-interval', '50',
      '--election-timeout', '500',
      '--logger', 'zap',
      '--log-level', 'warn',
    ];
    const child = spawn(this.binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    this.log = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      this.log = (this.log + chunk.toString()).slice(-4000);
    });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.running()) return;
    this.child!.kill(signal);
    await this.exited;
  }

  async stop(): Promise<void> {
    if (!this.running()) return;
    this.child!.kill('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), 3000);
    await this.exited;
    clearTimeout(timer);
  }

  async restart(): Promise<void> {
    await this.kill();
    this.spawn();
    await this.waitHealthy(20_000);
  }

  async memberId(): Promise<string> {
    const status = await this.status();
    return status.header?.member_id ?? '';
  }

  async status(): Promise<MemberStatus> {
    const res = await fetch(`${this.clientUrl}/v3/maintenance/status`, {
      method: 'POST',
      body: '{}',
      signal: AbortSignal.timeout(1000),
    });
    return (await res.json()) as MemberStatus;
  }

  /** Polls /health until the member reports healthy (it needs a quorum for that). */
  async waitHealthy(timeoutMs: number): Promise<void> {
    await eventually(`etcd member ${this.name} healthy`, async () => {
      if (!this.running()) throw new GiveUp(`etcd member ${this.name} exited during startup`);
      const res = await fetch(`${this.clientUrl}/health`, { signal: AbortSignal.timeout(1000) });
      return ((await res.json()) as { health?: string }).health === 'true';
    }, timeoutMs, 50).catch((err: Error) => {
      throw new Error(`${err.message}:\n${this.log}`);
    });
  }
}
