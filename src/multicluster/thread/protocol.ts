/**
 * What the server's thread and the multi-cluster controllers' worker (controllers-worker.ts) say to each other.
 */
import type { MessagePort } from 'node:worker_threads';
import type { MulticlusterOptions } from '../controllers.js';
import type { Level } from '../../logging/logger.js';

export interface ControllersWorkerData {
  /** The server as an API client sees it: URL, CA and the admin's token. */
  url: string;
  caPem: string;
  adminToken: string;
  kubeconfigPath: string;
  /** The bridge to the server's loopback (apiserver/http/loopback-bridge.ts), when the server has one. */
  loopback?: MessagePort;
  options: MulticlusterOptions;
  /** The server thread's log level (it may have been set by a flag, not the environment). */
  logLevel: Level;
}

export type ToControllersWorker = { t: 'stop' };
export type FromControllersWorker = { t: 'started' } | { t: 'startFailed'; message: string } | { t: 'stopped' };
