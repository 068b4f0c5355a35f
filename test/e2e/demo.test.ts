/**
 * `bin/atrium demo` end to end, as a user runs it: one process that starts atrium and two simulated clusters,
 * splits a 15-replica Deployment 6/9 over them, fails cluster-1 over to cluster-2 and cleans up. Asserts the exit
 * code, the converged `kubectl get deployments` rows before and after the failover, and that the output is ordered.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';

function runDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(process.cwd(), 'bin', 'atrium'), 'demo'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The READY column of `name` in each table the demo printed, in order. */
function readyColumn(stdout: string, name: string): string[] {
  return stdout
    .split('\n')
    .map((l) => l.split(/\s{3,}/))
    .filter((cols) => cols[0] === name)
    .map((cols) => cols[1]!);
}

describe('atrium demo', () => {
  it('converges to 15/15 split 6/9, fails over to cluster-2, cleans up and exits 0', { timeout: 260_000 }, async () => {
    const { code, stdout, stderr } = await runDemo();
    assert.equal(code, 0, `demo failed:\n${stdout}\n${stderr}`);
    const lines = stdout.split('\n');
    const stopped = lines.findIndex((l) => l.startsWith('Stopping cluster-1'));
    assert.ok(stopped > 0, `cluster-1 was never stopped:\n${stdout}`);
    // The table printed last before the failover is the converged one: header, root, then the two children.
    const header = lines.slice(0, stopped).findLastIndex((l) => l.startsWith('NAME'));
    assert.match(lines[header]!, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/);
    assert.match(lines[header + 1]!, /^my-deployment\s+15\/15\s+15\s+15\s+\S+$/);
    assert.match(lines[header + 2]!, /^my-deployment--cluster-1\s+6\/6\s+6\s+6\s+\S+$/);
    assert.match(lines[header + 3]!, /^my-deployment--cluster-2\s+9\/9\s+9\s+9\s+\S+$/);
    assert.equal(lines[header + 4], '');
    const after = lines.slice(stopped).join('\n');
    // The final table: the root recovered to 15/15 and every replica runs on cluster-2; cluster-1's child is gone.
    const tables = after.split(/^--- .*$/m);
    const last = tables[tables.length - 1]!;
    assert.match(last, /^my-deployment\s+15\/15\s+15\s+15\s+\S+$/m);
    assert.match(last, /^my-deployment--cluster-2\s+15\/15\s+15\s+15\s+\S+$/m);
    assert.doesNotMatch(last, /my-deployment--cluster-1/);
    // Readiness of cluster-2's child only grows from 9 to 15 during the move.
    const cluster2 = readyColumn(after, 'my-deployment--cluster-2').map((r) => Number(r.split('/')[0]));
    assert.deepEqual([...cluster2].sort((a, b) => a - b), cluster2);
    assert.match(stdout, /Done\.\n$/);
  });
});
