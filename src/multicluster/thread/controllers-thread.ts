/**
 * Runs the multi-cluster controllers (negotiation, SyncTargets with their push syncers, scheduling, splitter,
 * placement, mirrors, ...) on a worker thread of the server's process, as kube-controller-manager runs beside
 * kube-apiserver rather than inside it. On the server's one thread they competed with the requests they and users
 * send: a burst of 50 applied apps kept that thread busy for 20–30 s while the machine's other core sat partly idle,
 * and every apply waited in line behind controller work (bench/workloads.ts). On their own thread they use another
 * core and the server's thread serves requests.
 *
 * They stay API clients like any other: their requests reach the server's loopback through a MessagePort
 * (apiserver/http/loopback-bridge.ts). Should the thread die (an uncaught error), it is logged and started again
 * after a back-off, as a supervisor restarts a controller manager; stop() asks the controllers to stop, waits for
 * them, then ends the thread.
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import type { ServerConnection, Stoppable } from '../../apiserver/plugin.js';
import { serveLoopbackBridge } from '../../apiserver/http/loopback-bridge.js';
import { errorText, logger } from '../../logging/logger.js';
import type { MulticlusterOptions } from '../controllers.js';
import type { ControllersWorkerData, FromControllersWorker } from './protocol.js';

/** How long stop() waits for the controllers to wind down before ending the thread anyway. */
const STOP_TIMEOUT_MS = 30_000;
const RESTART_BACKOFF_MS = { first: 1_000, max: 30_000 };
/** A thread that ran this long before it died starts again after the first back-off; one dying sooner, after a doubled one. */
const STABLE_AFTER_MS = 60_000;

interface RunningWorker {
  worker: Worker;
  bridge?: { close(): void };
  stopped: Promise<void>;
}

/** Starts one worker and waits until its controllers run; rejects with their start-up error. */
function startWorker(server: ServerConnection, options: MulticlusterOptions, onUnexpectedExit: (why: string) => void): Promise<RunningWorker> {
  const channel = server.connectLoopback ? new MessageChannel() : undefined;
  const bridge = channel && server.connectLoopback ? serveLoopbackBridge(channel.port1, server.connectLoopback) : undefined;
  const data: ControllersWorkerData = {
    url: server.url,
    caPem: server.caPem,
    adminToken: server.adminToken,
    kubeconfigPath: server.kubeconfigPath,
    options,
    logLevel: logger.level(),
    ...(channel ? { loopback: channel.port2 } : {}),
  };
  const worker = new Worker(new URL('./controllers-worker.js', import.meta.url), { workerData: data, transferList: channel ? [channel.port2] : [] });
  let started = false;
  let stopping = false;
  let markStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (markStopped = resolve));
  return new Promise<RunningWorker>((resolve, reject) => {
    worker.on('message', (m: FromControllersWorker) => {
      if (m.t === 'started') {
        started = true;
        resolve({ worker, bridge, stopped });
      } else if (m.t === 'startFailed') {
        stopping = true;
        void worker.terminate();
        reject(new Error(m.message));
      } else if (m.t === 'stopped') {
        stopping = true;
        markStopped();
      }
    });
    worker.on('error', (err) => {
      logger.error('multicluster controllers thread failed', { error: errorText(err) });
      if (!started) reject(err);
    });
    worker.on('exit', (code) => {
      bridge?.close();
      markStopped();
      if (!started) reject(new Error(`multicluster controllers thread exited with code ${code} before its controllers started`));
      else if (!stopping) onUnexpectedExit(`exited with code ${code}`);
    });
  });
}

/** The multi-cluster controllers on their own thread; resolves once they run (their informers synced). */
export async function startMulticlusterControllersThread(server: ServerConnection, options: MulticlusterOptions = {}): Promise<Stoppable> {
  let current: RunningWorker | undefined;
  /** A restart under way: stop() waits for it and stops what it started (no thread may outlive stop()). */
  let starting: Promise<RunningWorker | undefined> | undefined;
  let startedAt = Date.now();
  let stopping = false;
  let backoff = RESTART_BACKOFF_MS.first;
  let restartTimer: NodeJS.Timeout | undefined;
  const restart = (why: string) => {
    if (stopping) return;
    // A thread that keeps dying soon after it started is started again less and less often (each start relists every
    // informer: load on the server's thread).
    backoff = Date.now() - startedAt >= STABLE_AFTER_MS ? RESTART_BACKOFF_MS.first : Math.min(backoff * 2, RESTART_BACKOFF_MS.max);
    logger.error('multicluster controllers thread ended; starting it again', { why, afterMs: backoff });
    current = undefined;
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      startedAt = Date.now();
      starting = startWorker(server, options, restart).then(
        (w) => {
          starting = undefined;
          current = w;
          return w;
        },
        (err: unknown) => {
          starting = undefined;
          restart(errorText(err));
          return undefined;
        },
      );
    }, backoff);
  };
  current = await startWorker(server, options, restart);
  return {
    async stop() {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      const pending = await starting;
      if (pending && pending !== current) await stopWorker(pending);
      if (current) await stopWorker(current);
      current = undefined;
    },
  };
}

async function stopWorker(w: RunningWorker): Promise<void> {
  w.worker.postMessage({ t: 'stop' });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([w.stopped, new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_TIMEOUT_MS)))]);
  clearTimeout(timer);
  await w.worker.terminate();
  w.bridge?.close();
}
