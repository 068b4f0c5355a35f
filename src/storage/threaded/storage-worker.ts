/**
 * The storage worker: a thread that owns a storage backend (etcd: its gRPC client, its codec, its watch streams and
 * the compactor; SQLite: its transactions and fsyncs, so a durable commit no longer stalls the server's thread) so
 * that work runs beside the server's thread instead of on it. It answers the calls
 * ThreadedStorage sends and forwards watch events, in the order the backend produced them (protocol.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EtcdCompactor } from '../etcd/etcd-compactor.js';
import { EtcdStore } from '../etcd/etcd-store.js';
import { StorageError } from '../errors.js';
import type { Storage, WatchHandle } from '../interface.js';
import { SqliteStore } from '../sqlite/sqlite-store.js';
import type { Call, ErrorData, FromWorker, StorageWorkerConfig, ToWorker } from './protocol.js';

const port = parentPort!;
const config = workerData as StorageWorkerConfig;

/** Messages produced in this turn of the event loop, sent together. */
let outbox: FromWorker[] = [];
function send(message: FromWorker): void {
  if (outbox.length === 0) setImmediate(flush);
  outbox.push(message);
}
function flush(): void {
  const batch = outbox;
  outbox = [];
  if (batch.length) port.postMessage(batch);
}

function errorData(err: unknown): ErrorData {
  if (err instanceof StorageError) {
    return {
      message: err.message,
      storage: { code: err.code, key: err.key, ...(err.current ? { current: err.current } : {}), ...(err.revision !== undefined ? { revision: err.revision } : {}) },
    };
  }
  return { message: err instanceof Error ? err.message : String(err) };
}

/** A backend and what it may add: health (etcd) and whether its progress notifications can be trusted. */
type Hosted = Storage & { isHealthy?(): boolean; healthMessage?(): string };

async function open(): Promise<{ store: Hosted; compactor?: EtcdCompactor }> {
  if (config.backend === 'sqlite') return { store: SqliteStore.open(config.path, config.options) };
  const store = await EtcdStore.connect(config.etcd);
  return { store, ...(config.compaction ? { compactor: new EtcdCompactor(store, config.compaction) } : {}) };
}

async function main(): Promise<void> {
  let store: Hosted;
  let compactor: EtcdCompactor | undefined;
  try {
    ({ store, compactor } = await open());
  } catch (err) {
    port.postMessage([{ t: 'startFailed', message: (err as Error).message } satisfies FromWorker]);
    return;
  }
  compactor?.start();
  const isHealthy = () => store.isHealthy?.() ?? true;
  const healthMessageOf = () => store.healthMessage?.() ?? '';
  const watches = new Map<number, WatchHandle>();

  // Health drives /readyz on the server's thread: it is sent when it changes (checked as often as the store's probe).
  let healthy = isHealthy();
  let healthMessage = healthMessageOf();
  const healthTimer = store.isHealthy && setInterval(() => {
    const h = isHealthy();
    const m = healthMessageOf();
    if (h !== healthy || m !== healthMessage) {
      healthy = h;
      healthMessage = m;
      send({ t: 'health', healthy: h, message: m });
    }
  }, 250);

  const perform = (call: Call): Promise<unknown> => {
    switch (call.op) {
      case 'create':
        return store.create(call.key, call.value);
      case 'get':
        return store.get(call.key, call.revision);
      case 'update':
        return store.update(call.key, call.value, call.expected);
      case 'delete':
        return store.delete(call.key, call.expected);
      case 'list':
        return store.list(call.prefix, call.options);
      case 'count':
        return store.count(call.prefix);
      case 'currentRevision':
        return store.currentRevision();
      case 'compactedRevision':
        return store.compactedRevision();
      case 'compact':
        return store.compact(call.revision);
      case 'close':
        return (async () => {
          if (healthTimer) clearInterval(healthTimer);
          await compactor?.stop();
          for (const w of watches.values()) w.stop();
          watches.clear();
          await store.close();
        })();
    }
  };

  port.on('message', (batch: ToWorker[]) => {
    for (const m of batch) {
      switch (m.t) {
        case 'call':
          perform(m.call).then(
            (value) => send({ t: 'reply', id: m.id, value }),
            (err: unknown) => send({ t: 'reply', id: m.id, error: errorData(err) }),
          );
          break;
        case 'watch': {
          const id = m.watch;
          watches.set(
            id,
            store.watch(m.prefix, m.from, {
              onEvent: (event) => send({ t: 'event', watch: id, event }),
              onError: (err) => {
                watches.delete(id);
                send({ t: 'watchError', watch: id, error: errorData(err) });
              },
              onProgress: (revision) => send({ t: 'watchProgress', watch: id, revision }),
            }),
          );
          break;
        }
        case 'progress':
          watches.get(m.watch)?.requestProgress?.();
          break;
        case 'unwatch':
          watches.get(m.watch)?.stop();
          watches.delete(m.watch);
          break;
      }
    }
  });
  port.postMessage([{ t: 'ready', progressNotifyReliable: store.progressNotifyReliable?.() ?? true } satisfies FromWorker]);
}

void main();
