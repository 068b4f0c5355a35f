/**
 * CRD behaviours that sit between the CRD controller, the store and the subresources: the Established=False
 * `Installing` step before a CRD is served, objects stored as the storage version whatever version they were written
 * through (status.storedVersions kept), the scale-status checks of /status writes, and the table columns of a CRD
 * with a scale subresource but no printer columns.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { objectKey } from '../../src/registry/generic/keys.js';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { createNamespace, openWatch } from './support.js';
import { cronTabCRD } from './crd-fixtures.js';
import { installCRD } from './crd-support.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

let ts: TestServer;
let ns: string;

before(async () => {
  ts = await startTestServer();
  ns = await createNamespace(ts, 'crdsc');
});
after(async () => {
  await ts.stop();
});

/** A CRD whose storage version (v2) is not the first served one. */
function widgetsCRD(): any {
  const schema = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } }, status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } } } };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.storage.example.com' },
    spec: {
      group: 'storage.example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [
        { name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: schema } },
        {
          name: 'v2',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
        },
      ],
    },
  };
}

describe('CRD conditions', () => {
  it('goes through Established=False/Installing before Established=True', async () => {
    const crd = cronTabCRD({ group: 'installing.example.com' });
    const w = await openWatch(ts, `${CRDS}?watch=true&fieldSelector=metadata.name%3Dcrontabs.installing.example.com`);
    try {
      const r = await ts.request('POST', CRDS, crd);
      assert.equal(r.status, 201, r.text);
      let established: any;
      for (;;) {
        const ev: any = await w.next(10_000);
        if (ev.object?.status?.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True')) {
          established = ev;
          break;
        }
      }
      const seen = w.events.map((ev: any) => Object.fromEntries((ev.object?.status?.conditions ?? []).map((c: any) => [c.type, `${c.status}/${c.reason}`])));
      const installing = seen.find((c: Record<string, string>) => c.Established === 'False/Installing');
      assert.ok(installing, `no Installing step in ${JSON.stringify(seen)}`);
      assert.equal(installing!.NamesAccepted, 'True/NoConflicts');
      const final = Object.fromEntries(established.object.status.conditions.map((c: any) => [c.type, c]));
      assert.equal(final.Established.reason, 'InitialNamesAccepted');
      assert.equal(final.Established.message, 'the initial names have been accepted');
    } finally {
      w.close();
    }
  });

  it('reports Established=False/NotAccepted when the names conflict', async () => {
    await installCRD(ts, cronTabCRD({ group: 'conflict.example.com' }));
    const clash = cronTabCRD({ group: 'conflict.example.com' });
    clash.metadata.name = 'crontabz.conflict.example.com';
    clash.spec.names = { plural: 'crontabz', kind: 'CronTab' };
    const r = await ts.request('POST', CRDS, clash);
    assert.equal(r.status, 201, r.text);
    const byType = await eventually('the names rejected', async () => {
      const got = (await ts.request('GET', `${CRDS}/crontabz.conflict.example.com`)).json;
      const conditions = Object.fromEntries((got.status?.conditions ?? []).map((c: any) => [c.type, c]));
      if (conditions.NamesAccepted?.status !== 'False') throw new Error(`status ${JSON.stringify(got.status)}`);
      return conditions;
    }, 4_000, 20);
    assert.match(byType.NamesAccepted.reason, /Conflict$/);
    assert.deepEqual([byType.Established.status, byType.Established.reason, byType.Established.message], ['False', 'NotAccepted', 'not all names are accepted']);
  });
});

describe('storage version', () => {
  before(async () => {
    await installCRD(ts, widgetsCRD());
  });

  it('stores objects written through any version with the storage version apiVersion', async () => {
    for (const [version, name] of [['v1', 'via-v1'], ['v2', 'via-v2']] as const) {
      const r = await ts.request('POST', `/apis/storage.example.com/${version}/namespaces/${ns}/widgets`, { apiVersion: `storage.example.com/${version}`, kind: 'Widget', metadata: { name }, spec: { size: 1 } });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.json.apiVersion, `storage.example.com/${version}`);
      const kv = await ts.server.registry.storage.get(objectKey('storage.example.com', 'widgets', 'root', ns, name));
      assert.ok(kv, 'stored');
      assert.equal(JSON.parse(kv!.value).apiVersion, 'storage.example.com/v2');
      // Reads through either version answer with that version.
      for (const v of ['v1', 'v2']) {
        const got = await ts.request('GET', `/apis/storage.example.com/${v}/namespaces/${ns}/widgets/${name}`);
        assert.equal(got.json.apiVersion, `storage.example.com/${v}`);
        assert.equal(got.json.spec.size, 1);
      }
    }
    const crd = (await ts.request('GET', `${CRDS}/widgets.storage.example.com`)).json;
    assert.deepEqual(crd.status.storedVersions, ['v2']);
  });

  it('adds a new storage version to status.storedVersions and keeps the old one', async () => {
    const crd = (await ts.request('GET', `${CRDS}/widgets.storage.example.com`)).json;
    crd.spec.versions[0].storage = true;
    crd.spec.versions[1].storage = false;
    const r = await ts.request('PUT', `${CRDS}/widgets.storage.example.com`, crd);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.status.storedVersions, ['v2', 'v1']);
    // Once the CRD is observed, new writes are stored as v1.
    let i = 0;
    await eventually('the storage version switch to take effect', async () => {
      const name = `after-switch-${i++}`;
      const c = await ts.request('POST', `/apis/storage.example.com/v2/namespaces/${ns}/widgets`, { apiVersion: 'storage.example.com/v2', kind: 'Widget', metadata: { name }, spec: { size: 2 } });
      assert.equal(c.status, 201, c.text);
      const kv = await ts.server.registry.storage.get(objectKey('storage.example.com', 'widgets', 'root', ns, name));
      return JSON.parse(kv!.value).apiVersion === 'storage.example.com/v1';
    }, 1_000, 20);
  });
});

describe('scale subresource', () => {
  const cases: [string, unknown, number | undefined, string | undefined][] = [
    ['a valid replica count', { replicas: 3, selector: 'app=x' }, 200, undefined],
    ['negative status replicas', { replicas: -1 }, 422, '.status.replicas: Invalid value: -1: must be a non-negative integer'],
    ['status replicas above MaxInt32', { replicas: 2147483648 }, 422, '.status.replicas: Invalid value: 2147483648: must be less than or equal to 2147483647'],
    ['a non-string selector', { replicas: 1, selector: 5 }, 422, ''],
  ];
  for (const [name, status, code, message] of cases) {
    it(`/status write with ${name}`, async () => {
      const objName = `scale-${name.replace(/[^a-z]+/g, '-').replace(/^-|-$/g, '')}`;
      const base = `/apis/storage.example.com/v1/namespaces/${ns}/widgets`;
      const c = await ts.request('POST', base, { apiVersion: 'storage.example.com/v1', kind: 'Widget', metadata: { name: objName }, spec: { size: 1 } });
      assert.equal(c.status, 201, c.text);
      // v1 has no subresources (they are per version); write status through v2.
      const v2 = `/apis/storage.example.com/v2/namespaces/${ns}/widgets/${objName}/status`;
      const r = await ts.request('PATCH', v2, { status }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
      assert.equal(r.status, code, r.text);
      if (message) assert.ok(r.json.message.includes(message), r.json.message);
    });
  }

  it('serves only Name and Age columns when no printer columns are declared (scale adds none)', async () => {
    const r = await ts.request('GET', `/apis/storage.example.com/v2/namespaces/${ns}/widgets`, undefined, {
      headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.json.columnDefinitions.map((c: any) => c.name),
      ['Name', 'Age'],
    );
  });
});
