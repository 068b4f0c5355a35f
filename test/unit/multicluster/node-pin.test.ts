/**
 * decisions/node-pin.ts: which cluster a pod spec pinned to workspace node names (`<cluster>--<node>`) goes to, and
 * the copy's spec naming the cluster's own nodes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nodePinOf, pinnedNodeNames, toClusterNodeNames } from '../../../src/multicluster/decisions/node-pin.js';

const clusters = ['east', 'west', 'east--b'];
const hostnameIn = (...values: string[]) => ({ key: 'kubernetes.io/hostname', operator: 'In', values });
const required = (...terms: unknown[]) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } });

describe('node pins', () => {
  it('reads nodeName, then the hostname selector, then required affinity whose every term names nodes', () => {
    assert.deepEqual(pinnedNodeNames({ nodeName: 'east--n1', nodeSelector: { 'kubernetes.io/hostname': 'west--n2' } }), ['east--n1']);
    assert.deepEqual(pinnedNodeNames({ nodeSelector: { 'kubernetes.io/hostname': 'west--n2', disk: 'ssd' } }), ['west--n2']);
    assert.deepEqual(pinnedNodeNames({ affinity: required({ matchExpressions: [hostnameIn('east--n1', 'east--n2')] }, { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['east--n3'] }] }) }), ['east--n1', 'east--n2', 'east--n3']);
    // A term without a name requirement lets the pods go anywhere it selects: no pin.
    assert.equal(pinnedNodeNames({ affinity: required({ matchExpressions: [hostnameIn('east--n1')] }, { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }) }), undefined);
    // Requirements of one term are ANDed.
    assert.deepEqual(pinnedNodeNames({ affinity: required({ matchExpressions: [hostnameIn('east--n1', 'east--n2'), hostnameIn('east--n2')] }) }), ['east--n2']);
    assert.equal(pinnedNodeNames({ containers: [] }), undefined);
  });

  it('goes to the one cluster whose nodes it names (the longest SyncTarget name first)', () => {
    assert.deepEqual(nodePinOf({ nodeName: 'west--n2' }, clusters), { cluster: 'west', nodes: ['n2'] });
    assert.deepEqual(nodePinOf({ nodeName: 'east--b--n1' }, clusters), { cluster: 'east--b', nodes: ['n1'] });
    assert.deepEqual(nodePinOf({ affinity: required({ matchExpressions: [hostnameIn('east--n1', 'east--n2')] }) }, clusters), { cluster: 'east', nodes: ['n1', 'n2'] });
  });

  it('refuses names of several clusters or of a cluster outside the namespace, and ignores names of no workspace node', () => {
    const split = nodePinOf({ affinity: required({ matchExpressions: [hostnameIn('east--n1', 'west--n2')] }) }, clusters);
    assert.deepEqual(split, { refused: 'its pods are pinned to nodes "east--n1", "west--n2", which are not all of one cluster' });
    const elsewhere = nodePinOf({ nodeName: 'west--n2' }, ['east'], ['east', 'west']);
    assert.deepEqual(elsewhere, { refused: 'its pods are pinned to node "west--n2" of cluster "west", which is not among its namespace\'s clusters ("east")' });
    assert.equal(nodePinOf({ nodeName: 'node-1' }, clusters), undefined);
  });

  it('the copy names this cluster\'s nodes by their own names, everywhere a node name is matched; others stay', () => {
    const spec = {
      nodeName: 'east--n1',
      nodeSelector: { 'kubernetes.io/hostname': 'east--n1', disk: 'east--n1' },
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [hostnameIn('east--n1', 'west--n2'), { key: 'zone', operator: 'In', values: ['east--n1'] }], matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['east--n9'] }] }] },
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [hostnameIn('east--n3')] } }],
        },
      },
    };
    toClusterNodeNames(spec, 'east');
    assert.deepEqual(spec, {
      nodeName: 'n1',
      nodeSelector: { 'kubernetes.io/hostname': 'n1', disk: 'east--n1' },
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [hostnameIn('n1', 'west--n2'), { key: 'zone', operator: 'In', values: ['east--n1'] }], matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n9'] }] }] },
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [hostnameIn('n3')] } }],
        },
      },
    });
  });
});
