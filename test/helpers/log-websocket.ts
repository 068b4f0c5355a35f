/**
 * A WebSocket client of pods/log as upstream's e2e framework opens one (test/e2e/framework/websocket): the kubeconfig's
 * server, CA and credentials, the subprotocols asked for, every message kept as it came (binary or text).
 */
import { WebSocket } from 'ws';
import { readKubeconfig } from '../../src/client/kubeconfig/kubeconfig.js';

export interface LogWebSocketResult {
  /** The status of a refused handshake (the WebSocket never opened). */
  status?: number;
  body?: string;
  protocol?: string;
  messages: { binary: boolean; data: Buffer }[];
  closeCode?: number;
}

/**
 * Opens `path` (with its query) on the kubeconfig's server over WebSocket and collects messages until the server
 * closes, or until `until` says to stop (the client then closes with 1000).
 */
export async function logOverWebSocket(kubeconfigPath: string, path: string, protocols: string[], until?: (r: LogWebSocketResult) => boolean): Promise<LogWebSocketResult> {
  const kc = await readKubeconfig(kubeconfigPath);
  const creds = await kc.currentCredentials();
  const ca = await kc.currentCaPem();
  const url = `${kc.currentServer().replace(/^http/, 'ws').replace(/\/$/, '')}${path}`;
  const headers: Record<string, string> = creds.certPem ? {} : creds.token ? { Authorization: `Bearer ${creds.token}` } : {};
  const ws = new WebSocket(url, protocols, { ca, cert: creds.certPem, key: creds.keyPem, headers });
  const result: LogWebSocketResult = { messages: [] };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`no end of the log stream within 30s: ${JSON.stringify(result.messages.map((m) => m.data.toString()))}`));
    }, 30_000);
    ws.on('open', () => (result.protocol = ws.protocol));
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      result.messages.push({ binary: isBinary, data });
      if (until?.(result)) ws.close(1000);
    });
    ws.on('close', (code: number) => {
      clearTimeout(timer);
      result.closeCode = code;
      resolve(result);
    });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ ...result, status: res.statusCode, body });
      });
    });
    ws.on('error', (err: Error) => {
      if (result.status === undefined && !result.protocol) {
        // 'unexpected-response' answers refused handshakes; other errors end the attempt.
        if (!/Unexpected server response/.test(err.message)) {
          clearTimeout(timer);
          reject(err);
        }
      }
    });
  });
}

/** The log text the messages carry: binary ones as they are, text ones base64-decoded (base64.binary.k8s.io). */
export function logText(r: LogWebSocketResult): string {
  return Buffer.concat(r.messages.map((m) => (m.binary ? m.data : Buffer.from(m.data.toString('utf8'), 'base64')))).toString('utf8');
}
