/**
 * printCertificateSigningRequest (pkg/printers/internalversion, v1.32): NAME, AGE, SIGNERNAME, REQUESTOR,
 * REQUESTEDDURATION, CONDITION, the condition summarising approval (Denied over Approved over Pending), failure and
 * whether a certificate was issued.
 */
import type { JsonObject } from '../../../apimachinery/object.js';
import { humanDuration } from '../../../apimachinery/table/duration.js';
import { column } from '../../../apimachinery/table/table.js';
import type { TablePrinter } from '../../../apimachinery/table/builtin-printers.js';
import { ageColumn, ageOf, nameColumn, nameOf, obj, str } from '../workloads/printers.js';
import { APPROVED, DENIED, FAILED, conditionsOf } from './validation.js';

/** extractCSRStatus. */
export function csrCondition(csr: JsonObject): string {
  const types = new Set(conditionsOf(csr).map((c) => c.type));
  let status = types.has(DENIED) ? 'Denied' : types.has(APPROVED) ? 'Approved' : 'Pending';
  if (types.has(FAILED)) status += ',Failed';
  const certificate = obj(csr.status).certificate;
  if (typeof certificate === 'string' && certificate.length > 0) status += ',Issued';
  return status;
}

export const csrPrinter: TablePrinter = {
  columns: [
    nameColumn,
    ageColumn,
    column('SignerName', 'string', 'The signer asked to issue the certificate.'),
    column('Requestor', 'string', 'The user that created the request.'),
    column('RequestedDuration', 'string', 'The validity the request asked for (spec.expirationSeconds).'),
    column('Condition', 'string', 'Approved, Denied or Pending, then Failed and Issued when they apply.'),
  ],
  row(o, now) {
    const spec = obj(o.spec);
    const expiration = spec.expirationSeconds;
    return [
      nameOf(o),
      ageOf(o, now),
      str(spec.signerName) || '<none>',
      str(spec.username),
      typeof expiration === 'number' ? humanDuration(expiration * 1000) : '<none>',
      csrCondition(o),
    ];
  },
};
