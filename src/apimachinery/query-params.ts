/** Query parameters converted as the parameter codec converts them (k8s.io/apimachinery runtime conversion). */

/**
 * A boolean query parameter as the parameter codec converts it (runtime.Convert_Slice_string_To_bool and
 * _To_Pointer_bool): its first value, false when it is "0" or any capitalisation of "false", true otherwise (also
 * when empty); undefined when absent.
 */
export function parseBoolParam(query: URLSearchParams, name: string): boolean | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  return !goFalse(v);
}

/** `s == "0" || strings.EqualFold(s, "false")` (the long s folds to s, as in Go). */
function goFalse(s: string): boolean {
  return s === '0' || s.replace(/\u017f/g, 's').toLowerCase() === 'false';
}
