/** The session and the routes of the console (the URL's fragment: #/ws/<path>/...). */
import type { Api } from './api';

export interface Session {
  api: Api;
  user: string;
  groups: string[];
  signOut(): void;
}

/** The parsed route: the workspace and what of it is shown. */
export interface Route {
  ws: string;
  view: 'workspaces' | 'list' | 'object' | 'new' | 'clusters' | 'placement';
  group?: string;
  version?: string;
  resource?: string;
  namespace?: string;
  name?: string;
}

export const href = (r: Route): string => {
  const base = `#/ws/${r.ws}`;
  const res = `${r.group || 'core'}/${r.version}/${r.resource}`;
  switch (r.view) {
    case 'workspaces':
      return base;
    case 'list':
      return `${base}/r/${res}${r.namespace ? `?ns=${encodeURIComponent(r.namespace)}` : ''}`;
    case 'object':
      return `${base}/o/${res}/${r.namespace || '_'}/${encodeURIComponent(r.name ?? '')}`;
    default:
      return `${base}/${r.view}`;
  }
};

export function parseRoute(hash: string, fallbackWs: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/').map(decodeURIComponent);
  const q = new URLSearchParams(query);
  if (parts[0] !== 'ws' || !parts[1]) return { ws: fallbackWs, view: 'workspaces' };
  const ws = parts[1];
  const g = (s: string | undefined) => (s === 'core' ? '' : (s ?? ''));
  switch (parts[2]) {
    case 'r':
      return { ws, view: 'list', group: g(parts[3]), version: parts[4], resource: parts[5], namespace: q.get('ns') ?? undefined };
    case 'o':
      return { ws, view: 'object', group: g(parts[3]), version: parts[4], resource: parts[5], namespace: parts[6] === '_' ? undefined : parts[6], name: parts[7] };
    case 'new':
    case 'clusters':
    case 'placement':
      return { ws, view: parts[2] };
    default:
      return { ws, view: 'workspaces' };
  }
}

