/**
 * ResourceRegistry with several dynamic sources: a source added `first` is consulted before the others, and where two
 * sources serve the same group/resource in a logical cluster the earlier one's definitions (every version) hide the
 * later one's (native workload types over a negotiated CRD of the same name); `/clusters/*` serves each source's
 * wildcard resources (root's when it declares none); storedResources adds what a source serves elsewhere.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineBuiltin } from '../../../src/registry/builtin/define.js';
import { ResourceRegistry, type DynamicResourceSource } from '../../../src/registry/resource-registry.js';
import type { ResourceDefinition } from '../../../src/registry/rest.js';
import type { Storage } from '../../../src/storage/interface.js';
import type { WatchCache } from '../../../src/storage/cacher/watch-cache.js';

const def = (group: string, resource: string, version = 'v1'): ResourceDefinition =>
  defineBuiltin({ group, version, resource, kind: resource[0]!.toUpperCase() + resource.slice(1, -1), namespaced: true, definitionName: `test.${group}.${version}.${resource}` });

const builtin = def('', 'configmaps');
const nativeDeployments = def('apps', 'deployments');
const nativePods = def('', 'pods');
const crdDeployments = def('apps', 'deployments');
const crdDeploymentsBeta = def('apps', 'deployments', 'v1beta1');
const crdWidgets = def('example.com', 'widgets');

/** A source serving `byCluster[cluster]`, and `wildcard` under /clusters/* when given. */
function source(byCluster: Record<string, ResourceDefinition[]>, wildcard?: ResourceDefinition[]): DynamicResourceSource {
  return { resources: (c) => byCluster[c] ?? [], ...(wildcard ? { wildcardResources: () => wildcard } : {}) };
}

function registry(): ResourceRegistry {
  const r = new ResourceRegistry({} as Storage, {} as WatchCache);
  r.registerBuiltin(builtin);
  return r;
}

const names = (defs: ResourceDefinition[]) => defs.map((d) => `${d.group}/${d.version}/${d.resource}`);

describe('ResourceRegistry sources', () => {
  it('a source added first hides the same group/resource of later sources (every version), whatever the order of adding', () => {
    const r = registry();
    r.addSource(source({ a: [crdDeployments, crdDeploymentsBeta, crdWidgets], b: [crdDeployments] }));
    r.addSource(source({ a: [nativeDeployments, nativePods] }, [nativeDeployments, nativePods]), { first: true });
    assert.deepEqual(names(r.resources('a')), ['/v1/configmaps', 'apps/v1/deployments', '/v1/pods', 'example.com/v1/widgets']);
    assert.equal(r.resources('a')[1], nativeDeployments);
    assert.deepEqual(names(r.resources('b')), ['/v1/configmaps', 'apps/v1/deployments'], 'where only the CRD exists it serves');
    assert.equal(r.resources('b')[1], crdDeployments);
    assert.deepEqual(names(r.resources('c')), ['/v1/configmaps']);
  });

  it('/clusters/* serves the wildcard resources of a source, root\'s for one that declares none', () => {
    const r = registry();
    r.addSource(source({ root: [crdWidgets], a: [crdDeployments] }));
    r.addSource(source({}, [nativeDeployments, nativePods]), { first: true });
    assert.deepEqual(names(r.wildcardResources()), ['/v1/configmaps', 'apps/v1/deployments', '/v1/pods', 'example.com/v1/widgets']);
    assert.equal(r.wildcardResources()[1], nativeDeployments);
  });

  it('storedResources adds what a source serves in some cluster to what this cluster serves', () => {
    const r = registry();
    r.addSource(source({ a: [crdWidgets] }));
    r.addSource(source({}, [nativeDeployments, nativePods]), { first: true });
    assert.deepEqual(names(r.storedResources('a')), ['/v1/configmaps', 'example.com/v1/widgets', 'apps/v1/deployments', '/v1/pods']);
    assert.deepEqual(names(r.resources('a')), ['/v1/configmaps', 'example.com/v1/widgets']);
  });
});
