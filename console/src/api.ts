/**
 * The console's API client: every call is an ordinary Kubernetes API request to the origin that served the app,
 * under /clusters/<workspace path>, carrying the user's bearer token — exactly what kubectl sends — so RBAC in the
 * workspace decides what comes back. Watches are streamed with fetch (newline-delimited JSON), not WebSockets, so
 * they carry the same Authorization header.
 */

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  managedFields?: unknown[];
  [k: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [k: string]: unknown;
}

export interface StatusCause {
  field?: string;
  message?: string;
  reason?: string;
}

/** A failed request: the server's Status (message, reason, causes) or a network failure. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly reason = '',
    readonly causes: StatusCause[] = [],
  ) {
    super(message);
  }
}

export interface ResourceInfo {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
}

export const gv = (group: string, version: string) => (group ? `${group}/${version}` : version);

/** The path of a resource (collection, or one object with `name`) in a workspace. */
export function resourcePath(ws: string, r: { group: string; version: string; resource: string }, namespace?: string, name?: string): string {
  const base = r.group ? `/clusters/${ws}/apis/${r.group}/${r.version}` : `/clusters/${ws}/api/${r.version}`;
  return `${base}${namespace ? `/namespaces/${encodeURIComponent(namespace)}` : ''}/${r.resource}${name ? `/${encodeURIComponent(name)}` : ''}`;
}

export const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json';

export interface TableColumn {
  name: string;
  type: string;
  format?: string;
  priority?: number;
  description?: string;
}
export interface TableRow {
  cells: unknown[];
  object?: KubeObject;
}
export interface Table {
  kind: 'Table';
  metadata?: { resourceVersion?: string; continue?: string };
  columnDefinitions: TableColumn[];
  rows: TableRow[];
}

export interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

export class Api {
  constructor(readonly token: string) {}

  async request<T = KubeObject>(method: string, path: string, opts: { body?: string; contentType?: string; accept?: string; signal?: AbortSignal } = {}): Promise<T> {
    let res: Response;
    try {
      res = await fetch(path, {
        method,
        headers: {
          Authorization: `Bearer ${this.token}`,
          Accept: opts.accept ?? 'application/json',
          ...(opts.body !== undefined ? { 'Content-Type': opts.contentType ?? 'application/json' } : {}),
        },
        body: opts.body,
        signal: opts.signal,
        cache: 'no-store',
      });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new ApiError(`cannot reach the server: ${(err as Error).message}`, 0);
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!res.ok) throw toError(res.status, body, text);
    return body as T;
  }

  get<T = KubeObject>(path: string, accept?: string, signal?: AbortSignal): Promise<T> {
    return this.request<T>('GET', path, { accept, signal });
  }

  /**
   * Streams a watch; `onEvent` gets every event. Resolves when the server ends the stream, rejects on failure (an
   * ApiError) or is cancelled through `signal`.
   */
  async watch<T>(path: string, onEvent: (e: WatchEvent<T>) => void, opts: { accept?: string; signal: AbortSignal }): Promise<void> {
    const res = await fetch(path, { headers: { Authorization: `Bearer ${this.token}`, Accept: opts.accept ?? 'application/json' }, signal: opts.signal, cache: 'no-store' });
    if (!res.ok || !res.body) {
      const text = await res.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      throw toError(res.status, body, text);
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line) onEvent(JSON.parse(line) as WatchEvent<T>);
      }
    }
  }

  /** Whether the user may do `verb` on the resource in the workspace (a SelfSubjectAccessReview, as `kubectl auth can-i`). */
  async can(ws: string, verb: string, r: { group: string; resource: string }, namespace?: string): Promise<boolean> {
    try {
      const review = await this.request<{ status?: { allowed?: boolean } }>('POST', `/clusters/${ws}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
        body: JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb, group: r.group, resource: r.resource, namespace } } }),
      });
      return review.status?.allowed === true;
    } catch {
      return false;
    }
  }

  /** Who the token is in the workspace (SelfSubjectReview, as `kubectl auth whoami`). */
  async whoami(ws: string): Promise<{ username: string; groups: string[] }> {
    const review = await this.request<{ status?: { userInfo?: { username?: string; groups?: string[] } } }>('POST', `/clusters/${ws}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    });
    return { username: review.status?.userInfo?.username ?? '', groups: review.status?.userInfo?.groups ?? [] };
  }

  /** Every served resource of the workspace, from aggregated discovery (/api and /apis), preferred versions first. */
  async discover(ws: string, signal?: AbortSignal): Promise<ResourceInfo[]> {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    const [core, groups] = await Promise.all([this.get<DiscoveryList>(`/clusters/${ws}/api`, accept, signal), this.get<DiscoveryList>(`/clusters/${ws}/apis`, accept, signal)]);
    const out: ResourceInfo[] = [];
    for (const list of [core, groups]) {
      for (const g of list.items ?? []) {
        const v = g.versions?.[0];
        if (!v) continue;
        for (const r of v.resources ?? []) {
          out.push({
            group: g.metadata?.name ?? '',
            version: v.version,
            resource: r.resource,
            kind: r.responseKind?.kind ?? '',
            namespaced: r.scope === 'Namespaced',
            verbs: r.verbs ?? [],
            shortNames: r.shortNames ?? [],
          });
        }
      }
    }
    return out;
  }
}

interface DiscoveryList {
  items?: {
    metadata?: { name?: string };
    versions?: { version: string; resources?: { resource: string; responseKind?: { kind?: string }; scope?: string; verbs?: string[]; shortNames?: string[] }[] }[];
  }[];
}

function toError(code: number, body: unknown, text: string): ApiError {
  const s = body as { kind?: string; message?: string; reason?: string; details?: { causes?: StatusCause[] } } | undefined;
  if (s?.kind === 'Status') return new ApiError(s.message ?? `HTTP ${code}`, code, s.reason ?? '', s.details?.causes ?? []);
  return new ApiError(text.trim() || `HTTP ${code}`, code);
}

/** "5s", "3m", "2h", "4d": the age of a timestamp as kubectl prints it (roughly). */
export function age(ts: string | undefined, now = Date.now()): string {
  if (!ts) return '';
  const s = Math.max(0, Math.floor((now - Date.parse(ts)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}
