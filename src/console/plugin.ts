/**
 * The web console's server-side piece: serves the single-page app built from console/ (by `npm run build`, into
 * dist/console/, shipped in the package) under /console/ on the API server's own port, before authentication — the
 * files are the same for everybody. The app itself then calls the API like kubectl does, with the user's bearer
 * token on every request, so RBAC in each workspace decides what it shows.
 *
 * The files are read once at install (a few hundred KiB); hashed assets are cached for good, index.html is revalidated.
 * The Content-Security-Policy allows the app nothing but its own origin: no external fonts, scripts or connections.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerPlugin } from '../apiserver/plugin.js';
import type { PublicEndpoint } from '../apiserver/public-endpoint.js';

/** The path the console is served under. */
export const consolePath = '/console/';

/** dist/console/ of the package: this module is dist/src/console/plugin.js. */
export const defaultConsoleAssetsDir = fileURLToPath(new URL('../../console/', import.meta.url));

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const securityHeaders = {
  'Content-Security-Policy': "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  immutable: boolean;
}

function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(join(dir, 'index.html'))) return assets;
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else {
        const body = readFileSync(p);
        const rel = relative(dir, p).split(sep).join('/');
        assets.set(rel, {
          body,
          type: contentTypes[extname(p)] ?? 'application/octet-stream',
          etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
          immutable: rel.startsWith('assets/'),
        });
      }
    }
  };
  walk(dir);
  return assets;
}

/** The /console/ endpoint over the built files in `dir`. */
export function consoleEndpoint(dir = defaultConsoleAssetsDir): PublicEndpoint {
  const assets = loadAssets(dir);
  return {
    prefix: consolePath,
    serve(req: IncomingMessage, res: ServerResponse, path: string) {
      if (assets.size === 0) {
        const text = 'The console was not built: run `npm run build` in the atrium package.\n';
        res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)) });
        res.end(req.method === 'HEAD' ? undefined : text);
        return;
      }
      // The app routes in the URL's fragment; any other path under /console/ that is not a file is the app too.
      let asset = assets.get(path === '' ? 'index.html' : path);
      if (!asset && !path.startsWith('assets/')) asset = assets.get('index.html');
      if (!asset) {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', ...securityHeaders });
        res.end(req.method === 'HEAD' ? undefined : '404 page not found\n');
        return;
      }
      const headers: Record<string, string> = {
        ...securityHeaders,
        'Content-Type': asset.type,
        ETag: asset.etag,
        'Cache-Control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      };
      if (req.headers['if-none-match'] === asset.etag) {
        res.writeHead(304, headers);
        res.end();
        return;
      }
      headers['Content-Length'] = String(asset.body.length);
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : asset.body);
    },
  };
}

/** The console as a server plugin: nothing but its public endpoint. */
export function consolePlugin(opts: { assetsDir?: string } = {}): ServerPlugin {
  return {
    name: 'console',
    install: () => ({ publicEndpoints: [consoleEndpoint(opts.assetsDir)] }),
  };
}
