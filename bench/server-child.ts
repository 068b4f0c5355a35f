/** Runs an atrium server for a benchmark in its own process; reports its URL to the parent over IPC. */
import { startServer } from '../src/server/server.js';

const rootDir = process.argv[2]!;
// A third argument `one-thread` keeps SQLite on the server's thread (the kube suite's comparison).
const server = await startServer({ rootDir, bindAddress: '127.0.0.1', securePort: 0, storageThread: process.argv[3] !== 'one-thread' });
process.send?.({ url: server.url, rootDir });
process.on('SIGTERM', () => {
  server.stop().then(() => process.exit(0));
});
