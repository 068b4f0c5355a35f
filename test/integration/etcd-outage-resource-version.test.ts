/**
 * Requests that carry a resourceVersion while etcd is down answer like the plain ones do: a 503 (or 504) Status
 * from the storage error translation, never a 500 from the revision check that runs before the read. So does a
 * dry-run create, whose existence check is a read.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startTestServer } from '../helpers/harness.js';
import { startEtcd } from '../helpers/etcd.js';

test('etcd down: GET, LIST and WATCH with a resourceVersion, and a dry-run create, answer 503/504 Status', async () => {
  const etcd = await startEtcd();
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-etcd-down-rv-'));
  const ts = await startTestServer({ rootDir, server: { etcd: { endpoints: etcd.endpoints, requestTimeoutMs: 2000, healthProbeIntervalMs: 200 } } });
  try {
    assert.equal((await ts.request('POST', '/api/v1/namespaces', { metadata: { name: 'o' } })).status, 201);
    const created = await ts.request('POST', '/api/v1/namespaces/o/configmaps', { metadata: { name: 'a' } });
    assert.equal(created.status, 201);
    const rv = created.json.metadata.resourceVersion as string;
    const ahead = String(Number(rv) + 1000);
    await etcd.members[0]!.kill('SIGKILL');
    // The same requests without a resourceVersion are covered by replicas-etcd-outage.test.ts.
    const paths = [
      `/api/v1/namespaces/o/configmaps/a?resourceVersion=${rv}`,
      `/api/v1/namespaces/o/configmaps/a?resourceVersion=${ahead}`,
      `/api/v1/namespaces/o/configmaps?resourceVersion=${rv}`,
      `/api/v1/namespaces/o/configmaps?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`,
      `/api/v1/namespaces/o/configmaps?watch=1&resourceVersion=${rv}&timeoutSeconds=2`,
      `/api/v1/namespaces/o/configmaps?watch=1&resourceVersion=${ahead}&timeoutSeconds=2`,
    ];
    const requests: Array<[string, string, unknown?]> = paths.map((path) => ['GET', path]);
    // A dry-run create reads the key to report AlreadyExists, the one read of a write path outside the translation.
    requests.push(['POST', '/api/v1/namespaces/o/configmaps?dryRun=All', { metadata: { name: 'b' } }]);
    for (const [method, path, body] of requests) {
      const r = await ts.request(method, path, body);
      assert.ok(r.status === 503 || r.status === 504, `${method} ${path}: ${r.status} ${r.text}`);
      assert.equal(r.json?.kind, 'Status', path);
      assert.equal(r.json.code, r.status, path);
      assert.equal(r.json.reason, r.status === 503 ? 'ServiceUnavailable' : 'Timeout', path);
    }
  } finally {
    await ts.stop().catch(() => undefined);
    await etcd.stop();
    rmSync(rootDir, { recursive: true, force: true });
  }
});
