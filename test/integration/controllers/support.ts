/** Helpers for controller tests: controllers are observed only through the API, so tests poll for outcomes. */
import assert from 'node:assert/strict';
import type { HttpResponse, TestServer } from '../../helpers/harness.js';
import { eventuallyWith } from '../../helpers/eventually.js';

/** The controller suites' waits: test/helpers/eventually.ts, up to 15 s, every 50 ms unless told otherwise. */
export const eventually = eventuallyWith({ timeoutMs: 15_000, intervalMs: 50 });

/** Waits until GET path answers 404. */
export function eventuallyGone(ts: TestServer, path: string, timeoutMs = 15_000): Promise<HttpResponse> {
  return eventually(`${path} to be gone`, async () => {
    const r = await ts.request('GET', path);
    return r.status === 404 ? r : undefined;
  }, timeoutMs);
}

/** Asserts that GET path keeps answering 200 for `ms` (the controller must leave it alone). */
export async function staysPresent(ts: TestServer, path: string, ms = 1_500): Promise<HttpResponse> {
  const deadline = Date.now() + ms;
  let r: HttpResponse;
  do {
    r = await ts.request('GET', path);
    assert.equal(r.status, 200, `${path} should still exist: ${r.text}`);
    await new Promise((res) => setTimeout(res, 100));
  } while (Date.now() < deadline);
  return r;
}

/** An ownerReference to an object returned by the API. */
export function ownerRef(owner: any, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: owner.apiVersion ?? 'v1', kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, ...extra };
}
