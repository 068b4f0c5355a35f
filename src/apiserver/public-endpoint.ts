/**
 * Public endpoints: path prefixes a plugin answers itself before the filter chain authenticates anyone, for content
 * that is the same for everybody and reveals nothing (the web console's HTML, scripts and styles). Only GET and HEAD
 * reach them; any other method is 405. Whatever such content then asks of the API is an ordinary, authenticated and
 * authorized request: an endpoint must never read or write objects for its caller.
 *
 * A prefix must not overlap a Kubernetes path (`/api`, `/apis`, `/clusters`, `/openapi`, `/version`, health probes).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface PublicEndpoint {
  /** The path prefix, with its trailing slash (`/console/`); the bare prefix without it redirects there. */
  readonly prefix: string;
  /** Answers a GET or HEAD whose path starts with the prefix; `path` is the rest after it, decoded. */
  serve(req: IncomingMessage, res: ServerResponse, path: string): void;
}

/** The endpoint a request path belongs to, if any, and what of the path follows its prefix. */
export function matchPublicEndpoint(endpoints: readonly PublicEndpoint[], pathname: string): { endpoint: PublicEndpoint; rest: string | undefined } | undefined {
  for (const endpoint of endpoints) {
    if (pathname.startsWith(endpoint.prefix)) return { endpoint, rest: pathname.slice(endpoint.prefix.length) };
    if (pathname === endpoint.prefix.slice(0, -1)) return { endpoint, rest: undefined };
  }
  return undefined;
}
