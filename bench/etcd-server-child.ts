/**
 * Runs an atrium replica on etcd for a benchmark in its own process; reports its URL to the parent over IPC.
 * On request ({ cmd: 'loop-start' } / { cmd: 'loop-report' }) it also measures how long its event loop was
 * blocked during a phase, which tells a replica that stalls apart from one that is starved of CPU.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startServer } from '../src/server/server.js';

const rootDir = process.argv[2]!;
const endpoints = process.argv[3]!.split(',');
// A fourth argument `one-thread` keeps the etcd client on the server's thread (the kube suite's comparison).
const storageThread = process.argv[4] !== 'one-thread';
const server = await startServer({ rootDir, bindAddress: '127.0.0.1', securePort: 0, etcd: { endpoints }, storageThread });
const loopDelay = monitorEventLoopDelay({ resolution: 2 });
process.on('message', (m: { cmd?: string }) => {
  if (m.cmd === 'loop-start') {
    loopDelay.reset();
    loopDelay.enable();
  } else if (m.cmd === 'loop-report') {
    loopDelay.disable();
    const ms = (ns: number) => ns / 1e6;
    process.send?.({ loop: { p50: ms(loopDelay.percentile(50)), p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max) } });
  }
});
process.send?.({ url: server.url, rootDir });
process.on('SIGTERM', () => {
  server.stop().then(() => process.exit(0));
});
