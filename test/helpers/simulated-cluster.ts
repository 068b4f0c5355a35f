/**
 * A simulated cluster (`atrium pcluster`, in process) for one test file: started in a `before` hook, stopped and its
 * directory removed in an `after` hook. The returned getter gives the running server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { startPcluster, type PclusterOptions } from '../../src/pcluster/pcluster.js';
import { harnessFor, type TestServer } from './harness.js';

/** `name` names the cluster (DNS label) and its temporary directory; `options` override the one-node defaults. */
export function useSimulatedCluster(name: string, options: Partial<PclusterOptions> = {}): () => TestServer {
  let ts: TestServer | undefined;
  before(async () => {
    const rootDir = mkdtempSync(join(tmpdir(), `atrium-${name}-`));
    const cluster = await startPcluster({ name, rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 1, readyDelayMs: 300, ...options });
    ts = harnessFor(cluster, rootDir, async () => {
      await cluster.stop();
      rmSync(rootDir, { recursive: true, force: true });
    });
  });
  after(async () => {
    await ts?.stop();
  });
  return () => {
    if (!ts) throw new Error(`the simulated cluster ${name} has not started`);
    return ts;
  };
}
