/**
 * Builds the etcd3 client atrium talks to etcd with: endpoints and TLS from the command line, bounded
 * gRPC message sizes, keepalives that notice a dead member, a deadline on every unary call, and fault
 * handling that never retries inside the library (etcd-store.ts decides what is safe to retry).
 */
import { readFileSync } from 'node:fs';
import { Etcd3, type IOptions } from 'etcd3';

export interface EtcdConnectionOptions {
  /** Client URLs of the etcd members, e.g. ['https://10.0.0.1:2379']. At least one. */
  endpoints: string[];
  /** PEM CA bundle that signed the etcd server certificates (turns on TLS). */
  caFile?: string;
  /** PEM client certificate for etcd client-cert authentication (needs keyFile). */
  certFile?: string;
  /** PEM private key of certFile. */
  keyFile?: string;
  /** Deadline of one unary etcd call in milliseconds (default 5000). Exceeding it is a Timeout (504). */
  requestTimeoutMs?: number;
}

/** Largest gRPC message atrium accepts from etcd: well above etcd's 1.5 MiB request limit times a page of keys. */
export const MAX_RECEIVE_MESSAGE_BYTES = 64 * 1024 * 1024;
/** Largest message atrium sends; etcd itself refuses requests above --max-request-bytes (1.5 MiB default). */
export const MAX_SEND_MESSAGE_BYTES = 4 * 1024 * 1024;

export const DEFAULT_REQUEST_TIMEOUT_MS = 5000;

/** Handed to policy callbacks, which never abort: one shared signal instead of an AbortController per call. */
const NEVER_ABORTED = new AbortController().signal;

/** The minimal policy shape etcd3's connection pool calls (only `execute`). */
type FaultPolicy = NonNullable<NonNullable<IOptions['faultHandling']>['global']>;

/**
 * Validates the options and creates a client. Nothing connects yet (gRPC dials lazily). Throws a plain
 * Error naming the problem for an empty endpoint list, a URL without http(s)://, a cert without a key,
 * or an unreadable TLS file.
 */
export function createEtcdClient(opts: EtcdConnectionOptions): Etcd3 {
  if (opts.endpoints.length === 0) throw new Error('no etcd endpoints given');
  for (const endpoint of opts.endpoints) {
    if (!/^https?:\/\/[^/]+\/?$/.test(endpoint)) {
      throw new Error(`invalid etcd endpoint ${JSON.stringify(endpoint)}: expected http://host:port or https://host:port`);
    }
  }
  if (Boolean(opts.certFile) !== Boolean(opts.keyFile)) {
    throw new Error('--etcd-certfile and --etcd-keyfile must be given together');
  }
  const tls = opts.caFile !== undefined || opts.certFile !== undefined;
  if (tls && opts.endpoints.some((e) => e.startsWith('http://'))) {
    throw new Error('etcd TLS options were given but an endpoint uses http://; use https:// endpoints');
  }
  const timeout = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const options: IOptions = {
    hosts: opts.endpoints.map((e) => e.replace(/\/$/, '')),
    dialTimeout: timeout,
    grpcOptions: {
      'grpc.max_receive_message_length': MAX_RECEIVE_MESSAGE_BYTES,
      'grpc.max_send_message_length': MAX_SEND_MESSAGE_BYTES,
      // A member that vanished without closing the connection (power loss, partition) is noticed within ~15 s.
      'grpc.keepalive_time_ms': 10_000,
      'grpc.keepalive_timeout_ms': 5_000,
      'grpc.keepalive_permit_without_calls': 1,
      // Reconnect quickly after an etcd restart instead of gRPC's default backoff of up to 120 s.
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 2_000,
    },
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + timeout }),
    faultHandling: {
      global: noRetryPolicy(),
      host: () => hostBreaker(),
    },
  };
  if (tls) {
    options.credentials = {
      rootCertificate: readTlsFile(opts.caFile, '--etcd-cafile') ?? Buffer.alloc(0),
      ...(opts.certFile ? { certChain: readTlsFile(opts.certFile, '--etcd-certfile') } : {}),
      ...(opts.keyFile ? { privateKey: readTlsFile(opts.keyFile, '--etcd-keyfile') } : {}),
    };
    if (options.credentials.rootCertificate.length === 0) {
      // No CA given: trust the system roots, which grpc-js uses when rootCertificate is absent.
      delete (options.credentials as { rootCertificate?: Buffer }).rootCertificate;
    }
  }
  return new Etcd3(options);
}

function readTlsFile(path: string | undefined, flag: string): Buffer | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error(`cannot read ${flag} ${path}: ${(err as Error).message}`);
  }
}

/** Runs the call once: retries are etcd-store's decision, which knows whether the call was a write. */
function noRetryPolicy(): FaultPolicy {
  const policy = {
    execute: <T>(fn: (context: { signal: AbortSignal; attempt: number }) => PromiseLike<T> | T) =>
      Promise.resolve().then(() => fn({ signal: NEVER_ABORTED, attempt: 1 })),
  };
  return policy as unknown as FaultPolicy;
}

/**
 * A per-member circuit breaker: after 3 consecutive connection-level failures the member is skipped for
 * one second, so calls go to the other members (etcd3's pool moves on when a policy refuses to call through).
 * One success closes it again.
 */
function hostBreaker(): FaultPolicy {
  let consecutiveFailures = 0;
  let openUntil = 0;
  const policy = {
    execute: async <T>(fn: (context: { signal: AbortSignal; attempt: number }) => PromiseLike<T> | T): Promise<T> => {
      if (Date.now() < openUntil) throw new Error('etcd member skipped after repeated connection failures');
      try {
        const result = await fn({ signal: NEVER_ABORTED, attempt: 1 });
        consecutiveFailures = 0;
        return result;
      } catch (err) {
        if (isConnectionFailure(err) && ++consecutiveFailures >= 3) {
          openUntil = Date.now() + 1000;
          consecutiveFailures = 0;
        }
        throw err;
      }
    },
  };
  return policy as unknown as FaultPolicy;
}

/** gRPC UNAVAILABLE (14) that came from the transport, not from an etcd server answering "no leader". */
function isConnectionFailure(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  return /14 UNAVAILABLE|No connection established|ECONNREFUSED|ECONNRESET/i.test(message) && !message.includes('etcdserver:');
}
