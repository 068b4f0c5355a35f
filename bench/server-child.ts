/** Runs an atrium server for a benchmark in its own process; reports its URL to the parent over IPC. */
import { workloadResources } from '../src/registry/builtin/workloads/resources.js';
import { startServer } from '../src/server/server.js';

const rootDir = process.argv[2]!;
const flags = new Set(process.argv.slice(3));
const server = await startServer({
  rootDir,
  bindAddress: '127.0.0.1',
  securePort: 0,
  // `one-thread` keeps SQLite on the server's thread (the kube suite's comparison).
  storageThread: !flags.has('one-thread'),
  // `workloads` serves the workload APIs (Deployments, Pods, Jobs, PVCs, Ingresses, …) as kube-apiserver does, with
  // no controller acting on them (the applies suite's comparison with kube-apiserver alone).
  plugins: flags.has('workloads') ? [{ name: 'workload-types', resources: workloadResources }] : [],
});
process.send?.({ url: server.url, rootDir });
process.on('SIGTERM', () => {
  server.stop().then(() => process.exit(0));
});
