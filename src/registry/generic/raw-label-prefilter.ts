/**
 * A cheap pre-check on an object's stored JSON, before parsing it, for list requests with a label selector.
 *
 * Stored objects are written by GenericStore.encode with JSON.stringify, so a label `k: v` appears in the stored text
 * exactly as `"k":"v"` (label keys and values never need JSON escapes beyond what JSON.stringify itself produces).
 * A requirement `k=v`, `k==v` or `k in (v1,v2)` therefore cannot match an object whose text contains none of those
 * byte strings, and `k` (exists) none whose text contains `"k":`. The check may let through objects that do not
 * match (the text can occur elsewhere, in annotations or a spec), so the full selector still runs after parsing; it
 * never rejects an object that matches. Lists that select a few objects out of many large ones (every syncer
 * listing its own APIResourceImports among hundreds, each carrying a full schema) parse only what they return.
 */
import type { Selection } from './selection.js';

/** The pre-check for `selection`, or undefined when its label selector has no requirement the text can rule out. */
export function rawLabelPrefilter(selection: Selection | undefined): ((stored: string) => boolean) | undefined {
  const labels = selection?.labels?.selector;
  if (!labels || labels.isNothing()) return undefined;
  const needleSets: string[][] = [];
  for (const r of labels.requirements) {
    const key = JSON.stringify(r.key);
    if (r.operator === '=' || r.operator === '==' || r.operator === 'in') needleSets.push(r.values.map((v) => `${key}:${JSON.stringify(v)}`));
    else if (r.operator === 'exists') needleSets.push([`${key}:`]);
  }
  if (needleSets.length === 0) return undefined;
  return (stored) => needleSets.every((needles) => needles.some((n) => stored.includes(n)));
}
