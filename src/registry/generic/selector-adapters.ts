import { errors } from '../../apimachinery/status.js';
import { parseFieldSelector, FieldSelectorParseError } from '../../apimachinery/fields/selector.js';
import { parseLabelSelector, LabelSelectorParseError } from '../../apimachinery/labels/selector.js';
import type { FieldMatcher, LabelMatcher } from './selection.js';

/** Parses a labelSelector query parameter; a malformed one is a 400 with the parser's own text. */
export function parseLabelMatcher(text: string): LabelMatcher {
  try {
    const sel = parseLabelSelector(text);
    return { empty: () => sel.isEmpty(), matches: (labels) => sel.matches(labels), selector: sel };
  } catch (err) {
    if (err instanceof LabelSelectorParseError) throw errors.badRequest(err.message);
    throw err;
  }
}

/** Parses a fieldSelector query parameter; a malformed one is a 400 with the parser's own text. */
export function parseFieldMatcher(text: string): FieldMatcher {
  try {
    const sel = parseFieldSelector(text);
    return { empty: () => sel.isEmpty(), matches: (fields) => sel.matches(fields), fieldNames: () => sel.terms.map((t) => t.field) };
  } catch (err) {
    if (err instanceof FieldSelectorParseError) throw errors.badRequest(err.message);
    throw err;
  }
}
