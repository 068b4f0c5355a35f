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
});
