/**
 * Writing and reading kubeconfig files (client-go's clientcmd v1 Config format, apiVersion v1, kind Config).
 *
 * Only the parts atrium itself produces and consumes are modelled: clusters with inline or file CA,
 * users with client certificates and/or bearer tokens, contexts with an optional namespace.
 */
import { mkdir, readFile, writeFile, chmod } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import YAML from 'yaml';

export interface KubeconfigCluster {
  server: string;
  'certificate-authority-data'?: string;
  'certificate-authority'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
}

export interface KubeconfigUser {
  'client-certificate-data'?: string;
  'client-key-data'?: string;
  'client-certificate'?: string;
  'client-key'?: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
}

export interface KubeconfigContext {
  cluster: string;
  user: string;
  namespace?: string;
}

/** The on-disk shape (field names exactly as clientcmd's v1 serialisation spells them). */
export interface KubeconfigFile {
  apiVersion: 'v1';
  kind: 'Config';
  preferences?: Record<string, unknown>;
  clusters: { name: string; cluster: KubeconfigCluster }[];
  users: { name: string; user: KubeconfigUser }[];
  contexts: { name: string; context: KubeconfigContext }[];
  'current-context': string;
}

export interface AdminKubeconfigOptions {
  /** https URL of the API server, e.g. https://127.0.0.1:6443 (may carry a path such as /clusters/root). */
  server: string;
  caPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  /** Bearer token of the admin, for tools that prefer tokens. */
  token: string;
}

/** Names written by writeAdminKubeconfig. */
export const ADMIN_KUBECONFIG_NAMES = { cluster: 'atrium', user: 'admin', context: 'atrium' } as const;

/**
 * Builds the admin kubeconfig: cluster `atrium` (inline CA), user `admin` carrying both the client
 * certificate pair and the bearer token, context `atrium` as current-context.
 *
 * Carrying both credentials in one user is legal: clientcmd's validation counts only token,
 * basic-auth, auth-provider and exec as mutually exclusive "methods"; client certificates sit beside
 * them. client-go then presents the certificate in the TLS handshake *and* sends
 * `Authorization: Bearer`, and kube-apiserver's union authenticator tries x509 first.
 */
export function buildAdminKubeconfig(opts: AdminKubeconfigOptions): KubeconfigFile {
  const { cluster, user, context } = ADMIN_KUBECONFIG_NAMES;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [{ name: cluster, cluster: { server: opts.server, 'certificate-authority-data': base64(opts.caPem) } }],
    users: [
      {
        name: user,
        user: {
          'client-certificate-data': base64(opts.clientCertPem),
          'client-key-data': base64(opts.clientKeyPem),
          token: opts.token,
        },
      },
    ],
    contexts: [{ name: context, context: { cluster, user } }],
    'current-context': context,
  };
}

/**
 * Writes buildAdminKubeconfig(opts) as YAML to `path` (mode 0600, since it holds a private key and a
 * token), creating parent directories. An existing file is overwritten, not merged.
 */
export async function writeAdminKubeconfig(path: string, opts: AdminKubeconfigOptions): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, YAML.stringify(buildAdminKubeconfig(opts)), { mode: 0o600 });
  await chmod(path, 0o600);
}

/** Client credentials resolved from a user entry; file references are already read. */
export interface ResolvedCredentials {
  certPem?: string;
  keyPem?: string;
  token?: string;
  username?: string;
  password?: string;
}

/** A parsed kubeconfig with helpers that resolve the current context. */
export interface Kubeconfig {
  /** The raw parsed document. */
  readonly file: KubeconfigFile;
  /** The directory relative file references are resolved against (the kubeconfig's own directory). */
  readonly baseDir: string;
  /** Name of current-context; throws if unset. */
  currentContextName(): string;
  /** The current context's entry; throws if it, or its cluster/user, is missing. */
  currentContext(): KubeconfigContext;
  currentCluster(): KubeconfigCluster;
  /** The server URL of the current cluster. */
  currentServer(): string;
  /** The CA PEM of the current cluster (inline data or file), or undefined when neither is set. */
  currentCaPem(): Promise<string | undefined>;
  /** The current user's credentials with files read and base64 data decoded. */
  currentCredentials(): Promise<ResolvedCredentials>;
}

/**
 * Reads and parses a kubeconfig file (YAML or JSON). Missing list fields are treated as empty, the
 * way clientcmd does; lookups by name fail with an Error naming what was missing. Relative paths
 * inside the file (certificate-authority, client-certificate, client-key, tokenFile) resolve against
 * the kubeconfig's directory, as in clientcmd.
 */
export async function readKubeconfig(path: string): Promise<Kubeconfig> {
  const text = await readFile(path, 'utf8');
  return parseKubeconfig(text, dirname(resolve(path)));
}

/** Parses kubeconfig text; see readKubeconfig. `baseDir` resolves relative file references. */
export function parseKubeconfig(text: string, baseDir: string): Kubeconfig {
  const raw = (YAML.parse(text) ?? {}) as Partial<KubeconfigFile>;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error('kubeconfig: document is not a mapping');
  const file: KubeconfigFile = {
    apiVersion: 'v1',
    kind: 'Config',
    ...raw,
    clusters: raw.clusters ?? [],
    users: raw.users ?? [],
    contexts: raw.contexts ?? [],
    'current-context': raw['current-context'] ?? '',
  };
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  const named = <T>(list: { name: string }[], key: 'cluster' | 'user' | 'context', name: string): T => {
    const hit = list.find((e) => e.name === name) as Record<string, unknown> | undefined;
    if (!hit || !hit[key]) throw new Error(`kubeconfig: ${key} ${JSON.stringify(name)} not found`);
    return hit[key] as T;
  };

  const kc: Kubeconfig = {
    file,
    baseDir,
    currentContextName() {
      if (!file['current-context']) throw new Error('kubeconfig: current-context is not set');
      return file['current-context'];
    },
    currentContext() {
      return named<KubeconfigContext>(file.contexts, 'context', kc.currentContextName());
    },
    currentCluster() {
      return named<KubeconfigCluster>(file.clusters, 'cluster', kc.currentContext().cluster);
    },
    currentServer() {
      return kc.currentCluster().server;
    },
    async currentCaPem() {
      const c = kc.currentCluster();
      if (c['certificate-authority-data']) return unbase64(c['certificate-authority-data']);
      if (c['certificate-authority']) return readFile(abs(c['certificate-authority']), 'utf8');
      return undefined;
    },
    async currentCredentials() {
      const u = named<KubeconfigUser>(file.users, 'user', kc.currentContext().user);
      const out: ResolvedCredentials = {};
      if (u['client-certificate-data']) out.certPem = unbase64(u['client-certificate-data']);
      else if (u['client-certificate']) out.certPem = await readFile(abs(u['client-certificate']), 'utf8');
      if (u['client-key-data']) out.keyPem = unbase64(u['client-key-data']);
      else if (u['client-key']) out.keyPem = await readFile(abs(u['client-key']), 'utf8');
      // clientcmd prefers an inline token over tokenFile.
      if (u.token) out.token = u.token;
      else if (u.tokenFile) out.token = (await readFile(abs(u.tokenFile), 'utf8')).trim();
      if (u.username !== undefined) out.username = u.username;
      if (u.password !== undefined) out.password = u.password;
      return out;
    },
  };
  return kc;
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

function unbase64(data: string): string {
  return Buffer.from(data, 'base64').toString('utf8');
}

/** The logical cluster a kubeconfig's server URL points into (`https://h/clusters/root:org` → `root:org`). */
export function clusterFromServerURL(server: string): string | undefined {
  const m = /\/clusters\/([^/]+)\/?$/.exec(new URL(server).pathname);
  return m ? decodeURIComponent(m[1]!) : undefined;
}
