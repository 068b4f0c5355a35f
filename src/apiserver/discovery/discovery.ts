import { createHash } from 'node:crypto';
import type { APIResourceDescriptor, APISubresourceDescriptor } from '../../apimachinery/api-resource.js';
import { groupVersionString } from '../../apimachinery/api-resource.js';

/** Kubernetes version ordering: GA > beta > alpha, higher numbers first (v2 > v1 > v1beta2 > v1beta1 > v1alpha1). */
export function compareKubeAwareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return { ok: false, major: 0, stage: 0, minor: 0 };
    return { ok: true, major: Number(m[1]), stage: m[2] === 'alpha' ? 1 : m[2] === 'beta' ? 2 : 3, minor: Number(m[3] ?? 0) };
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa.ok !== pb.ok) return pa.ok ? -1 : 1;
  if (!pa.ok) return a < b ? -1 : a > b ? 1 : 0;
  if (pa.stage !== pb.stage) return pb.stage - pa.stage;
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}

interface GroupVersions {
  name: string;
  versions: string[]; // preferred first
}

/** Groups in the order kube-apiserver lists them: core first, then built-in groups by priority, then the rest by name. */
const groupPriority = [
  '',
  'apiregistration.k8s.io',
  'apps',
  'events.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'node.k8s.io',
  'discovery.k8s.io',
  'flowcontrol.apiserver.k8s.io',
];

export function groupsOf(resources: APIResourceDescriptor[]): GroupVersions[] {
  const byGroup = new Map<string, Set<string>>();
  for (const r of resources) {
    let s = byGroup.get(r.group);
    if (!s) byGroup.set(r.group, (s = new Set()));
    s.add(r.version);
  }
  const groups = [...byGroup.entries()].map(([name, vs]) => ({ name, versions: [...vs].sort(compareKubeAwareVersions) }));
  const rank = (g: string) => {
    const i = groupPriority.indexOf(g);
    return i < 0 ? groupPriority.length : i;
  };
  groups.sort((a, b) => rank(a.name) - rank(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return groups;
}

/**
 * The storage version's `group/version/kind` hashed with SHA-256, its first 8 bytes in standard base64 (with
 * padding). Where kube-apiserver stores a resource at another group/version than it serves it, its hash shows that:
 * CustomResourceDefinitions are kept as apiextensions.k8s.io/v1beta1, events.k8s.io Events as core v1 Events.
 */
const STORAGE_GROUP_VERSIONS: Record<string, string> = {
  'apiextensions.k8s.io/CustomResourceDefinition': 'apiextensions.k8s.io/v1beta1',
  'events.k8s.io/Event': '/v1',
};

function storageVersionHash(r: APIResourceDescriptor): string {
  const gv = STORAGE_GROUP_VERSIONS[`${r.group}/${r.kind}`] ?? `${r.group}/${r.version}`;
  return createHash('sha256').update(`${gv}/${r.kind}`).digest().subarray(0, 8).toString('base64');
}

/** APIResourceList (legacy per-GV discovery); field order matters to some scripts (name, singularName, namespaced, kind, verbs...). */
export function apiResourceList(group: string, version: string, resources: APIResourceDescriptor[]): unknown {
  const list: unknown[] = [];
  const listed = resources.filter((x) => x.group === group && x.version === version);
  // kube-apiserver's installer registers a built-in group's paths sorted (bindings, componentstatuses, configmaps, ...),
  // and lists them in that order; custom resources keep theirs.
  if (listed.every((r) => r.strategicMergePatch)) listed.sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  for (const r of listed) {
    const entry: Record<string, unknown> = { name: r.resource, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: r.verbs };
    if (r.shortNames.length) entry.shortNames = r.shortNames;
    if (r.categories.length) entry.categories = r.categories;
    if (!r.unstored) entry.storageVersionHash = storageVersionHash(r);
    list.push(entry);
    // A built-in kind's subresources by name, as kube-apiserver's installer lists them; a custom resource's as the
    // CRD has them.
    const subresources = r.strategicMergePatch ? [...r.subresources].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) : r.subresources;
    for (const s of subresources) {
      const sub: Record<string, unknown> = { name: `${r.resource}/${s.name}`, singularName: '', namespaced: r.namespaced };
      if (s.group !== undefined) sub.group = s.group;
      if (s.version !== undefined) sub.version = s.version;
      sub.kind = s.kind;
      sub.verbs = s.verbs;
      list.push(sub);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersionString(group, version), resources: list };
}

export function apiVersions(serverAddress: string): unknown {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function apiGroupEntry(g: GroupVersions): Record<string, unknown> {
  const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

export function apiGroupList(resources: APIResourceDescriptor[]): unknown {
  const groups = groupsOf(resources).filter((g) => g.name !== '');
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(apiGroupEntry) };
}

export function apiGroup(name: string, resources: APIResourceDescriptor[]): unknown | undefined {
  const g = groupsOf(resources).find((x) => x.name === name && name !== '');
  if (!g) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroupEntry(g) };
}

/** Aggregated discovery (apidiscovery.k8s.io v2 / v2beta1): /api holds the core group, /apis every other group. */
export function aggregatedDiscovery(resources: APIResourceDescriptor[], core: boolean, version: 'v2' | 'v2beta1'): unknown {
  const groups = groupsOf(resources).filter((g) => (core ? g.name === '' : g.name !== ''));
  const items = groups.map((g) => ({
    metadata: core ? { creationTimestamp: null } : { name: g.name, creationTimestamp: null },
    versions: g.versions.map((v) => ({
      version: v,
      resources: resources
        .filter((r) => r.group === g.name && r.version === v)
        .sort((a, b) => (a.resource < b.resource ? -1 : 1))
        .map((r) => {
          const builtIn = r.strategicMergePatch;
          const e: Record<string, unknown> = {
            resource: r.resource,
            // kube-apiserver converts its built-in (legacy) lists, whose resources leave group and version empty;
            // the CRD handler fills them in for custom resources
            responseKind: { group: builtIn ? '' : r.group, version: builtIn ? '' : r.version, kind: r.kind },
            scope: r.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: r.singular,
            verbs: r.verbs,
          };
          if (r.shortNames.length) e.shortNames = r.shortNames;
          if (r.categories.length) e.categories = r.categories;
          if (r.subresources.length) {
            // a built-in kind's subresources by name (as its sorted legacy list has them); a custom resource's as the CRD has them (status, scale)
            const subresources = builtIn ? [...r.subresources].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) : r.subresources;
            e.subresources = subresources.map((s) => ({
              subresource: s.name,
              responseKind: { group: s.group ?? (builtIn ? '' : r.group), version: s.version ?? (builtIn ? '' : r.version), kind: s.kind },
              verbs: s.verbs,
            }));
          }
          return e;
        }),
      freshness: 'Current',
    })),
  }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

export function etagOf(body: string): string {
  return `"${createHash('sha512').update(body).digest('hex')}"`;
}

/**
 * What discovery says of the streaming subresources a connect handler answers (connect.ts), as kube-apiserver lists
 * them: the options kind each takes and its verbs. Only these are listed; other connect handlers (computed views)
 * stand for whole resources, which the registry lists.
 */
const CONNECT_SUBRESOURCES: Record<string, Pick<APISubresourceDescriptor, 'kind' | 'verbs'>> = {
  '/pods/attach': { kind: 'PodAttachOptions', verbs: ['create', 'get'] },
  '/pods/exec': { kind: 'PodExecOptions', verbs: ['create', 'get'] },
  '/pods/log': { kind: 'Pod', verbs: ['get'] },
  '/pods/portforward': { kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
  // The proxy connecters take GET, POST, PUT, PATCH, DELETE (and HEAD, OPTIONS, which add no verb).
  '/pods/proxy': { kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
  '/services/proxy': { kind: 'ServiceProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
};

/**
 * `resources` with the streaming subresources the given connect handlers serve added to the resources they belong to
 * (pods/log, exec, attach, portforward, proxy wherever Pods are served with those handlers; services/proxy), for discovery; the registry's
 * descriptors are left untouched.
 */
export function withConnectSubresources(resources: APIResourceDescriptor[], connect: readonly { group: string; resource: string; subresource: string }[]): APIResourceDescriptor[] {
  if (connect.length === 0) return resources;
  return resources.map((r) => {
    const extra = connect
      .filter((h) => h.group === r.group && h.resource === r.resource && h.subresource && !r.subresources.some((x) => x.name === h.subresource))
      .flatMap((h) => {
        const d = CONNECT_SUBRESOURCES[`${h.group}/${h.resource}/${h.subresource}`];
        return d ? [{ name: h.subresource, ...d }] : [];
      });
    return extra.length ? { ...r, subresources: [...r.subresources, ...extra] } : r;
  });
}
