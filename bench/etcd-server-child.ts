/** Runs an atrium replica on etcd for a benchmark in its own process; reports its URL to the parent over IPC. */
import { startServer } from '../src/apiserver/server.js';

const rootDir = process.argv[2]!;
const endpoints = process.argv[3]!.split(',');
const server = await startServer({ rootDir, bindAddress: '127.0.0.1', securePort: 0, etcd: { endpoints } });
process.send?.({ url: server.url, rootDir });
process.on('SIGTERM', () => {
  server.stop().then(() => process.exit(0));
});
