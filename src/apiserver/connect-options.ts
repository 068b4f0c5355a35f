/**
 * The options objects of connect subresources (upstream's rest.Connecter NewConnectOptions): what admission reviews
 * for a CONNECT request, decoded from the query as kube-apiserver's parameter codec decodes it into the core/v1 type
 * (url.Values conversions: a bool is false only when absent, "0" or "false" in any case; a string is the first
 * value; a list keeps every value; ports are comma-separated unsigned 16-bit numbers), and encoded back into the query
 * when a mutating webhook changed the object, so the connection is made with what admission allowed.
 */
import { errors } from '../apimachinery/status.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { RequestInfo } from './request-info.js';

export interface ConnectOptionsCodec {
  /** The options kind (core/v1). */
  kind: string;
  /** The options object from the request's query (and path); a 400 when a value cannot be decoded. */
  decode(query: URLSearchParams, info?: RequestInfo): KubeObject;
  /** The query that carries `options` (other parameters of the original query kept). */
  encode(options: KubeObject, original: URLSearchParams): URLSearchParams;
}

const bool = (q: URLSearchParams, key: string): boolean => {
  const v = q.getAll(key);
  if (v.length === 0) return false;
  return !(v[0] === '0' || v[0]!.toLowerCase() === 'false');
};

/** metav1.Convert_Slice_string_To_Slice_int32, its error as getRequestOptions answers it (a 400). */
function ports(q: URLSearchParams): number[] | undefined {
  const values = q.getAll('ports');
  if (values.length === 0) return undefined;
  const out: number[] = [];
  for (const s of values) {
    for (const v of s.split(',')) {
      if (!/^\d+$/.test(v)) throw errors.badRequest(`cannot convert to []int32: strconv.ParseUint: parsing ${JSON.stringify(v)}: invalid syntax`);
      const n = Number(v);
      if (n > 65535) throw errors.badRequest(`cannot convert to []int32: strconv.ParseUint: parsing ${JSON.stringify(v)}: value out of range`);
      out.push(n);
    }
  }
  return out;
}

/** Field order and omitempty as core/v1's JSON tags (command has no omitempty: null when absent). */
function streamOptions(kind: 'PodExecOptions' | 'PodAttachOptions'): ConnectOptionsCodec {
  const flags = ['stdin', 'stdout', 'stderr', 'tty'] as const;
  return {
    kind,
    decode(q) {
      const o: Record<string, unknown> = { kind, apiVersion: 'v1' };
      for (const f of flags) if (bool(q, f)) o[f] = true;
      const container = q.getAll('container')[0];
      if (container) o.container = container;
      if (kind === 'PodExecOptions') {
        const command = q.getAll('command');
        o.command = command.length > 0 ? command : null;
      }
      return o as KubeObject;
    },
    encode(options, original) {
      const q = new URLSearchParams();
      for (const [k, v] of original) if (!(flags as readonly string[]).includes(k) && k !== 'container' && k !== 'command') q.append(k, v);
      for (const f of flags) if (options[f] === true) q.append(f, 'true');
      if (typeof options.container === 'string' && options.container) q.append('container', options.container);
      if (kind === 'PodExecOptions' && Array.isArray(options.command)) for (const c of options.command) q.append('command', String(c));
      return q;
    },
  };
}

export const podExecOptions = streamOptions('PodExecOptions');
export const podAttachOptions = streamOptions('PodAttachOptions');

export const podPortForwardOptions: ConnectOptionsCodec = {
  kind: 'PodPortForwardOptions',
  decode(q) {
    const p = ports(q);
    return { kind: 'PodPortForwardOptions', apiVersion: 'v1', ...(p && p.length > 0 ? { ports: p } : {}) } as KubeObject;
  },
  encode(options, original) {
    const q = new URLSearchParams();
    for (const [k, v] of original) if (k !== 'ports') q.append(k, v);
    if (Array.isArray(options.ports)) for (const p of options.ports) q.append('ports', String(p));
    return q;
  },
};

/**
 * PodProxyOptions, ServiceProxyOptions, NodeProxyOptions: upstream's proxy connecters take the rest of the URL below
 * `proxy` as the options' `path` (NewConnectOptions' subpath: the path's segments after the subresource joined, with
 * the URL's trailing slash kept), overriding any `path` query parameter. The query sent to the backend is the
 * request's own, so encode leaves it as it was; serve() reads the admitted path from ConnectRequest.options.
 */
function proxyOptions(kind: 'PodProxyOptions' | 'ServiceProxyOptions' | 'NodeProxyOptions'): ConnectOptionsCodec {
  return {
    kind,
    decode(q, info) {
      let path = q.getAll('path')[0] ?? '';
      if (info) {
        path = info.parts.slice(3).join('/');
        if (info.path.endsWith('/')) path += '/';
      }
      return { kind, apiVersion: 'v1', ...(path ? { path } : {}) } as KubeObject;
    },
    encode: (_options, original) => original,
  };
}

export const podProxyOptions = proxyOptions('PodProxyOptions');
export const serviceProxyOptions = proxyOptions('ServiceProxyOptions');
export const nodeProxyOptions = proxyOptions('NodeProxyOptions');
