/**
 * CRDs are per workspace: a CRD installed in one workspace is absent from a sibling's discovery, OpenAPI (v2 and v3)
 * and API (HTTP and kubectl), and the same CRD name with a different schema in two workspaces serves each
 * workspace by its own schema (validation, pruning, OpenAPI).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { cronTabCRD } from './crd-fixtures.js';
import { installCRD } from './crd-support.js';
import { eventually } from '../helpers/eventually.js';
import { waitForWorkspace } from '../helpers/workspaces.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const group = 'stable.example.com';
const a = '/clusters/root:iso-a';
const b = '/clusters/root:iso-b';
const crontabs = (prefix: string) => `${prefix}/apis/${group}/v1/namespaces/default/crontabs`;

/** The same CRD name as cronTabCRD, with another schema: `color` (an enum) required instead of `cronSpec`. */
function colorfulCronTabCRD(): any {
  const crd = cronTabCRD({ group });
  const schema = {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { color: { type: 'string', enum: ['red', 'blue'] } }, required: ['color'] },
    },
  };
  crd.spec.versions = [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }];
  return crd;
}

describe('CRD isolation between workspaces', () => {
  let ts: TestServer;
  const kubectlIn = (prefix: string, args: string[]) => ts.kubectl([`--server=${ts.url}${prefix}`, ...args]);

  async function workspace(name: string): Promise<void> {
    const r = await ts.request('POST', `/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: {} });
    assert.equal(r.status, 201, r.text);
    await waitForWorkspace(ts, 'root', name, { timeoutMs: 3_000, intervalMs: 10 });
  }

  before(async () => {
    ts = await startTestServer();
    await workspace('iso-a');
    await workspace('iso-b');
    await installCRD(ts, cronTabCRD({ group }), a);
  });
  after(async () => {
    await ts?.stop();
  });

  it('a CRD of one workspace is absent from its sibling: discovery, OpenAPI and the API itself (HTTP)', async () => {
    const groupsIn = async (prefix: string) => (await ts.request('GET', `${prefix}/apis`)).json.groups.map((g: any) => g.name);
    assert.ok((await groupsIn(a)).includes(group));
    assert.ok(!(await groupsIn(b)).includes(group));
    assert.ok(!(await groupsIn('/clusters/root')).includes(group));
    assert.equal((await ts.request('GET', `${a}/apis/${group}/v1`)).status, 200);
    assert.equal((await ts.request('GET', `${b}/apis/${group}/v1`)).status, 404);
    assert.equal((await ts.request('GET', `${b}/apis/${group}`)).status, 404);

    const v3a = (await ts.request('GET', `${a}/openapi/v3`)).json;
    const v3b = (await ts.request('GET', `${b}/openapi/v3`)).json;
    assert.ok(`apis/${group}/v1` in v3a.paths);
    assert.ok(!(`apis/${group}/v1` in v3b.paths));
    assert.equal((await ts.request('GET', `${a}/openapi/v3/apis/${group}/v1`)).status, 200);
    assert.equal((await ts.request('GET', `${b}/openapi/v3/apis/${group}/v1`)).status, 404);
    const v2a = (await ts.request('GET', `${a}/openapi/v2`)).text;
    const v2b = (await ts.request('GET', `${b}/openapi/v2`)).text;
    assert.ok(v2a.includes(`/apis/${group}/v1/namespaces/{namespace}/crontabs`));
    assert.ok(!v2b.includes(`/apis/${group}/v1/namespaces/{namespace}/crontabs`));
    assert.ok(!v2b.includes('CronTab'));

    const created = await ts.request('POST', crontabs(a), { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'only-in-a' }, spec: { cronSpec: '* * * * *' } });
    assert.equal(created.status, 201, created.text);
    const inB = await ts.request('POST', crontabs(b), { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'x' }, spec: { cronSpec: '* * * * *' } });
    assert.equal(inB.status, 404);
    assert.equal((await ts.request('GET', `${crontabs(b)}/only-in-a`)).status, 404);
    assert.equal((await ts.request('GET', `${b}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`)).json.items.length, 0);
  });

  it('the same through kubectl: api-resources, get and explain see the CRD only where it is installed', async () => {
    const resA = await kubectlIn(a, ['api-resources', '--api-group', group, '-o', 'name']);
    assert.equal(resA.code, 0, resA.stderr);
    assert.equal(resA.stdout.trim(), `crontabs.${group}`);
    const resB = await kubectlIn(b, ['api-resources', '--api-group', group, '-o', 'name']);
    assert.equal(resB.code, 0, resB.stderr);
    assert.equal(resB.stdout.trim(), '');
    const getA = await kubectlIn(a, ['get', 'crontabs', '-n', 'default', '-o', 'name']);
    assert.equal(getA.code, 0, getA.stderr);
    assert.equal(getA.stdout.trim(), `crontab.${group}/only-in-a`);
    const getB = await kubectlIn(b, ['get', 'crontabs', '-n', 'default']);
    assert.notEqual(getB.code, 0);
    assert.match(getB.stderr, /the server doesn't have a resource type "crontabs"/);
  });

  it('the same CRD name with a different schema works independently in two workspaces', async () => {
    await installCRD(ts, colorfulCronTabCRD(), b);
    const post = (prefix: string, name: string, spec: object) =>
      ts.request('POST', crontabs(prefix), { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name }, spec });

    // Each workspace validates by its own schema.
    const missingColor = await post(b, 'cron-only', { cronSpec: '* * * * *' });
    assert.equal(missingColor.status, 422, missingColor.text);
    assert.match(missingColor.json.message, /spec\.color: Required value/);
    const badColor = await post(b, 'green', { color: 'green' });
    assert.equal(badColor.status, 422, badColor.text);
    assert.match(badColor.json.message, /spec\.color: Unsupported value: "green": supported values: "red", "blue"/);
    const missingCron = await post(a, 'color-only', { color: 'red' });
    assert.equal(missingCron.status, 422, missingCron.text);
    assert.match(missingCron.json.message, /spec\.cronSpec: Required value/);

    // And prunes by it: a field unknown to the workspace's schema is dropped there only.
    const inB = await post(b, 'both', { color: 'red', cronSpec: '* * * * *' });
    assert.equal(inB.status, 201, inB.text);
    assert.deepEqual(inB.json.spec, { color: 'red' });
    const inA = await post(a, 'both', { color: 'red', cronSpec: '* * * * *' });
    assert.equal(inA.status, 201, inA.text);
    assert.equal(inA.json.spec.cronSpec, '* * * * *');
    assert.equal(inA.json.spec.color, undefined);
    assert.equal(inA.json.spec.replicas, 1, 'defaults of workspace a apply in a');

    // Same names, separate objects.
    assert.notEqual(inA.json.metadata.uid, inB.json.metadata.uid);
    assert.deepEqual((await ts.request('GET', crontabs(b))).json.items.map((o: any) => o.metadata.name), ['both']);
    assert.deepEqual((await ts.request('GET', crontabs(a))).json.items.map((o: any) => o.metadata.name).sort(), ['both', 'only-in-a']);

    // OpenAPI describes each workspace's own schema.
    const docA = (await ts.request('GET', `${a}/openapi/v3/apis/${group}/v1`)).text;
    const docB = (await ts.request('GET', `${b}/openapi/v3/apis/${group}/v1`)).text;
    assert.ok(docA.includes('cronSpec') && !docA.includes('"color"'));
    assert.ok(docB.includes('"color"') && !docB.includes('cronSpec'));

    // Deleting the CRD in one workspace leaves the other's serving.
    assert.equal((await ts.request('DELETE', `${b}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.${group}`)).status, 200);
    await eventually(`${group}/v1 gone from ${b}`, async () => (await ts.request('GET', `${b}/apis/${group}/v1`)).status === 404, 6_000, 20);
    assert.equal((await ts.request('GET', `${crontabs(a)}/both`)).status, 200);
  });
});
