import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { syncerRules } from '../../../src/multicluster/cli/workload-sync.js';
import { defaultSyncedResources, parseGroupResource } from '../../../src/multicluster/api/types.js';
import { kindPlacements } from '../../../src/multicluster/api/kind-placement.js';

describe('kubectl atrium workload sync: the syncer\'s RBAC covers every kind synced by default', () => {
  it('grants read, write and status on each default resource', () => {
    const rules = syncerRules('pc1', defaultSyncedResources) as unknown as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    for (const name of defaultSyncedResources) {
      const { group, resource } = parseGroupResource(name);
      const rule = rules.find((r) => r.apiGroups.includes(group) && r.resources.includes(resource));
      assert.ok(rule, `no rule for ${name}`);
      assert.ok(rule.resources.includes(`${resource}/status`), `no status for ${name}`);
      for (const verb of ['get', 'list', 'watch', 'update', 'patch']) assert.ok(rule.verbs.includes(verb), `${name}: ${verb}`);
    }
  });

  it('syncs by default every kind the placement table places, and none the clusters keep for themselves', () => {
    for (const k of kindPlacements) {
      const name = k.group ? `${k.resource}.${k.group}` : k.resource;
      assert.equal(defaultSyncedResources.includes(name), k.mode !== 'None', name);
    }
  });

  it('grants what the mirrors need: pods and their status written, a CronJob\'s Jobs, events, the ReplicaSets mirrors are owned by', () => {
    const rules = syncerRules('pc1', defaultSyncedResources) as unknown as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    const allows = (group: string, resource: string, verb: string) => rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));
    for (const verb of ['create', 'update', 'patch', 'delete']) {
      assert.ok(allows('', 'pods', verb), `pods ${verb}`);
      assert.ok(allows('', 'events', verb), `events ${verb}`);
      assert.ok(allows('batch', 'jobs', verb), `jobs ${verb}`);
    }
    assert.ok(allows('', 'pods/status', 'patch'));
    // The mirror writer writes a mirror's ephemeral containers (kubectl debug) through their subresource.
    assert.ok(allows('', 'pods/ephemeralcontainers', 'patch'));
    assert.ok(allows('', 'pods/eviction', 'create'));
    assert.ok(allows('batch', 'jobs/status', 'patch'));
    for (const verb of ['list', 'watch']) assert.ok(allows('', 'events', verb), `events ${verb}`);
    assert.ok(allows('apps', 'replicasets', 'list'));
    // Without pods synced, no pod may be written.
    const none = syncerRules('pc1', ['deployments.apps']) as unknown as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    assert.ok(!none.some((r) => r.resources.includes('pods') && r.verbs.includes('create')));
  });
});
