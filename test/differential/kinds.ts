/**
 * The kinds the differential suite generates cases for: every kind both kube-apiserver and atrium's root workspace
 * serve in the generic control plane, each with its REST path, catalog type and a valid object to vary.
 */
import { builtinCatalog } from '../../src/apimachinery/schema/builtin/index.js';
import type { TypeDescriptor } from '../../src/apimachinery/schema/types.js';
import { NS, type KindUnderTest } from './kind-types.js';
import { WORKLOAD_KINDS } from './workload-kinds.js';

export { NS, type KindUnderTest };

const b64 = (s: string) => Buffer.from(s).toString('base64');


function collection(apiVersion: string, resource: string, namespaced: boolean): string {
  const prefix = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return namespaced ? `${prefix}/namespaces/${NS}/${resource}` : `${prefix}/${resource}`;
}

/** The kinds with `valid` returning a fresh deep copy each time (the generator edits what it gets). */
function fresh(k: KindUnderTest): KindUnderTest {
  const valid = k.valid;
  return { ...k, valid: (name) => JSON.parse(JSON.stringify(valid(name))) as Record<string, any> };
}

export function collectionPath(k: KindUnderTest): string {
  return collection(k.apiVersion, k.resource, k.namespaced);
}

export function objectPath(k: KindUnderTest, name: string): string {
  return `${collectionPath(k)}/${name}`;
}

const meta = (k: { namespaced: boolean }, name: string, extra: Record<string, unknown> = {}) =>
  k.namespaced ? { name, namespace: NS, ...extra } : { name, ...extra };

const rule = { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'], resourceNames: ['a'] };

const CONTROL_PLANE_KINDS: KindUnderTest[] = [
  {
    kind: 'ConfigMap', apiVersion: 'v1', resource: 'configmaps', namespaced: true, type: 'io.k8s.api.core.v1.ConfigMap',
    valid: (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta({ namespaced: true }, name, { labels: { app: 'diff' } }), data: { a: '1', 'b.txt': 'two' }, binaryData: { c: b64('three') } }),
  },
  {
    kind: 'Secret', apiVersion: 'v1', resource: 'secrets', namespaced: true, type: 'io.k8s.api.core.v1.Secret',
    valid: (name) => ({ apiVersion: 'v1', kind: 'Secret', metadata: meta({ namespaced: true }, name), type: 'Opaque', data: { a: b64('1') }, stringData: { b: 'two' } }),
  },
  {
    kind: 'ServiceAccount', apiVersion: 'v1', resource: 'serviceaccounts', namespaced: true, type: 'io.k8s.api.core.v1.ServiceAccount',
    valid: (name) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta({ namespaced: true }, name), secrets: [{ name: 's1' }], imagePullSecrets: [{ name: 'p1' }], automountServiceAccountToken: false }),
  },
  {
    kind: 'Namespace', apiVersion: 'v1', resource: 'namespaces', namespaced: false, type: 'io.k8s.api.core.v1.Namespace',
    valid: (name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { team: 'a' } }, spec: { finalizers: ['kubernetes'] } }),
  },
  {
    kind: 'Role', apiVersion: 'rbac.authorization.k8s.io/v1', resource: 'roles', namespaced: true, type: 'io.k8s.api.rbac.v1.Role',
    valid: (name) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta({ namespaced: true }, name), rules: [rule] }),
  },
  {
    kind: 'ClusterRole', apiVersion: 'rbac.authorization.k8s.io/v1', resource: 'clusterroles', namespaced: false, type: 'io.k8s.api.rbac.v1.ClusterRole',
    valid: (name) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules: [rule, { nonResourceURLs: ['/healthz'], verbs: ['get'] }] }),
  },
  {
    kind: 'RoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1', resource: 'rolebindings', namespaced: true, type: 'io.k8s.api.rbac.v1.RoleBinding',
    valid: (name) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: meta({ namespaced: true }, name),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: NS }, { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
    }),
  },
  {
    kind: 'ClusterRoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1', resource: 'clusterrolebindings', namespaced: false, type: 'io.k8s.api.rbac.v1.ClusterRoleBinding',
    valid: (name) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' }],
    }),
  },
  {
    kind: 'Lease', apiVersion: 'coordination.k8s.io/v1', resource: 'leases', namespaced: true, type: 'io.k8s.api.coordination.v1.Lease',
    valid: (name) => ({
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta({ namespaced: true }, name),
      spec: { holderIdentity: 'h1', leaseDurationSeconds: 15, acquireTime: '2026-01-02T03:04:05.000000Z', renewTime: '2026-01-02T03:04:06.000000Z', leaseTransitions: 2 },
    }),
  },
  {
    kind: 'CustomResourceDefinition', apiVersion: 'apiextensions.k8s.io/v1', resource: 'customresourcedefinitions', namespaced: false,
    type: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
    valid: (name) => {
      // `name` is the plural; a CRD is named <plural>.<group>.
      const kind = name[0]!.toUpperCase() + name.slice(1);
      return {
        apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${name}.diff.example.com` },
        spec: {
          group: 'diff.example.com', scope: 'Namespaced',
          names: { plural: name, singular: `${name}x`, kind, listKind: `${kind}List`, shortNames: [`${name}s`], categories: ['all'] },
          versions: [{
            name: 'v1', served: true, storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 0 }, image: { type: 'string' } }, required: ['image'] } } } },
            subresources: { status: {} },
            additionalPrinterColumns: [{ name: 'Image', type: 'string', jsonPath: '.spec.image' }],
          }],
        },
      };
    },
  },
];

/**
 * The kinds under test: the generic control plane's (compared with atrium's root workspace), or with
 * ATRIUM_DIFF_KINDS=workloads the workload kinds of ./workload-kinds.ts and ConfigMaps (which the metadata cases use),
 * compared with a simulated cluster's API (./targets.ts).
 */
export const KINDS: KindUnderTest[] = (process.env.ATRIUM_DIFF_KINDS === 'workloads' ? [...WORKLOAD_KINDS, CONTROL_PLANE_KINDS.find((k) => k.kind === 'ConfigMap')!] : CONTROL_PLANE_KINDS).map(fresh);

/** The objects' name of a CRD case: a CRD is named <plural>.diff.example.com. */
export function storedName(k: KindUnderTest, name: string): string {
  return k.kind === 'CustomResourceDefinition' ? `${name}.diff.example.com` : name;
}

export function typeOf(name: string): TypeDescriptor {
  const t = builtinCatalog.get(name);
  if (!t) throw new Error(`type ${name} is not in the catalog`);
  return t;
}
