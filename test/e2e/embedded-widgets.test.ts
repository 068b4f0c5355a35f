/**
 * examples/embedded-widgets with the real kubectl: the example's own resource (printer columns, 422 validation, status
 * written by its in-process controller) and admission plugin, served by startWidgetsExample over HTTPS on SQLite; then
 * the example's command line, which must stop cleanly on SIGINT and SIGTERM.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runKubectl } from '../helpers/harness.js';
import { startWidgetsExample, widgetsGVR, type WidgetsExample } from '../../examples/embedded-widgets/widgets.js';
import { RestClient, StatusError } from '../../src/index.js';
import { kubectlFails, kubectlOk, rowWhere, tableRows, type KubectlRunner } from './support/kubectl-run.js';

const widget = (name: string, size: unknown) =>
  JSON.stringify({ apiVersion: 'example.atrium.dev/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec: { size } });

describe('examples/embedded-widgets with kubectl', () => {
  let rootDir: string;
  let example: WidgetsExample;
  let k: KubectlRunner;

  before(async () => {
    rootDir = mkdtempSync(join(tmpdir(), 'atrium-widgets-'));
    example = await startWidgetsExample({ rootDir, port: 0 });
    k = { kubectl: (args, opts) => runKubectl(example.server.kubeconfigPath, args, opts) };
  });
  after(async () => {
    await example?.stop();
    if (rootDir) rmSync(rootDir, { recursive: true, force: true });
  });

  it('kubectl apply creates a Widget, and the controller makes it Ready with status.observedSize', async () => {
    assert.equal(await kubectlOk(k, ['apply', '-f', '-'], { input: widget('x', 3) }), 'widget.example.atrium.dev/x created\n');
    assert.equal(await kubectlOk(k, ['wait', '--for=jsonpath={.status.phase}=Ready', 'widget/x', '--timeout=30s']), 'widget.example.atrium.dev/x condition met\n');
    assert.equal(await kubectlOk(k, ['get', 'widget', 'x', '-o', 'jsonpath={.status.observedSize}']), '3');
  });

  it('kubectl get widgets prints the SIZE and PHASE columns', async () => {
    const rows = tableRows(await kubectlOk(k, ['get', 'widgets']));
    assert.deepEqual(rows[0], ['NAME', 'SIZE', 'PHASE', 'AGE']);
    assert.deepEqual(rowWhere(rows, 'x').slice(0, 3), ['x', '3', 'Ready']);
  });

  it('a new size is applied and observed', async () => {
    assert.equal(await kubectlOk(k, ['apply', '-f', '-'], { input: widget('x', 5) }), 'widget.example.atrium.dev/x configured\n');
    assert.equal(await kubectlOk(k, ['wait', '--for=jsonpath={.status.observedSize}=5', 'widget/x', '--timeout=30s']), 'widget.example.atrium.dev/x condition met\n');
    assert.deepEqual(rowWhere(tableRows(await kubectlOk(k, ['get', 'wg'])), 'x').slice(0, 3), ['x', '5', 'Ready']);
  });

  it('a size below 1 is refused with 422 and the field error', async () => {
    const r = await kubectlFails(k, ['apply', '-f', '-'], 1, { input: widget('tiny', 0) });
    assert.equal(r.stderr, 'The Widget "tiny" is invalid: spec.size: Invalid value: 0: must be greater than or equal to 1\n');
    // On the wire: 422 Invalid, the cause naming the field.
    const client = await RestClient.fromKubeconfig(example.server.kubeconfigPath);
    try {
      const err = await client.create(widgetsGVR, JSON.parse(widget('tiny', 0)), { namespace: 'default' }).then(
        () => assert.fail('a Widget of size 0 was created'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof StatusError, String(err));
      assert.equal(err.code, 422);
      assert.equal(err.reason, 'Invalid');
      assert.deepEqual(err.status.details?.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than or equal to 1', field: 'spec.size' }]);
    } finally {
      client.close();
    }
    await kubectlFails(k, ['get', 'widget', 'tiny']);
  });

  it('a widget named forbidden is refused by the admission plugin', async () => {
    const r = await kubectlFails(k, ['apply', '-f', '-'], 1, { input: widget('forbidden', 2) });
    assert.equal(
      r.stderr,
      'Error from server (Forbidden): error when creating "STDIN": widgets.example.atrium.dev "forbidden" is forbidden: the name "forbidden" is reserved: choose another name for your widget\n',
    );
    await kubectlFails(k, ['get', 'widget', 'forbidden']);
  });

  it('kubectl explain reads the published schema', async () => {
    const out = await kubectlOk(k, ['explain', 'widgets.spec.size']);
    assert.match(out, /FIELD: size <integer>/);
    assert.match(out, /How big the widget is \(at least 1\)\./);
  });
});

describe('examples/embedded-widgets command line', () => {
  const main = resolve('dist/examples/embedded-widgets/main.js');

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`serves, then stops cleanly on ${signal}`, async () => {
      const rootDir = mkdtempSync(join(tmpdir(), 'atrium-widgets-cli-'));
      try {
        const child = spawn(process.execPath, [main, '--root-dir', rootDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
        const deadline = Date.now() + 30_000;
        while (!stdout.includes('export KUBECONFIG=')) {
          if (child.exitCode !== null) assert.fail(`the example exited ${child.exitCode}\n${stdout}\n${stderr}`);
          if (Date.now() > deadline) assert.fail(`the example did not start\n${stdout}\n${stderr}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.match(stdout, /^widgets example serving at https:\/\/127\.0\.0\.1:\d+\n/);
        const kubeconfig = join(rootDir, 'admin.kubeconfig');
        assert.ok(stdout.includes(`export KUBECONFIG=${kubeconfig}\n`), stdout);
        const k: KubectlRunner = { kubectl: (args, opts) => runKubectl(kubeconfig, args, opts) };
        await kubectlOk(k, ['apply', '-f', '-'], { input: widget('cli', 1) });
        await kubectlOk(k, ['wait', '--for=jsonpath={.status.phase}=Ready', 'widget/cli', '--timeout=30s']);
        child.kill(signal);
        assert.equal(await exited, 0, `exit code after ${signal}\n${stdout}\n${stderr}`);
        assert.ok(stdout.endsWith(`${signal}: stopping\nstopped\n`), stdout);
      } finally {
        rmSync(rootDir, { recursive: true, force: true });
      }
    });
  }
});
