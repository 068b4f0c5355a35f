/**
 * v1alpha1 ⇄ v1alpha2 conversion of APIExports and APIBindings, as kcp's (sdk apis/apis/v1alpha2
 * types_apiexport_conversion.go, types_apibinding_conversion.go): v1alpha2 is the stored shape. What v1alpha1 cannot
 * say travels in annotations so a round trip loses nothing: v1alpha2 resource schemas that are not CRD-backed and
 * claims with other verbs than `*` (or a selector other than matchAll) in `apis.v1alpha2.kcp.io/...` annotations on the
 * v1alpha1 object; v1alpha1's `all` and `resourceSelector` in `apis.v1alpha2.kcp.io/v1alpha1-...` on the v1alpha2 one.
 */
import type { JsonObject, KubeObject } from '../apimachinery/object.js';

const RESOURCE_SCHEMAS = 'apis.v1alpha2.kcp.io/resource-schemas';
const EXPORT_CLAIMS = 'apis.v1alpha2.kcp.io/permission-claims';
const EXPORT_CLAIMS_V1 = 'apis.v1alpha2.kcp.io/v1alpha1-permission-claims';
const BINDING_CLAIMS = 'apis.v1alpha2.kcp.io/acceptable-permission-claims';
const STATUS_EXPORT_CLAIMS = 'apis.v1alpha2.kcp.io/status-export-permission-claims';
const STATUS_APPLIED_CLAIMS = 'apis.v1alpha2.kcp.io/status-applied-permission-claims';
const STATUS_EXPORT_CLAIMS_V1 = 'apis.v1alpha2.kcp.io/v1alpha1-status-export-permission-claims';
const STATUS_APPLIED_CLAIMS_V1 = 'apis.v1alpha2.kcp.io/v1alpha1-status-applied-permission-claims';

type Claim = JsonObject & { group?: string; resource?: string; identityHash?: string };

function gri(c: Claim): string {
  return `${c.group ?? ''}/${c.resource ?? ''}/${c.identityHash ?? ''}`;
}

function annotationsOf(o: KubeObject): Record<string, string> {
  return (o.metadata ??= {}).annotations ?? {};
}

function setAnnotation(o: KubeObject, key: string, value: unknown): void {
  const meta = (o.metadata ??= {});
  meta.annotations = { ...(meta.annotations ?? {}), [key]: JSON.stringify(value) };
}

/** Reads and removes an annotation holding JSON; undefined when absent or unreadable. */
function takeAnnotation<T>(o: KubeObject, key: string): T | undefined {
  const meta = o.metadata;
  const raw = meta?.annotations?.[key];
  if (raw === undefined) return undefined;
  const { [key]: _gone, ...rest } = meta!.annotations!;
  void _gone;
  if (Object.keys(rest).length) meta!.annotations = rest;
  else delete meta!.annotations;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
}

const wildcardVerbs = (c: Claim): boolean => Array.isArray(c.verbs) && c.verbs.length === 1 && c.verbs[0] === '*';
const matchAll = (c: Claim): boolean => (c.selector as JsonObject | undefined)?.matchAll === true;

/** v1alpha2 claim → v1alpha1 (group, resource, identityHash; `all` from a matchAll selector; state). */
function claimToV1(c: Claim, withSelector: boolean): Claim {
  const out: Claim = { resource: c.resource ?? '' };
  if (c.group) out.group = c.group;
  if (withSelector && matchAll(c)) out.all = true;
  if (c.identityHash) out.identityHash = c.identityHash;
  if (c.state !== undefined) out.state = c.state;
  return out;
}

/** v1alpha1 claim → v1alpha2 (verbs `*`; a scoped claim's selector from `all`). */
function claimToV2(c: Claim, withSelector: boolean): Claim {
  const out: Claim = { resource: c.resource ?? '' };
  if (c.group) out.group = c.group;
  if (withSelector) out.selector = c.all ? { matchAll: true } : {};
  out.verbs = ['*'];
  if (c.identityHash) out.identityHash = c.identityHash;
  if (c.state !== undefined) out.state = c.state;
  return out;
}

/** Converts claims down: those v1alpha1 can say, and the rest for an annotation. */
function claimsDown(claims: Claim[] | undefined, scoped: boolean): { out: Claim[]; overhanging: Claim[] } {
  const out: Claim[] = [];
  const overhanging: Claim[] = [];
  for (const c of claims ?? []) {
    out.push(claimToV1(c, scoped));
    if (!wildcardVerbs(c) || (scoped && !matchAll(c))) overhanging.push(c);
  }
  return { out, overhanging };
}

/** Puts v1alpha1's all/resourceSelector, kept in an annotation, back on the converted claims. */
function restoreV1Fields(claims: Claim[], originals: Claim[] | undefined): void {
  for (const o of originals ?? []) {
    const c = claims.find((x) => gri(x) === gri(o));
    if (!c) continue;
    if (o.all !== undefined) c.all = o.all;
    if (o.resourceSelector !== undefined) c.resourceSelector = o.resourceSelector;
  }
}

/** Puts v1alpha2's verbs and selectors, kept in an annotation, back on the converted claims. */
function restoreV2Fields(claims: Claim[], overhanging: Claim[] | undefined): void {
  for (const o of overhanging ?? []) {
    const c = claims.find((x) => gri(x) === gri(o));
    if (!c) {
      claims.push(o);
      continue;
    }
    Object.assign(c, o);
  }
}

/** A schema name `<prefix>.<resource>.<group>` as a v1alpha2 resource entry. */
function resourceOfSchemaName(schema: string): JsonObject {
  const parts = schema.split('.');
  return { name: parts[1] ?? '', group: parts.slice(2).join('.'), schema, storage: { crd: {} } };
}

export function apiExportToV1alpha1(stored: KubeObject): KubeObject {
  const o = structuredClone(stored);
  const spec = (o.spec ?? {}) as JsonObject;
  const resources = (spec.resources ?? []) as JsonObject[];
  const crdBacked = resources.filter((r) => (r.storage as JsonObject | undefined)?.crd !== undefined);
  const other = resources.filter((r) => (r.storage as JsonObject | undefined)?.crd === undefined);
  delete spec.resources;
  if (other.length) setAnnotation(o, RESOURCE_SCHEMAS, other);
  if (crdBacked.length) spec.latestResourceSchemas = crdBacked.map((r) => r.schema as string);
  if (Array.isArray(spec.permissionClaims)) {
    const { out, overhanging } = claimsDown(spec.permissionClaims as Claim[], false);
    if (overhanging.length) setAnnotation(o, EXPORT_CLAIMS, overhanging);
    restoreV1Fields(out, takeAnnotation<Claim[]>(o, EXPORT_CLAIMS_V1));
    spec.permissionClaims = out;
  } else takeAnnotation(o, EXPORT_CLAIMS_V1);
  o.spec = spec;
  return o;
}

export function apiExportToV1alpha2(v1: KubeObject): KubeObject {
  const o = structuredClone(v1);
  const spec = (o.spec ?? {}) as JsonObject;
  const latest = (spec.latestResourceSchemas ?? []) as string[];
  delete spec.latestResourceSchemas;
  const resources: JsonObject[] = latest.map(resourceOfSchemaName);
  resources.push(...(takeAnnotation<JsonObject[]>(o, RESOURCE_SCHEMAS) ?? []));
  if (resources.length) spec.resources = resources;
  if (Array.isArray(spec.permissionClaims)) {
    const v1claims = spec.permissionClaims as Claim[];
    if (v1claims.length) setAnnotation(o, EXPORT_CLAIMS_V1, v1claims);
    const out = v1claims.map((c) => claimToV2(c, false));
    restoreV2Fields(out, takeAnnotation<Claim[]>(o, EXPORT_CLAIMS));
    spec.permissionClaims = out;
  } else takeAnnotation(o, EXPORT_CLAIMS);
  o.spec = spec;
  return o;
}

export function apiBindingToV1alpha1(stored: KubeObject): KubeObject {
  const o = structuredClone(stored);
  const spec = (o.spec ?? {}) as JsonObject;
  if (Array.isArray(spec.permissionClaims)) {
    const { out, overhanging } = claimsDown(spec.permissionClaims as Claim[], true);
    if (overhanging.length) setAnnotation(o, BINDING_CLAIMS, overhanging);
    restoreV1Fields(out, takeAnnotation<Claim[]>(o, EXPORT_CLAIMS_V1));
    spec.permissionClaims = out;
  } else takeAnnotation(o, EXPORT_CLAIMS_V1);
  const status = o.status as JsonObject | undefined;
  if (status) {
    for (const [field, ann, annV1, scoped] of [
      ['exportPermissionClaims', STATUS_EXPORT_CLAIMS, STATUS_EXPORT_CLAIMS_V1, false],
      ['appliedPermissionClaims', STATUS_APPLIED_CLAIMS, STATUS_APPLIED_CLAIMS_V1, true],
    ] as const) {
      if (!Array.isArray(status[field])) continue;
      const { out, overhanging } = claimsDown(status[field] as Claim[], scoped);
      if (overhanging.length) setAnnotation(o, ann, overhanging);
      restoreV1Fields(out, takeAnnotation<Claim[]>(o, annV1));
      // v1alpha1's status claims have no state.
      for (const c of out) delete c.state;
      status[field] = out;
    }
  }
  return o;
}

export function apiBindingToV1alpha2(v1: KubeObject): KubeObject {
  const o = structuredClone(v1);
  const spec = (o.spec ?? {}) as JsonObject;
  if (Array.isArray(spec.permissionClaims)) {
    const v1claims = spec.permissionClaims as Claim[];
    if (v1claims.length) setAnnotation(o, EXPORT_CLAIMS_V1, v1claims);
    const out = v1claims.map((c) => claimToV2(c, true));
    restoreV2Fields(out, takeAnnotation<Claim[]>(o, BINDING_CLAIMS));
    spec.permissionClaims = out;
  } else takeAnnotation(o, BINDING_CLAIMS);
  const status = o.status as JsonObject | undefined;
  if (status) {
    for (const [field, ann, annV1, scoped] of [
      ['exportPermissionClaims', STATUS_EXPORT_CLAIMS, STATUS_EXPORT_CLAIMS_V1, false],
      ['appliedPermissionClaims', STATUS_APPLIED_CLAIMS, STATUS_APPLIED_CLAIMS_V1, true],
    ] as const) {
      if (!Array.isArray(status[field])) continue;
      const v1claims = status[field] as Claim[];
      if (v1claims.length) setAnnotation(o, annV1, v1claims);
      const out = v1claims.map((c) => claimToV2(c, scoped));
      restoreV2Fields(out, takeAnnotation<Claim[]>(o, ann));
      status[field] = out;
    }
  }
  if (annotationsOf(o) && Object.keys(annotationsOf(o)).length === 0) delete o.metadata!.annotations;
  return o;
}
