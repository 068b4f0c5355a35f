/**
 * Validation of a webhook's clientConfig (k8s.io/apiserver pkg/util/webhook validation.go), shared by admission
 * webhook configurations and CRD conversion webhooks, with upstream's messages.
 */
import { X509Certificate } from 'node:crypto';
import * as fe from '../../apimachinery/field-errors.js';
import type { FieldError, FieldPath } from '../../apimachinery/field-errors.js';
import { isDNS1123Subdomain } from '../../apimachinery/validation/names.js';

type Json = Record<string, unknown>;

/** webhook.ValidateWebhookURL with https forced; parsing follows Go's url.Parse closely enough for what it reports. */
export function validateWebhookURL(at: FieldPath, raw: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    // Go's url.Parse accepts almost anything; a string without a scheme parses as a path with an empty host.
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(raw)?.[1] ?? '';
    const errs: FieldError[] = [fe.invalid(at.toString(), scheme, "'https' is the only allowed URL scheme" + form)];
    errs.push(fe.invalid(at.toString(), '', 'host must be specified' + form));
    return errs;
  }
  const errs: FieldError[] = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https') errs.push(fe.invalid(at.toString(), scheme, "'https' is the only allowed URL scheme" + form));
  if (!u.host) errs.push(fe.invalid(at.toString(), u.host, 'host must be specified' + form));
  if (u.username || u.password) errs.push(fe.invalid(at.toString(), u.password ? `${u.username}:${u.password}` : u.username, 'user information is not permitted in the URL'));
  if (u.hash.length > 1) errs.push(fe.invalid(at.toString(), u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search.length > 1) errs.push(fe.invalid(at.toString(), u.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

/** webhook.ValidateWebhookService. */
export function validateWebhookService(at: FieldPath, svc: Json): FieldError[] {
  const errs: FieldError[] = [];
  if (!svc.name) errs.push(fe.required(at.child('name').toString(), 'service name is required'));
  if (!svc.namespace) errs.push(fe.required(at.child('namespace').toString(), 'service namespace is required'));
  const port = typeof svc.port === 'number' ? svc.port : 443;
  if (!(port >= 1 && port <= 65535)) errs.push(fe.invalid(at.child('port').toString(), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (typeof svc.path !== 'string') return errs;
  const path = svc.path;
  if (path === '/' || path === '') return errs;
  if (path === '//') return [...errs, fe.invalid(at.child('path').toString(), path, 'segment[0] may not be empty')];
  if (!path.startsWith('/')) errs.push(fe.invalid(at.child('path').toString(), path, "must start with a '/'"));
  let check = path.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (!step) {
      errs.push(fe.invalid(at.child('path').toString(), path, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step)) errs.push(fe.invalid(at.child('path').toString(), path, `segment[${i}]: ${failure}`));
  });
  return errs;
}

/**
 * webhook.ValidateCABundle: the bundle must hold at least one PEM certificate (client-go's TLS config refuses it
 * otherwise). `raw` is the decoded bundle; the error prints it as Go prints a []byte with %#v.
 */
export function validateCABundle(at: FieldPath, raw: Buffer): FieldError[] {
  const blocks = raw.toString('latin1').match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  const parses = blocks.some((b) => {
    try {
      new X509Certificate(b);
      return true;
    } catch {
      return false;
    }
  });
  if (parses) return [];
  const rendered = `[]byte{${[...raw].map((b) => '0x' + b.toString(16)).join(', ')}}`;
  return [{ ...fe.invalid(at.toString(), raw.toString('latin1'), 'unable to load root certificates: unable to parse bytes as PEM block'), renderedValue: rendered }];
}
