/**
 * Driver for the Go and Python client compatibility suites: starts ONE atrium server, then runs `go test ./...` in
 * test/clients/go and pytest in test/clients/python against it (ATRIUM_KUBECONFIG names the admin kubeconfig), and
 * asserts both pass. A missing toolchain fails the test with what to install; it never skips.
 *
 * The JavaScript suite (test/clients/js) is an ordinary node:test file and runs on its own.
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../helpers/harness.js';

/** The checkout root: the nearest ancestor of this file (source or dist/) that holds package.json. */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the checkout root above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

const ROOT = repoRoot();
const GO_DIR = join(ROOT, 'test', 'clients', 'go');
const PYTHON_DIR = join(ROOT, 'test', 'clients', 'python');
/** Where .ci/run installs the Python requirements. */
const VENV_PYTHON = join(PYTHON_DIR, '.venv', 'bin', 'python');
const PYTHON_INSTALL_HINT =
  'python3 -m venv test/clients/python/.venv && test/clients/python/.venv/bin/pip install -r test/clients/python/requirements.txt';

interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  timedOut: boolean;
}

/** Runs a command to completion, collecting stdout and stderr interleaved; kills it after timeoutMs. */
function run(command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output, timedOut });
    });
  });
}

/** Fails with the child's whole output unless it exited 0; reports its closing line as a diagnostic otherwise. */
function assertPassed(t: TestContext, what: string, r: ChildResult): void {
  const how = r.timedOut ? 'timed out' : r.signal ? `was killed by ${r.signal}` : `exited ${r.code}`;
  assert.ok(r.code === 0 && !r.timedOut, `${what} ${how}:\n${r.output}`);
  t.diagnostic(`${what}: ${r.output.trim().split('\n').pop()}`);
}

/** The Python interpreter that has the requirements: the checkout's venv when present, else python3 on PATH. */
function pythonInterpreter(): string {
  if (existsSync(VENV_PYTHON)) return VENV_PYTHON;
  const probe = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    assert.fail(`python3 is not installed: the Python client suite needs Python 3 with the packages in test/clients/python/requirements.txt (${PYTHON_INSTALL_HINT})`);
  }
  return 'python3';
}

describe('client compatibility suites (Go, Python) against one server', { concurrency: true }, () => {
  let ts: TestServer;
  before(async () => {
    // The clients should meet a whole server, built-in controllers (namespace, GC, root CA publisher) included.
    ts = await startTestServer({ server: { builtinControllers: true } });
  });
  after(async () => {
    await ts?.stop();
  });

  it('client-go and controller-runtime: go test ./... in test/clients/go', { timeout: 25 * 60_000 }, async (t) => {
    const probe = spawnSync('go', ['version'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0) {
      assert.fail('go is not installed: the Go client suite (test/clients/go) needs the Go toolchain (1.26 or newer) on PATH');
    }
    const r = await run('go', ['test', '-count=1', '-timeout=15m', './...'], {
      cwd: GO_DIR,
      env: { ...process.env, ATRIUM_KUBECONFIG: ts.kubeconfig, GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod`.trim() },
      timeoutMs: 24 * 60_000,
    });
    assertPassed(t, 'go test', r);
  });

  it('the official kubernetes Python client: pytest in test/clients/python', { timeout: 10 * 60_000 }, async (t) => {
    const python = pythonInterpreter();
    const imports = spawnSync(python, ['-c', 'import kubernetes, pytest'], { encoding: 'utf8' });
    if (imports.status !== 0) {
      assert.fail(`${python} lacks the kubernetes or pytest module (${imports.stderr.trim()}); install them with: ${PYTHON_INSTALL_HINT}`);
    }
    const r = await run(python, ['-m', 'pytest', '-q'], {
      cwd: PYTHON_DIR,
      env: { ...process.env, ATRIUM_KUBECONFIG: ts.kubeconfig, PYTHONDONTWRITEBYTECODE: '1' },
      timeoutMs: 9 * 60_000,
    });
    assertPassed(t, 'pytest', r);
  });
});
