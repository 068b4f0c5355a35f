/**
 * kcp's apis.kcp.io API as atrium serves it: the shapes of APIResourceSchema (v1alpha1), APIExport and APIBinding
 * (v1alpha2 is the stored shape; v1alpha1 converts, see conversion.ts) and APIExportEndpointSlice (v1alpha1), the
 * well-known names (finalizer, labels, condition types and reasons, as github.com/kcp-dev/sdk apis/apis declares them)
 * and the hashes kcp derives from them. Field names are kcp's JSON names; the words here are our own.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../apimachinery/object.js';

export const APIS_GROUP = 'apis.kcp.io';

/** Held on every APIBinding until the objects of its bound resources are gone (kcp's apibindingfinalizer plugin). */
export const APIBINDING_FINALIZER = 'apis.kcp.io/apibinding-finalizer';
/** On APIBindings: a hash of the export's logical cluster and name, for finding an export's bindings (kcp's admission sets it). */
export const EXPORT_LABEL = 'internal.apis.kcp.io/export';
/** An APIExport labelled with it `true` gets no APIExportEndpointSlice of its own. */
export const SKIP_ENDPOINTSLICE_ANNOTATION = 'apiexports.apis.kcp.io/skip-endpointslice';
/** Where an APIExport's identity secret lives when spec.identity names none (kcp's apiexport controller). */
export const IDENTITY_NAMESPACE = 'kcp-system';

export interface GroupResource {
  group?: string;
  resource: string;
}

/** A label selector plus kcp's `matchAll`. */
export interface PermissionClaimSelector {
  matchAll?: boolean;
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** v1alpha2 PermissionClaim. */
export interface PermissionClaim extends GroupResource {
  verbs?: string[];
  identityHash?: string;
  defaultSelector?: PermissionClaimSelector;
}

/** v1alpha2 AcceptablePermissionClaim. */
export interface AcceptablePermissionClaim extends PermissionClaim {
  selector?: PermissionClaimSelector;
  state?: 'Accepted' | 'Rejected' | string;
}

export interface ResourceSchema {
  name: string;
  group: string;
  schema: string;
  storage?: { crd?: Record<string, never>; virtual?: unknown };
}

export interface APIExport extends KubeObject {
  spec?: {
    resources?: ResourceSchema[];
    identity?: { secretRef?: { namespace?: string; name?: string } };
    maximalPermissionPolicy?: { local?: Record<string, never> };
    permissionClaims?: PermissionClaim[];
  };
  status?: { identityHash?: string; conditions?: KcpCondition[]; virtualWorkspaces?: { url: string }[] };
}

export interface BoundAPIResource {
  group: string;
  resource: string;
  schema: { name: string; UID: string; identityHash: string };
  storageVersions?: string[];
}

export interface APIBinding extends KubeObject {
  spec?: {
    reference?: { export?: { path?: string; name?: string } };
    permissionClaims?: AcceptablePermissionClaim[];
  };
  status?: {
    apiExportClusterName?: string;
    boundResources?: BoundAPIResource[];
    phase?: 'Binding' | 'Bound' | '';
    conditions?: KcpCondition[];
    appliedPermissionClaims?: AcceptablePermissionClaim[];
    exportPermissionClaims?: PermissionClaim[];
  };
}

export interface APIResourceVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  /** The version's openAPIV3Schema itself (not wrapped as in a CRD). */
  schema?: Record<string, unknown>;
  subresources?: Record<string, unknown>;
  additionalPrinterColumns?: Record<string, unknown>[];
}

export interface APIResourceSchema extends KubeObject {
  spec?: {
    group: string;
    names: { plural?: string; singular?: string; kind?: string; listKind?: string; shortNames?: string[]; categories?: string[] };
    scope: 'Namespaced' | 'Cluster';
    versions: APIResourceVersion[];
    nameValidation?: string;
    conversion?: { strategy: string };
  };
}

export interface KcpCondition {
  type: string;
  status: string;
  severity?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** A claim's group/resource/identity as kcp's PermissionClaim.String(): `resource`, `resource.group[:identity]`. */
export function claimString(c: PermissionClaim): string {
  if (!c.group) return c.resource;
  return c.identityHash ? `${c.resource}.${c.group}:${c.identityHash}` : `${c.resource}.${c.group}`;
}

/** Whether two claims name the same group, resource and identity (kcp's EqualGRI). */
export function sameClaim(a: PermissionClaim, b: PermissionClaim): boolean {
  return (a.group ?? '') === (b.group ?? '') && a.resource === b.resource && (a.identityHash ?? '') === (b.identityHash ?? '');
}

/** The identity hash of an identity key: the hex SHA-256 of the secret's key bytes, as kcp computes it. */
export function identityHashOf(key: Buffer | string): string {
  return createHash('sha256').update(key).digest('hex');
}

const BASE62 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * kcp's Base62Sha224: the SHA-224 of the text as a big number written in base 62 (Go's big.Int.Text(62) alphabet:
 * digits, lower case, upper case).
 */
export function base62Sha224(text: string): string {
  let n = BigInt(`0x${createHash('sha224').update(text).digest('hex')}`);
  if (n === 0n) return '0';
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)]! + out;
    n /= 62n;
  }
  return out;
}

/** The value of the `internal.apis.kcp.io/export` label of a binding to `<cluster>:<export>` (ToAPIBindingExportLabelValue). */
export function exportLabelValue(exportCluster: string, exportName: string): string {
  return base62Sha224(`${exportCluster}:${exportName}`);
}

/** The storage resource of a bound resource: its plural and the export's identity, so two exports never mix. */
export function boundStorageResource(resource: string, identityHash: string): string {
  return `${resource}:${identityHash}`;
}
