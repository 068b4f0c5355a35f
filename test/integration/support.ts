/**
 * Helpers shared by the integration suites: a streaming watch client (the harness's request() buffers whole bodies,
 * which a watch never finishes), namespace setup, and Status assertions.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpsRequest, Agent } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { HttpResponse, TestServer } from '../helpers/harness.js';

export interface WatchEvent {
  type: string;
  object: any;
}

/** A live watch stream: events as they arrive, split on newlines exactly as client-node does. */
export interface WatchStream {
  status: number;
  headers: IncomingMessage['headers'];
  /** Every event received so far, in order. */
  events: WatchEvent[];
  /** Resolves with the next unread event, or rejects after timeoutMs (or when the stream ended first). */
  next(timeoutMs?: number): Promise<WatchEvent>;
  /** Reads events until `count` unread ones have arrived. */
  take(count: number, timeoutMs?: number): Promise<WatchEvent[]>;
  /** Resolves when the server ends the response. */
  ended: Promise<void>;
  close(): void;
}

const agents = new WeakMap<TestServer, Agent>();

function adminAgent(ts: TestServer): Agent {
  let a = agents.get(ts);
  if (!a) {
    const pki = join(ts.rootDir, 'pki');
    // No keep-alive: each watch owns its socket, and destroying it must not affect other requests.
    a = new Agent({ ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')), keepAlive: false, maxSockets: Infinity });
    agents.set(ts, a);
  }
  return a;
}

/** Opens a watch (or any streaming GET) with the admin certificate. Rejects if the response is not 200. */
export function openWatch(ts: TestServer, path: string, headers: Record<string, string> = {}): Promise<WatchStream> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, ts.url), { method: 'GET', agent: adminAgent(ts), headers }, (res) => {
      if (res.statusCode !== 200) {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => reject(new Error(`watch ${path} answered ${res.statusCode}: ${Buffer.concat(chunks).toString()}`)));
        return;
      }
      const events: WatchEvent[] = [];
      let read = 0;
      let buffer = '';
      let done = false;
      let waiter: (() => void) | undefined;
      let endResolve!: () => void;
      const ended = new Promise<void>((r) => (endResolve = r));
      const wake = () => {
        const w = waiter;
        waiter = undefined;
        w?.();
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim()) events.push(JSON.parse(line) as WatchEvent);
        }
        wake();
      });
      const finish = () => {
        if (done) return;
        done = true;
        endResolve();
        wake();
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      const next = async (timeoutMs = 5000): Promise<WatchEvent> => {
        const deadline = Date.now() + timeoutMs;
        while (read >= events.length) {
          if (done) throw new Error(`watch ${path} ended; events so far: ${JSON.stringify(events.map((e) => e.type))}`);
          const left = deadline - Date.now();
          if (left <= 0) throw new Error(`timed out waiting for a watch event on ${path}; events so far: ${JSON.stringify(events.map((e) => e.type))}`);
          await new Promise<void>((r) => {
            const t = setTimeout(r, left);
            waiter = () => {
              clearTimeout(t);
              r();
            };
          });
        }
        return events[read++]!;
      };
      resolve({
        status: res.statusCode,
        headers: res.headers,
        events,
        next,
        async take(count, timeoutMs = 5000) {
          const out: WatchEvent[] = [];
          for (let i = 0; i < count; i++) out.push(await next(timeoutMs));
          return out;
        },
        ended,
        close() {
          req.destroy();
          res.destroy();
        },
      });
    });
    req.on('error', reject);
    req.end();
  });
}

let counter = 0;

/** A namespace name unique within this process run (tests share one server per file). */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid.toString(36)}-${counter}`;
}

/** Creates a fresh namespace and returns its name. */
export async function createNamespace(ts: TestServer, prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  const r = await ts.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  assert.equal(r.status, 201, r.text);
  return name;
}

/** Asserts a Failure Status with this code, reason and (when given) exact message. */
export function assertStatus(r: HttpResponse, code: number, reason: string, message?: string | RegExp): void {
  assert.equal(r.status, code, r.text);
  assert.equal(r.headers['content-type'], 'application/json', r.text);
  assert.equal(r.json?.kind, 'Status', r.text);
  assert.equal(r.json.apiVersion, 'v1');
  assert.deepEqual(r.json.metadata, {});
  assert.equal(r.json.status, 'Failure');
  assert.equal(r.json.code, code);
  assert.equal(r.json.reason, reason, r.text);
  if (typeof message === 'string') assert.equal(r.json.message, message);
  else if (message) assert.match(r.json.message, message);
}

/** Creates a ConfigMap and returns it (asserting 201). */
export async function createConfigMap(ts: TestServer, ns: string, name: string, extra: Record<string, unknown> = {}, labels?: Record<string, string>): Promise<any> {
  const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, ...extra };
  const r = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, body);
  assert.equal(r.status, 201, r.text);
  return r.json;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
