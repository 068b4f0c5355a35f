import type { ServerResponse } from 'node:http';
import { errors, StatusError } from '../../apimachinery/status.js';
import { errorText, logger } from '../../logging/logger.js';
import { encodeKubernetesProtobuf } from '../../apimachinery/protobuf/encode.js';

/** Writes a JSON body with the exact content type (kube-apiserver always says application/json for JSON). */
export function writeJson(res: ServerResponse, code: number, body: unknown, contentType = 'application/json', headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  writeRaw(res, code, text, contentType, headers);
}

export function writeRaw(res: ServerResponse, code: number, text: string | Buffer, contentType: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  // A string body goes out as a string: Node then sends the status line, headers and body as one chunk (one TLS
  // record, one write), where a Buffer body is a second chunk and a second record.
  const length = typeof text === 'string' ? Buffer.byteLength(text) : text.length;
  res.writeHead(code, { ...headers, 'Content-Type': contentType, 'Content-Length': String(length), 'Cache-Control': 'no-cache, private' });
  res.end(text);
}

/**
 * Only a Status reaches a client. A StatusError is written as is; anything else is a bug: logged with its stack and
 * answered as 500. In protobuf when the client prefers it (`protobuf`: negotiation.ts statusInProtobuf), as
 * responsewriters.ErrorNegotiated; else JSON.
 */
export function writeError(res: ServerResponse, err: unknown, context: Record<string, unknown> = {}, protobuf = false): void {
  // The client went away (aborted its body, closed the connection): nobody is left to answer and it is no bug.
  if (!(err instanceof StatusError) && (res.destroyed || res.socket?.destroyed !== false)) {
    logger.debug('client closed the connection', { ...context, error: err instanceof Error ? err.message : String(err) });
    return;
  }
  let se: StatusError;
  if (err instanceof StatusError) se = err;
  else {
    logger.error('internal error', { ...context, error: errorText(err) });
    se = errors.internal(err instanceof Error ? err.message : String(err));
  }
  if (protobuf) {
    const bytes = encodeKubernetesProtobuf(se.status as unknown as Record<string, unknown>);
    writeRaw(res, se.status.code, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), 'application/vnd.kubernetes.protobuf', se.headers);
    return;
  }
  writeJson(res, se.status.code, se.status, 'application/json', se.headers);
}

/** Appends `Warning: 299 - "text"` headers (k8s.io/apimachinery util/net NewWarningHeader). */
export function addWarnings(res: ServerResponse, warnings: string[]): void {
  if (!warnings.length) return;
  const existing = res.getHeader('Warning');
  const list = Array.isArray(existing) ? existing.map(String) : existing ? [String(existing)] : [];
  for (const w of warnings) list.push(`299 - ${JSON.stringify(w)}`);
  res.setHeader('Warning', list);
}
