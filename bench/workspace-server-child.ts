/**
 * Runs an atrium server for the workspace benchmark in its own process (started with --expose-gc); reports its URL
 * over IPC and answers `rss` messages with its resident set size after a full garbage collection, and `settle`
 * messages once the process has been (nearly) idle for a while, i.e. the controllers have caught up with the
 * workspaces just created.
 */
import { startServer } from '../src/server/server.js';

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
/** Resolves when CPU use stayed below `busyFraction` of one core for `quietSamples` consecutive 500 ms samples. */
async function settle(busyFraction = 0.1, quietSamples = 4, maxMs = 300_000): Promise<number> {
  const started = Date.now();
  let quiet = 0;
  let last = process.cpuUsage();
  while (quiet < quietSamples && Date.now() - started < maxMs) {
    await new Promise((r) => setTimeout(r, 500));
    const used = process.cpuUsage(last);
    last = process.cpuUsage();
    quiet = (used.user + used.system) / 1000 < 500 * busyFraction ? quiet + 1 : 0;
  }
  return Date.now() - started;
}
process.on('message', (m: { type?: string }) => {
  if (m?.type !== 'settle') return;
  void settle().then((ms) => process.send?.({ type: 'settled', ms }));
});
process.on('SIGTERM', () => {
  server.stop().then(() => process.exit(0));
});
