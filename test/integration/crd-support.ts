/** Helpers the CRD suites share: installing a CRD and waiting for it to be established or gone. */
import assert from 'node:assert/strict';
import type { TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';

/** Creates a CRD and waits until it is Established; returns the established object. */
export async function installCRD(ts: TestServer, crd: any, prefix = ''): Promise<any> {
  const r = await ts.request('POST', `${prefix}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, crd);
  assert.equal(r.status, 201, r.text);
  return waitForCRD(ts, crd.metadata.name, (c) => c.status?.conditions?.some((x: any) => x.type === 'Established' && x.status === 'True'), prefix);
}

/** Polls a CRD until `done` holds (undefined object = the CRD is gone). */
export async function waitForCRD(ts: TestServer, name: string, done: (crd: any) => boolean, prefix = '', timeoutMs = 10_000): Promise<any> {
  const { crd } = await eventually(`CRD ${name} to reach the expected state`, async () => {
    const r = await ts.request('GET', `${prefix}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    const obj = r.status === 200 ? r.json : undefined;
    if (!done(obj)) throw new Error(`GET answered ${r.status}: ${r.text}`);
    return { crd: obj };
  }, timeoutMs, 20);
  return crd;
}
