/**
 * Scripted families of #20 (generated from a seed like the others; ids do not depend on it): every patch type with
 * dryRun and fieldValidation, server-side apply conflicts between two field managers, watches (from a
 * resourceVersion, with selectors, bookmarks, a compacted resourceVersion), discovery documents and lifecycle
 * sequences (namespace deletion, deletion propagation, CRD version changes).
 */
import type { HttpResponse } from '../helpers/harness.js';
import { NS } from './kinds.js';
import type { Case, Step } from './generate.js';

const JSON_PATCH = { 'Content-Type': 'application/json-patch+json' };
const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };
const SMP = { 'Content-Type': 'application/strategic-merge-patch+json' };
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
const AGGREGATED = { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' };

const rvOf = (r: HttpResponse | undefined): string => String((r?.json as any)?.metadata?.resourceVersion ?? '');

export function generateScenarios(rnd: () => number): Case[] {
  const cases: Case[] = [];
  let n = 0;
  const fresh = () => `s${(n++).toString().padStart(3, '0')}`;
  const word = () => Array.from({ length: 6 }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(rnd() * 26)]).join('');
  const cmPath = `/api/v1/namespaces/${NS}/configmaps`;
  const cm = (name: string, data: Record<string, string>, labels?: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(labels ? { labels } : {}) },
    data,
  });

  // (a) patches: each case creates its ConfigMap, patches it and reads it back
  const v1 = word();
  const v2 = word();
  const patches: [string, Record<string, string>, unknown, string?][] = [
    ['json/add', JSON_PATCH, [{ op: 'add', path: '/data/b', value: v2 }]],
    ['json/replace-test', JSON_PATCH, [{ op: 'test', path: '/data/a', value: v1 }, { op: 'replace', path: '/data/a', value: v2 }]],
    ['json/test-fails', JSON_PATCH, [{ op: 'test', path: '/data/a', value: 'nope' }]],
    ['json/remove-missing', JSON_PATCH, [{ op: 'remove', path: '/data/zz' }]],
    ['json/bad-op', JSON_PATCH, [{ op: 'frobnicate', path: '/data/a' }]],
    ['json/not-a-list', JSON_PATCH, { op: 'add', path: '/data/a', value: 'x' }],
    ['json/wrong-type', JSON_PATCH, [{ op: 'add', path: '/data/b', value: 7 }]],
    ['json/rename', JSON_PATCH, [{ op: 'replace', path: '/metadata/name', value: 'other' }]],
    ['merge/set', MERGE_PATCH, { data: { b: v2 }, metadata: { labels: { l: v1 } } }],
    ['merge/null-removes', MERGE_PATCH, { data: { a: null } }],
    ['merge/not-json', MERGE_PATCH, '{"data": '],
    ['merge/unknown-field-strict', MERGE_PATCH, { data: { b: v2 }, bogus: 1 }, 'fieldValidation=Strict'],
    ['merge/unknown-field-warn', MERGE_PATCH, { data: { b: v2 }, bogus: 1 }, 'fieldValidation=Warn'],
    ['merge/unknown-field-ignore', MERGE_PATCH, { data: { b: v2 }, bogus: 1 }, 'fieldValidation=Ignore'],
    ['merge/duplicate-field-strict', MERGE_PATCH, `{"data":{"b":"${v1}","b":"${v2}"}}`, 'fieldValidation=Strict'],
    ['merge/dry-run', MERGE_PATCH, { data: { a: v2 } }, 'dryRun=All'],
    ['merge/dry-run-bogus', MERGE_PATCH, { data: { a: v2 } }, 'dryRun=Bogus'],
    ['merge/rv-mismatch', MERGE_PATCH, { metadata: { resourceVersion: '1' }, data: { a: v2 } }],
    ['smp/set', SMP, { data: { b: v2 } }],
    ['smp/replace-map', SMP, { data: { $patch: 'replace', c: v2 } }],
    ['smp/unknown-directive', SMP, { data: { $patch: 'frobnicate' } }],
    ['smp/unknown-field-strict', SMP, { data: { b: v2 }, bogus: 1 }, 'fieldValidation=Strict'],
    ['smp/unknown-field-warn', SMP, { spec: { x: 1 } }, 'fieldValidation=Warn'],
    ['smp/dry-run', SMP, { data: { a: v2 } }, 'dryRun=All'],
    ['apply/no-manager', APPLY, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '<name>' }, data: { a: v2 } }],
    ['apply/manager', APPLY, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '<name>' }, data: { a: v2 } }, 'fieldManager=m1'],
    ['apply/unknown-field-strict', APPLY, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '<name>' }, bogus: 1 }, 'fieldManager=m1&fieldValidation=Strict'],
    ['apply/unknown-field-warn', APPLY, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '<name>' }, bogus: 1 }, 'fieldManager=m1&fieldValidation=Warn'],
    ['apply/dry-run', APPLY, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '<name>' }, data: { a: v2 } }, 'fieldManager=m1&dryRun=All'],
    ['apply/wrong-name', APPLY, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' }, data: { a: v2 } }, 'fieldManager=m1'],
    ['apply/no-kind', APPLY, { metadata: { name: '<name>' }, data: { a: v2 } }, 'fieldManager=m1'],
    ['apply/force-without-conflict', APPLY, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '<name>' }, data: { a: v2 } }, 'fieldManager=m1&force=true'],
    ['unsupported-type/yaml', { 'Content-Type': 'application/yaml' }, { data: { a: v2 } }],
    ['unsupported-type/json', { 'Content-Type': 'application/json' }, { data: { a: v2 } }],
  ];
  for (const [label, headers, patch, query] of patches) {
    const name = fresh();
    const body = typeof patch === 'string' ? patch : JSON.parse(JSON.stringify(patch).split('<name>').join(name));
    cases.push({
      id: `patch/ConfigMap/${label}`,
      family: 'patch',
      steps: [
        { method: 'POST', path: cmPath, body: cm(name, { a: v1 }), headers: { 'User-Agent': 'creator' } },
        { method: 'PATCH', path: `${cmPath}/${name}${query ? `?${query}` : ''}`, body, headers },
        { method: 'GET', path: `${cmPath}/${name}` },
      ],
    });
  }
  // patches of a missing object: refused, except apply, which creates
  for (const [label, headers, query] of [['merge', MERGE_PATCH, ''], ['json', JSON_PATCH, ''], ['smp', SMP, ''], ['apply', APPLY, '?fieldManager=m1']] as const) {
    const name = fresh();
    const body = label === 'json' ? [{ op: 'add', path: '/data', value: { a: v1 } }] : label === 'apply' ? cm(name, { a: v1 }) : { data: { a: v1 } };
    cases.push({
      id: `patch/ConfigMap/missing-object/${label}`,
      family: 'patch',
      steps: [
        { method: 'PATCH', path: `${cmPath}/${name}${query}`, body, headers },
        { method: 'GET', path: `${cmPath}/${name}` },
      ],
    });
  }
  // strategic merge on a list with a merge key (a Role's rules are atomic; a ServiceAccount's secrets merge by name)
  {
    const name = fresh();
    const saPath = `/api/v1/namespaces/${NS}/serviceaccounts`;
    cases.push({
      id: 'patch/ServiceAccount/smp-merge-key',
      family: 'patch',
      steps: [
        { method: 'POST', path: saPath, body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name }, secrets: [{ name: 'a' }, { name: 'b' }] } },
        { method: 'PATCH', path: `${saPath}/${name}`, body: { secrets: [{ name: 'c' }, { name: 'a', $patch: 'delete' }] }, headers: SMP },
        { method: 'PATCH', path: `${saPath}/${name}`, body: { secrets: [{ name: 'd' }] }, headers: MERGE_PATCH },
        { method: 'GET', path: `${saPath}/${name}` },
      ],
    });
  }
  // server-side apply: two managers, conflicts, force, and a manager giving a field up
  for (const force of [false, true]) {
    const name = fresh();
    const applied = (data: Record<string, string>, labels?: Record<string, string>) => cm(name, data, labels);
    cases.push({
      id: `apply/ConfigMap/conflict${force ? '-force' : ''}`,
      family: 'apply',
      steps: [
        { method: 'PATCH', path: `${cmPath}/${name}?fieldManager=alice`, body: applied({ a: v1, b: v1 }), headers: APPLY },
        { method: 'PATCH', path: `${cmPath}/${name}?fieldManager=bob${force ? '&force=true' : ''}`, body: applied({ a: v2, c: v2 }), headers: APPLY },
        { method: 'PATCH', path: `${cmPath}/${name}?fieldManager=bob`, body: applied({ a: v1, c: v2 }), headers: APPLY },
        { method: 'PATCH', path: `${cmPath}/${name}?fieldManager=alice`, body: applied({ b: v1 }, { owner: 'alice' }), headers: APPLY },
        { method: 'GET', path: `${cmPath}/${name}` },
      ],
    });
  }
  {
    const name = fresh();
    cases.push({
      id: 'apply/ConfigMap/update-then-apply-conflict',
      family: 'apply',
      steps: [
        { method: 'POST', path: `${cmPath}?fieldManager=editor`, body: cm(name, { a: v1 }) },
        { method: 'PATCH', path: `${cmPath}/${name}?fieldManager=applier`, body: cm(name, { a: v2 }), headers: APPLY },
        { method: 'PATCH', path: `${cmPath}/${name}?fieldManager=editor`, body: { data: { a: v2 } }, headers: MERGE_PATCH },
        { method: 'PATCH', path: `${cmPath}/${name}?fieldManager=applier`, body: cm(name, { a: v2 }), headers: APPLY },
        { method: 'GET', path: `${cmPath}/${name}` },
      ],
    });
  }

  // (b) watches: each in a namespace of its own, bounded by timeoutSeconds
  const watchQueries: [string, string][] = [
    // older than every event kept: kube-apiserver's watch cache replays its state (it answers 410 Expired only once
    // the window has moved past the resourceVersion, which takes a compaction or thousands of events)
    ['rv-1', '&resourceVersion=1'],
    ['from-rv', ''],
    ['label-selector', '&labelSelector=x%3D2'],
    ['field-selector', '&fieldSelector=metadata.name%3Db'],
    ['bookmarks', '&allowWatchBookmarks=true'],
  ];
  for (const [label, query] of watchQueries) {
    const ns = `w${fresh()}`;
    const p = `/api/v1/namespaces/${ns}/configmaps`;
    cases.push({
      id: `watch/ConfigMap/${label}`,
      family: 'watch',
      steps: [
        { method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } },
        { method: 'POST', path: p, body: cm('a', { a: v1 }, { x: '1' }) },
        { method: 'POST', path: p, body: cm('b', { a: v1 }, { x: '2' }) },
        { method: 'PUT', path: `${p}/a`, body: cm('a', { a: v2 }, { x: '2' }) },
        { method: 'DELETE', path: `${p}/b` },
        { method: 'GET', path: (e) => `${p}?watch=1&timeoutSeconds=1${query.includes('resourceVersion=') ? query : `&resourceVersion=${rvOf(e[1])}${query}`}`, events: true },
      ],
    });
  }
  {
    const ns = `w${fresh()}`;
    const p = `/api/v1/namespaces/${ns}/configmaps`;
    cases.push({
      id: 'watch/ConfigMap/initial-events-end-bookmark',
      family: 'watch',
      steps: [
        { method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } },
        { method: 'POST', path: p, body: cm('a', { a: v1 }) },
        { method: 'GET', path: `${p}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1`, events: true },
        { method: 'GET', path: `${p}?watch=1&sendInitialEvents=true&timeoutSeconds=1`, events: true },
      ],
    });
  }
  const badWatches: [string, string][] = [
    ['rv-text', 'resourceVersion=abc'],
    ['label-invalid', 'labelSelector=x%3D(%3D'],
    ['field-unsupported', 'fieldSelector=data.a%3D1'],
  ];
  for (const [label, query] of badWatches) {
    cases.push({
      id: `watch/ConfigMap/${label}`,
      family: 'watch',
      steps: [{ method: 'GET', path: `${cmPath}?watch=1&${query}&timeoutSeconds=1`, events: true }],
    });
  }

  // (c) discovery
  for (const [label, path] of [
    ['api', '/api'],
    ['apis', '/apis'],
    ['rbac-v1', '/apis/rbac.authorization.k8s.io/v1'],
    ['rbac', '/apis/rbac.authorization.k8s.io'],
    ['coordination-v1', '/apis/coordination.k8s.io/v1'],
    ['events-v1', '/apis/events.k8s.io/v1'],
    ['apiextensions-v1', '/apis/apiextensions.k8s.io/v1'],
    ['missing-group', '/apis/nope.example.com/v1'],
  ] as const) {
    cases.push({ id: `discovery/${label}`, family: 'discovery', steps: [{ method: 'GET', path }] });
    if (label === 'api' || label === 'apis') {
      cases.push({ id: `discovery/${label}-aggregated`, family: 'discovery', steps: [{ method: 'GET', path, headers: AGGREGATED }] });
    }
  }

  // (d) lifecycles: namespace deletion
  {
    const ns = `t${fresh()}`;
    const nsPath = `/api/v1/namespaces/${ns}`;
    cases.push({
      id: 'lifecycle/namespace-terminating',
      family: 'lifecycle',
      steps: [
        { method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } },
        { method: 'DELETE', path: nsPath },
        { method: 'GET', path: nsPath },
        { method: 'POST', path: `${nsPath}/configmaps`, body: cm('late', { a: v1 }) },
        { method: 'DELETE', path: nsPath },
        { method: 'PUT', path: `${nsPath}/finalize`, body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns }, spec: { finalizers: [] } } },
        { method: 'GET', path: nsPath, until: (r) => r.status === 404 },
      ],
    });
  }
  // deletion propagation: the owner's state after each policy (no garbage collector runs on either side)
  for (const policy of ['Foreground', 'Background', 'Orphan']) {
    const owner = fresh();
    const child = fresh();
    cases.push({
      id: `lifecycle/propagation-${policy}`,
      family: 'lifecycle',
      steps: [
        { method: 'POST', path: cmPath, body: cm(owner, { a: v1 }) },
        {
          method: 'POST',
          path: cmPath,
          body: (e: HttpResponse[]) => ({
            ...cm(child, { a: v1 }),
            metadata: { name: child, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid: (e[0]?.json as any)?.metadata?.uid, blockOwnerDeletion: true }] },
          }),
        },
        { method: 'DELETE', path: `${cmPath}/${owner}`, body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: policy } },
        { method: 'GET', path: `${cmPath}/${owner}` },
        { method: 'DELETE', path: `${cmPath}/${owner}?propagationPolicy=Bogus` },
      ],
    });
  }
  // CRD versions: add a version, move the storage version, drop a stored version
  {
    const plural = `v${word()}s`;
    const group = 'lifecycle.example.com';
    const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.${group}`;
    const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } } };
    const version = (name: string, storage: boolean) => ({ name, served: true, storage, schema });
    const crd = (versions: unknown[]) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}` },
      spec: { group, scope: 'Namespaced', names: { plural, singular: plural.slice(0, -1), kind: 'Lifecycle', listKind: 'LifecycleList' }, versions },
    });
    const cr = (v: string) => `/apis/${group}/${v}/namespaces/${NS}/${plural}`;
    cases.push({
      id: 'lifecycle/crd-versions',
      family: 'lifecycle',
      steps: [
        { method: 'POST', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', body: crd([version('v1', true)]) },
        { method: 'POST', path: cr('v1'), body: { apiVersion: `${group}/v1`, kind: 'Lifecycle', metadata: { name: 'one' }, spec: { a: v1 } }, until: (r) => r.status !== 404 },
        { method: 'PATCH', path: crdPath, body: crd([version('v1', false), version('v2', true)]), headers: { ...APPLY }, query: 'fieldManager=m&force=true' } as Step,
        { method: 'GET', path: `${cr('v2')}/one`, until: (r) => r.status !== 404 },
        { method: 'POST', path: cr('v2'), body: { apiVersion: `${group}/v2`, kind: 'Lifecycle', metadata: { name: 'two' }, spec: { a: v2 } } },
        { method: 'GET', path: `${cr('v1')}/two` },
        { method: 'GET', path: crdPath, until: (r) => ((r.json as any)?.status?.storedVersions ?? []).length === 2 },
        { method: 'PATCH', path: crdPath, body: crd([version('v2', true)]), headers: APPLY, query: 'fieldManager=m&force=true' } as Step,
        { method: 'PATCH', path: crdPath, body: crd([version('v1', true), version('v2', true)]), headers: APPLY, query: 'fieldManager=m&force=true' } as Step,
        { method: 'DELETE', path: crdPath },
      ],
    });
  }
  return cases.map((c) => ({
    ...c,
    steps: c.steps.map((s) => {
      const q = (s as any).query as string | undefined;
      if (!q) return s;
      const { query: _q, ...rest } = s as any;
      return { ...rest, path: `${s.path as string}?${q}` } as Step;
    }),
  }));
}

