import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { errors, StatusError } from '../apimachinery/status.js';
import { logger } from '../logging/logger.js';
import { SqliteStore } from '../storage/sqlite/sqlite-store.js';
import { WatchCache } from '../storage/cacher/watch-cache.js';
import type { Storage } from '../storage/interface.js';
import { ResourceRegistry } from '../registry/resource-registry.js';
import { coreResources } from '../registry/builtin/core.js';
import { otherGroupResources } from '../registry/builtin/other-groups.js';
import type { RequestContext } from '../registry/rest.js';
import { Admission } from './admission/admission.js';
import { NamespaceLifecycle } from './admission/namespace-lifecycle.js';
import { authenticate, type TokenTable } from './filters/authentication.js';
import { parseRequestInfo } from './request-info.js';
import { route } from './router.js';
import { writeError } from './http/response.js';
import { ensureCertificates } from './certs/certificates.js';
import { writeAdminKubeconfig } from './kubeconfig/kubeconfig.js';
import { OpenAPIService } from './openapi/service.js';
import { bootstrapNamespaces } from './bootstrap.js';

export interface ServerOptions {
  rootDir: string;
  bindAddress: string;
  securePort: number;
  /** Storage to use instead of the embedded SQLite database (tests, etcd). */
  storage?: Storage;
  anonymous?: boolean;
}

export interface RunningServer {
  /** https://host:port */
  url: string;
  port: number;
  kubeconfigPath: string;
  adminToken: string;
  caPem: string;
  registry: ResourceRegistry;
  stop(): Promise<void>;
}

/**
 * Starts an atrium API server: storage, registry, handler chain, HTTPS listener, admin credentials.
 * The handler chain is written out in one place (handle()): recovery → request info → authentication → routing.
 */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  mkdirSync(opts.rootDir, { recursive: true });
  const pkiDir = join(opts.rootDir, 'pki');
  const host = hostname();
  const certs = await ensureCertificates(pkiDir, { hostnames: ['localhost', host], ips: ['127.0.0.1', '::1', ...(isIp(opts.bindAddress) && opts.bindAddress !== '0.0.0.0' ? [opts.bindAddress] : [])] });
  const adminToken = loadOrCreateToken(join(opts.rootDir, 'admin.token'));
  const tokens: TokenTable = new Map([[adminToken, { username: 'admin', groups: ['system:masters'] }]]);

  const storage = opts.storage ?? SqliteStore.open(join(opts.rootDir, 'atrium.db'));
  const watchCache = new WatchCache(storage);
  const registry = new ResourceRegistry(storage, watchCache);
  for (const def of [...coreResources, ...otherGroupResources]) registry.registerBuiltin(def);
  const namespaces = registry.lookup('root', '', 'v1', 'namespaces')!;
  const admission = new Admission([new NamespaceLifecycle(namespaces)]);
  const openapi = new OpenAPIService();
  let ready = false;

  const deps = { registry, admission, openapi, ready: () => ready };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = Date.now();
    let ctx: RequestContext | undefined;
    try {
      const url = new URL(req.url ?? '/', 'https://atrium');
      const info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
      const user = authenticate(req, { tokens, anonymous: opts.anonymous ?? false });
      ctx = { cluster: info.cluster, user };
      await route(req, res, info, url.searchParams, ctx, deps);
    } catch (err) {
      if (err instanceof StatusError || !res.headersSent) writeError(res, err, { method: req.method, url: req.url });
      else {
        logger.error('internal error after response started', { url: req.url, error: (err as Error).stack });
        res.end();
      }
    } finally {
      res.once('finish', () => {
        logger.debug('request', { method: req.method, url: req.url, code: res.statusCode, user: ctx?.user.username, ms: Date.now() - started });
      });
    }
  };

  const server: Server = createServer(
    {
      key: certs.serving.keyPem,
      cert: certs.serving.certPem,
      ca: certs.ca.certPem,
      requestCert: true,
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
    },
    (req, res) => {
      handle(req, res).catch((err) => {
        logger.error('unhandled request failure', { error: (err as Error).stack });
        try {
          writeError(res, errors.internal('unhandled failure'));
        } catch {
          /* connection already gone */
        }
      });
    },
  );
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0; // watches are long-lived; per-request timeouts are the handlers' business

  await bootstrapNamespaces(registry);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.securePort, opts.bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  ready = true;
  const port = (server.address() as AddressInfo).port;
  const urlHost = opts.bindAddress === '0.0.0.0' || opts.bindAddress === '::' ? '127.0.0.1' : opts.bindAddress;
  const url = `https://${urlHost.includes(':') ? `[${urlHost}]` : urlHost}:${port}`;
  const kubeconfigPath = join(opts.rootDir, 'admin.kubeconfig');
  await writeAdminKubeconfig(kubeconfigPath, { server: url, caPem: certs.ca.certPem, clientCertPem: certs.admin.certPem, clientKeyPem: certs.admin.keyPem, token: adminToken });
  logger.info('serving', { url, rootDir: opts.rootDir, kubeconfig: kubeconfigPath });

  const sockets = new Set<import('node:net').Socket>();
  server.on('secureConnection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  return {
    url,
    port,
    kubeconfigPath,
    adminToken,
    caPem: certs.ca.certPem,
    registry,
    async stop() {
      ready = false;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Watches never end on their own: close idle and streaming connections so shutdown is prompt.
        for (const s of sockets) s.destroy();
      });
      watchCache.stop();
      if (!opts.storage) await storage.close();
      logger.info('stopped', { url });
    },
  };
}

function loadOrCreateToken(path: string): string {
  if (existsSync(path)) {
    const t = readFileSync(path, 'utf8').trim();
    if (t) return t;
  }
  const token = randomBytes(24).toString('base64url');
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  return token;
}

function isIp(s: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(s) || s.includes(':');
}
