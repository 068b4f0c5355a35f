/**
 * Runs an atrium server for the workspace benchmark in its own process (started with --expose-gc); reports its URL
 * over IPC and answers `rss` messages with its resident set size after a full garbage collection.
 */
import { startServer } from '../src/apiserver/server.js';

const rootDir = process.argv[2]!;
const server = await startServer({ rootDir, bindAddress: '127.0.0.1', securePort: 0 });
process.send?.({ url: server.url, rootDir });
process.on('message', (m: { type?: string }) => {
  if (m?.type !== 'rss') return;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const mem = process.memoryUsage();
  process.send?.({ type: 'rss', rss: mem.rss, heapUsed: mem.heapUsed });
});
process.on('SIGTERM', () => {
  server.stop().then(() => process.exit(0));
});
