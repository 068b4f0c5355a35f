/**
 * Schema compatibility for type negotiation, over structural schemas (see from-openapi.ts):
 *
 * - `lowestCommonDenominator(a, b)`: the schema both clusters accept. Objects keep the fields both know, enums the
 *   values both allow, `required` the union; an integer and a number narrow to integer. Disagreements that cannot
 *   be narrowed (a string against an integer, a list against a map) are reported as incompatibilities with the exact
 *   field path, never silently dropped, as kcp's schemacompat did.
 * - `checkAccepts(enforced, cluster)`: whether a cluster accepts everything an enforced schema (a CRD or built-in
 *   type the workspace already serves) allows: every enforced field must exist in the cluster with a compatible type.
 */
type Schema = Record<string, unknown>;

export interface Incompatibility {
  /** Field path like `spec.template.spec.containers[*].ports[*].containerPort` (empty for the root). */
  path: string;
  reason: string;
}

/** One line for conditions: `spec.replicas: <reason>`. */
export function formatIncompatibility(i: Incompatibility): string {
  return i.path ? `${i.path}: ${i.reason}` : i.reason;
}

function isObj(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A schema's kind of value for comparison: int-or-string, free-form object, or its JSON type. */
function kindOf(s: Schema): string {
  if (s['x-kubernetes-int-or-string'] === true) return 'int-or-string';
  if (s.type === 'object' && s['x-kubernetes-preserve-unknown-fields'] === true && !isObj(s.properties) && !isObj(s.additionalProperties)) return 'any-object';
  if (s.type === 'object' && isObj(s.additionalProperties)) return 'map';
  return typeof s.type === 'string' ? s.type : 'any';
}

function child(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

/** The schema both `a` and `b` accept, or the incompatibilities that prevent one. */
export function lowestCommonDenominator(a: Schema, b: Schema, path = ''): { schema: Schema; incompatibilities: Incompatibility[] } {
  const issues: Incompatibility[] = [];
  const schema = lcd(a, b, path, issues);
  return { schema, incompatibilities: issues };
}

function lcd(a: Schema, b: Schema, path: string, issues: Incompatibility[]): Schema {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === 'any-object' && (kb === 'object' || kb === 'map' || kb === 'any-object')) return structuredClone(b);
  if (kb === 'any-object' && (ka === 'object' || ka === 'map')) return structuredClone(a);
  if (ka !== kb) {
    if ((ka === 'integer' && kb === 'number') || (ka === 'number' && kb === 'integer')) return structuredClone(ka === 'integer' ? a : b);
    if (ka === 'int-or-string' && (kb === 'integer' || kb === 'string')) return structuredClone(b);
    if (kb === 'int-or-string' && (ka === 'integer' || ka === 'string')) return structuredClone(a);
    issues.push({ path, reason: `type "${kb}" is incompatible with "${ka}"` });
    return structuredClone(a);
  }
  const out: Schema = { ...a };
  if (Array.isArray(a.enum) || Array.isArray(b.enum)) {
    const values = Array.isArray(a.enum) && Array.isArray(b.enum) ? a.enum.filter((v) => (b.enum as unknown[]).some((w) => JSON.stringify(w) === JSON.stringify(v))) : ((a.enum ?? b.enum) as unknown[]);
    if (values.length === 0) issues.push({ path, reason: 'enum values have nothing in common' });
    out.enum = values;
  }
  if (ka === 'array') {
    out.items = lcd(isObj(a.items) ? a.items : {}, isObj(b.items) ? b.items : {}, `${path}[*]`, issues);
  } else if (ka === 'map') {
    out.additionalProperties = lcd(a.additionalProperties as Schema, b.additionalProperties as Schema, `${path}[*]`, issues);
  } else if (ka === 'object' && (isObj(a.properties) || isObj(b.properties))) {
    const pa = isObj(a.properties) ? a.properties : {};
    const pb = isObj(b.properties) ? b.properties : {};
    const props: Schema = {};
    for (const k of Object.keys(pa)) {
      if (!(k in pb)) continue;
      props[k] = lcd(pa[k] as Schema, pb[k] as Schema, child(path, k), issues);
    }
    out.properties = props;
    const required = [...new Set([...((a.required as string[]) ?? []), ...((b.required as string[]) ?? [])])].filter((r) => r in props);
    if (required.length) out.required = required;
    else delete out.required;
    const missingRequired = [...new Set([...((a.required as string[]) ?? []), ...((b.required as string[]) ?? [])])].filter((r) => !(r in props));
    for (const r of missingRequired) issues.push({ path: child(path, r), reason: 'required field is not known to every cluster' });
  }
  return out;
}

/** Incompatibilities that make `cluster` refuse something `enforced` allows (empty = the cluster accepts it). */
export function checkAccepts(enforced: Schema, cluster: Schema, path = ''): Incompatibility[] {
  const issues: Incompatibility[] = [];
  accepts(enforced, cluster, path, issues);
  return issues;
}

function accepts(e: Schema, c: Schema, path: string, issues: Incompatibility[]): void {
  const ke = kindOf(e);
  const kc = kindOf(c);
  if (kc === 'any-object' && (ke === 'object' || ke === 'map' || ke === 'any-object')) return;
  if (ke !== kc) {
    const widened = (ke === 'integer' && kc === 'number') || (kc === 'int-or-string' && (ke === 'integer' || ke === 'string'));
    if (!widened) issues.push({ path, reason: `type "${kc}" in the cluster does not accept "${ke}"` });
    return;
  }
  if (Array.isArray(c.enum)) {
    const allowed = c.enum.map((v) => JSON.stringify(v));
    const extra = Array.isArray(e.enum) ? e.enum.filter((v) => !allowed.includes(JSON.stringify(v))) : ['(any value)'];
    if (extra.length) issues.push({ path, reason: `the cluster does not accept the values ${extra.map((v) => JSON.stringify(v)).join(', ')}` });
  }
  if (ke === 'array') accepts(isObj(e.items) ? e.items : {}, isObj(c.items) ? c.items : {}, `${path}[*]`, issues);
  else if (ke === 'map') accepts(e.additionalProperties as Schema, c.additionalProperties as Schema, `${path}[*]`, issues);
  else if (ke === 'object') {
    const pe = isObj(e.properties) ? e.properties : {};
    const pc = isObj(c.properties) ? c.properties : {};
    for (const [k, v] of Object.entries(pe)) {
      if (k === 'metadata' && path === '') continue;
      if (!(k in pc)) {
        if (c['x-kubernetes-preserve-unknown-fields'] !== true) issues.push({ path: child(path, k), reason: 'field is not known to the cluster' });
        continue;
      }
      accepts(v as Schema, pc[k] as Schema, child(path, k), issues);
    }
    for (const r of (c.required as string[]) ?? []) {
      if (!((e.required as string[]) ?? []).includes(r)) issues.push({ path: child(path, r), reason: 'the cluster requires a field the workspace does not' });
    }
  }
}
