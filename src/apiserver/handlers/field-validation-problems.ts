import type { KubeObject } from '../../apimachinery/object.js';
import { errors, type StatusError } from '../../apimachinery/status.js';
import { inDocumentOrder } from '../http/body.js';
import type { RequestTarget } from './parsed-request.js';
import type { FieldValidation } from './query-options.js';

export interface FieldValidationInput {
  /** The request's fieldValidation. */
  mode: FieldValidation;
  /** The decoded object; its fields are decoded in place by the resource's codec. */
  obj: KubeObject;
  /** Problems found before (duplicate fields), reported first unless the codec orders them by `documentText`. */
  duplicates: string[];
  /** The JSON body, when it has duplicate fields: a built-in kind reports them among the unknown ones in its order. */
  documentText?: string;
  /** The kind named in the Strict 400. */
  kind: string;
  /** Strict's error when not the create/update 400. */
  strictFailure?: (detail: string) => StatusError;
  /** The unstructured converter (strategic merge patches) reports its unknown fields sorted. */
  sortUnknown?: boolean;
  /** The document as upstream decodes it (see ResourceCodec.decodeFields). */
  decodedAs?: KubeObject;
  withDefaults?: boolean;
}

/**
 * fieldValidation: unknown and duplicate fields fail the request (Strict), come back as warnings (Warn), or are ignored.
 * The resource's codec finds the unknown fields; unless the request fails they are dropped, as decoding does: they
 * are never stored.
 */
export function fieldValidationProblems(r: RequestTarget, input: FieldValidationInput): string[] {
  const { mode, obj } = input;
  const unknown = r.def.codec
    .decodeFields(obj, r.subresource, { decodedAs: input.decodedAs ?? obj, withDefaults: input.withDefaults ?? true })
    .map((f) => `unknown field "${f}"`);
  if (mode === 'Ignore') return [];
  if (input.sortUnknown) unknown.sort();
  let problems = [...input.duplicates, ...unknown];
  if (input.documentText !== undefined && r.def.codec.strictErrorsInDocumentOrder && input.duplicates.length && unknown.length) {
    problems = inDocumentOrder(input.documentText, problems);
  }
  if (problems.length === 0) return [];
  if (mode === 'Strict') {
    const detail = `strict decoding error: ${problems.join(', ')}`;
    if (input.strictFailure) throw input.strictFailure(detail);
    throw errors.badRequest(`${input.kind} in version "${r.def.version}" cannot be handled as a ${input.kind}: ${detail}`);
  }
  return problems;
}
