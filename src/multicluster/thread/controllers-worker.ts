/**
 * The multi-cluster controllers on a thread of their own (controllers-thread.ts starts it): the same controllers
 * startMulticlusterControllers runs, API clients of the server as ever, reaching it through the loopback bridge.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loopbackBridgeClient } from '../../apiserver/http/loopback-bridge.js';
import { errorText, logger } from '../../logging/logger.js';
import { startMulticlusterControllers } from '../controllers.js';
import type { ControllersWorkerData, FromControllersWorker, ToControllersWorker } from './protocol.js';

const port = parentPort!;
const data = workerData as ControllersWorkerData;
logger.setLevel(data.logLevel);
const send = (m: FromControllersWorker) => port.postMessage(m);

const bridge = data.loopback ? loopbackBridgeClient(data.loopback) : undefined;
try {
  const running = await startMulticlusterControllers(
    { url: data.url, caPem: data.caPem, adminToken: data.adminToken, kubeconfigPath: data.kubeconfigPath, ...(bridge ? { connectLoopback: () => bridge.connect() } : {}) },
    data.options,
  );
  port.on('message', (m: ToControllersWorker) => {
    if (m.t !== 'stop') return;
    void running
      .stop()
      .catch((err: unknown) => logger.error('multicluster controllers did not stop cleanly', { error: errorText(err) }))
      .finally(() => {
        bridge?.close();
        send({ t: 'stopped' });
      });
  });
  send({ t: 'started' });
} catch (err) {
  bridge?.close();
  send({ t: 'startFailed', message: errorText(err) });
}
