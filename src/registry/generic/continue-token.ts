import { goJSONSyntaxError } from '../../apimachinery/go-json-syntax.js';
import { errors } from '../../apimachinery/status.js';

/**
 * The opaque list continuation token: the revision the first page was read at and the last key returned, so later
 * pages are a consistent snapshot. Encoded like upstream (base64 of JSON with a version marker).
 */
export interface ContinueToken {
  /** Negative: no snapshot, read at the latest revision (the token a compacted continue's 410 carries). */
  revision: number;
  afterKey: string;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'atrium.io/v1', rv: token.revision, start: token.afterKey })).toString('base64url');
}

export function decodeContinue(raw: string): ContinueToken {
  // storage.DecodeContinue's errors: base64.RawURLEncoding's, then encoding/json's.
  const bad = raw.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0 || raw.length % 4 === 1) {
    throw errors.badRequest(`invalid continue token: continue key is not valid: illegal base64 data at input byte ${bad >= 0 ? bad : raw.length - 1}`);
  }
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw errors.badRequest(`invalid continue token: continue key is not valid: ${goJSONSyntaxError(text) ?? 'unexpected end of JSON input'}`);
  }
  const p = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  // rv -1 (any negative, as upstream) is valid: "continue from the latest revision", handed out with a compacted 410.
  if (p?.v !== 'atrium.io/v1' || typeof p.rv !== 'number' || typeof p.start !== 'string' || !Number.isSafeInteger(p.rv) || p.rv === 0) {
    throw errors.badRequest('invalid continue token: the token was not produced by this server');
  }
  return { revision: p.rv, afterKey: p.start };
}

export const continueExpiredMessage =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export const listExpiredMessage = 'The resourceVersion for the provided list is too old.';
