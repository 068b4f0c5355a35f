/**
 * Discovery through the API (client-go's ServerResources / ServerPreferredResources): what a logical cluster serves,
 * including custom resources, so controllers that act on "every resource" need no compiled-in list.
 */
import { StatusError } from '../apimachinery/status.js';
import type { GroupVersionResource } from './resource.js';
import type { RestClient } from './rest-client.js';

export interface DiscoveredResource extends GroupVersionResource {
  kind: string;
  namespaced: boolean;
  verbs: string[];
  /** True when this version is the group's preferred version. */
  preferred: boolean;
  /** As discovery lists them (`deploy`; `all`), when it lists any. */
  shortNames?: string[];
  categories?: string[];
}

export interface DiscoveryResult {
  resources: DiscoveredResource[];
  /** Group versions whose resource list could not be fetched, with the error: `apps/v1` → message. */
  failedGroups: Map<string, string>;
  /** Group version strings that did not parse (kept for NamespaceDeletionGroupVersionParsingFailure). */
  unparsableGroupVersions: string[];
}

interface APIResourceList {
  groupVersion: string;
  resources: { name: string; kind: string; namespaced: boolean; verbs?: string[]; shortNames?: string[]; categories?: string[] }[];
}

/**
 * Every top-level resource (subresources excluded) of every served group version in `cluster`
 * (`*` asks the wildcard endpoint, which answers for root). A group version that fails is reported in failedGroups
 * and left out; failure to read /api or /apis themselves rejects.
 */
export async function discoverResources(client: RestClient, cluster?: string): Promise<DiscoveryResult> {
  const prefix = cluster ? `/clusters/${cluster}` : '';
  const out: DiscoveryResult = { resources: [], failedGroups: new Map(), unparsableGroupVersions: [] };
  const gvs: { groupVersion: string; preferred: boolean }[] = [];
  const core = (await client.call('GET', `${prefix}/api`)) as { versions?: string[] };
  for (const v of core.versions ?? []) gvs.push({ groupVersion: v, preferred: v === (core.versions ?? [])[0] });
  const groups = (await client.call('GET', `${prefix}/apis`)) as {
    groups?: { name: string; versions: { groupVersion: string }[]; preferredVersion?: { groupVersion: string } }[];
  };
  for (const g of groups.groups ?? []) {
    const preferred = g.preferredVersion?.groupVersion ?? g.versions[0]?.groupVersion;
    for (const v of g.versions) gvs.push({ groupVersion: v.groupVersion, preferred: v.groupVersion === preferred });
  }
  await Promise.all(
    gvs.map(async ({ groupVersion, preferred }) => {
      const parts = groupVersion.split('/');
      if (parts.length > 2 || parts.some((p) => p === '')) {
        out.unparsableGroupVersions.push(groupVersion);
        return;
      }
      const [group, version] = parts.length === 1 ? ['', parts[0]!] : [parts[0]!, parts[1]!];
      const path = group ? `${prefix}/apis/${group}/${version}` : `${prefix}/api/${version}`;
      let list: APIResourceList;
      try {
        list = (await client.call('GET', path)) as APIResourceList;
      } catch (err) {
        out.failedGroups.set(groupVersion, err instanceof StatusError ? err.message : String(err));
        return;
      }
      for (const r of list.resources ?? []) {
        if (r.name.includes('/')) continue;
        out.resources.push({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs ?? [], preferred, ...(r.shortNames?.length ? { shortNames: r.shortNames } : {}), ...(r.categories?.length ? { categories: r.categories } : {}) });
      }
    }),
  );
  out.resources.sort((a, b) => (a.group + '/' + a.resource).localeCompare(b.group + '/' + b.resource) || a.version.localeCompare(b.version));
  return out;
}
