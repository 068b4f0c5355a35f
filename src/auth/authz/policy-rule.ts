/**
 * RBAC policy rules and the pure functions that evaluate them (kubernetes pkg/apis/rbac/v1 evaluation helpers and
 * pkg/registry/rbac/validation): does a rule allow a request, does a set of rules cover another set, and the compact
 * text form used in escalation errors. No I/O here: everything is table-testable.
 */
import type { AuthorizationAttributes } from '../../apiserver/authorization.js';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

const ALL = '*';

function has(list: readonly string[] | undefined, v: string): boolean {
  return list !== undefined && list.includes(v);
}

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return has(rule.verbs, ALL) || has(rule.verbs, verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return has(rule.apiGroups, ALL) || has(rule.apiGroups, group);
}

/**
 * `*` matches every resource and subresource; `res` matches only the resource itself; `res/sub` that subresource;
 * `*\/sub` that subresource of any resource.
 */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const wanted = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === wanted) return true;
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

/** An empty resourceNames list matches any name; otherwise the request must name one of them exactly. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** Exact URL, `*`, or a prefix rule ending in `*` (every trailing `*` trimmed, as strings.TrimRight). */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === ALL || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

/** Whether one rule allows a request (RBAC's RuleAllows). */
export function ruleAllows(attrs: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (attrs.resourceRequest) {
    return (
      verbMatches(rule, attrs.verb) &&
      apiGroupMatches(rule, attrs.apiGroup) &&
      resourceMatches(rule, attrs.resource, attrs.subresource) &&
      resourceNameMatches(rule, attrs.name)
    );
  }
  return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.path);
}

/** Splits a rule into one rule per (group, resource, verb[, name]) and per (URL, verb), as escalation checks do. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length > 0) {
          for (const n of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n] });
        } else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

function hasAll(set: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  return (wanted ?? []).every((w) => has(set, w));
}

function resourcesCoverAll(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owner, ALL)) return true;
  for (const w of wanted ?? []) {
    if (has(owner, w)) continue;
    const slash = w.indexOf('/');
    // As the authorizer matches (ResourceMatches), an owner's `*\/sub` covers that subresource of every resource;
    // `res/*` is no wildcard there (it names a subresource called `*`), so it covers only itself.
    if (slash < 0 || !has(owner, `*/${w.slice(slash + 1)}`)) return false;
  }
  return true;
}

function urlsCoverAll(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  return (wanted ?? []).every((w) => nonResourceURLMatches({ verbs: [], nonResourceURLs: [...(owner ?? [])] }, w));
}

/** Whether ownerRule grants everything subRule (a broken-down rule) grants. */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, ALL) || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, ALL) || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourcesCoverAll(owner.resources, sub.resources);
  const urls = urlsCoverAll(owner.nonResourceURLs, sub.nonResourceURLs);
  const ownerNames = owner.resourceNames ?? [];
  const names = (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return verbs && groups && resources && urls && names;
}

/** Whether `owner` covers every permission in `requested`; returns the missing broken-down rules when not. */
export function covers(owner: readonly PolicyRule[], requested: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const rule of requested) {
    for (const sub of breakdownRule(rule)) {
      if (!owner.some((o) => ruleCovers(o, sub))) missing.push(sub);
    }
  }
  return { covered: missing.length === 0, missing };
}

/**
 * CompactRules: merges "simple" rules (one group, one resource, at most one resource name, no URLs) that differ only
 * in verbs, as the escalation error does before printing; verbs are appended as they come (upstream does not
 * deduplicate them). Other rules are kept as they are.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const simple = new Map<string, PolicyRule>();
  const out: PolicyRule[] = [];
  for (const r of rules) {
    const names = r.resourceNames ?? [];
    const isSimple = (r.apiGroups ?? []).length === 1 && (r.resources ?? []).length === 1 && names.length <= 1 && (r.nonResourceURLs ?? []).length === 0;
    if (!isSimple) {
      out.push({ ...r });
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], names.length === 1, names[0] ?? '']);
    const existing = simple.get(key);
    if (existing) {
      existing.verbs.push(...r.verbs);
    } else {
      const copy: PolicyRule = { apiGroups: [...r.apiGroups!], resources: [...r.resources!], verbs: [...r.verbs] };
      if (names.length === 1) copy.resourceNames = [names[0]!];
      simple.set(key, copy);
      out.push(copy);
    }
  }
  return out;
}

/** Go's %q for a []string: `["a" "b"]`. */
export function goQuotedList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/** The compact text of a rule in escalation errors: `{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}`. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if ((r.apiGroups ?? []).length) parts.push(`APIGroups:${goQuotedList(r.apiGroups!)}`);
  if ((r.resources ?? []).length) parts.push(`Resources:${goQuotedList(r.resources!)}`);
  if ((r.nonResourceURLs ?? []).length) parts.push(`NonResourceURLs:${goQuotedList(r.nonResourceURLs!)}`);
  if ((r.resourceNames ?? []).length) parts.push(`ResourceNames:${goQuotedList(r.resourceNames!)}`);
  if (r.verbs.length) parts.push(`Verbs:${goQuotedList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** Reads the rules of a stored Role/ClusterRole, tolerating absent lists. */
export function rulesOf(obj: Record<string, unknown>): PolicyRule[] {
  return Array.isArray(obj.rules) ? (obj.rules as PolicyRule[]).map((r) => ({ ...r, verbs: r.verbs ?? [] })) : [];
}
