/**
 * A CRD is decoded as kube-apiserver's typed round trip leaves it (apiextensions v1 types): zero values of omitempty
 * fields are dropped, missing non-omitempty ones written as zero values, and `items` that is no schema dropped —
 * in the stored object and in managedFields alike. The differential suite shows single fields; this shows them together,
 * in a second version, nested in the schema and through an update.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/harness.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function crd(): any {
  const schema = {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string', items: 7 } }, list: { type: 'array', items: { type: 'string' } } } },
    },
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.rt.example.com' },
    spec: {
      group: 'rt.example.com',
      scope: 'Namespaced',
      preserveUnknownFields: false,
      names: { plural: 'gadgets', singular: '', kind: 'Gadget', shortNames: [], categories: [] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          deprecated: false,
          schema: { openAPIV3Schema: schema },
          additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.spec.a', priority: 0, format: '', description: '' }],
          selectableFields: [],
        },
        { name: 'v2', storage: false, schema: { openAPIV3Schema: schema } },
      ],
    },
  };
}

describe('CRD typed round trip', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts?.stop();
  });

  it('drops omitempty zero values, writes missing served as false and drops items that is no schema', async () => {
    const r = await ts.request('POST', CRDS, crd());
    assert.equal(r.status, 201, r.text);
    const check = (o: any, what: string) => {
      const spec = o.spec;
      assert.equal('preserveUnknownFields' in spec, false, what);
      assert.deepEqual(spec.names, { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' }, what);
      const [v1, v2] = spec.versions;
      assert.equal('deprecated' in v1, false, what);
      assert.equal('selectableFields' in v1, false, what);
      assert.deepEqual(v1.additionalPrinterColumns, [{ name: 'A', type: 'string', jsonPath: '.spec.a' }], what);
      assert.equal(v2.served, false, what);
      assert.deepEqual(v1.schema.openAPIV3Schema.properties.spec.properties.tags, { type: 'array', items: { type: 'string' } }, what);
      assert.deepEqual(v1.schema.openAPIV3Schema.properties.spec.properties.list, { type: 'array', items: { type: 'string' } }, what);
    };
    check(r.json, 'create answer');
    const fields = JSON.stringify(r.json.metadata.managedFields);
    // spec.versions is an atomic list; the top-level and names fields are tracked one by one.
    for (const f of ['f:preserveUnknownFields', 'f:shortNames', 'f:categories']) {
      assert.equal(fields.includes(`"${f}"`), false, `${f} not owned: ${fields}`);
    }
    assert.match(fields, /"f:singular"/, 'the defaulted singular is owned');
    check((await ts.request('GET', `${CRDS}/gadgets.rt.example.com`)).json, 'read back');
    // An update decodes alike. The CRD controllers write the status meanwhile, so the update is retried on a
    // conflict as client-go's RetryOnConflict would.
    let u: Awaited<ReturnType<typeof ts.request>> | undefined;
    for (let attempt = 0; attempt < 5 && (!u || u.status === 409); attempt++) {
      const current = (await ts.request('GET', `${CRDS}/gadgets.rt.example.com`)).json;
      const body = crd();
      body.metadata.resourceVersion = current.metadata.resourceVersion;
      u = await ts.request('PUT', `${CRDS}/gadgets.rt.example.com`, body);
    }
    assert.equal(u!.status, 200, u!.text);
    check(u!.json, 'update answer');
  });
});
