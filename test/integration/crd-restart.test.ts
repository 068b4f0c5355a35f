/** CRDs survive a restart: stored CRDs are loaded before the server listens, so their types are served at once. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startTestServer } from '../helpers/harness.js';
import { cronTabCRD } from './crd-fixtures.js';
import { installCRD } from './crd-support.js';

test('custom resources and their discovery come back after a restart', async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-crd-restart-'));
  try {
    const first = await startTestServer({ rootDir });
    await installCRD(first, cronTabCRD({ scope: 'Cluster' }));
    const created = await first.request('POST', '/apis/stable.example.com/v1/crontabs', { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'kept' }, spec: { cronSpec: '* * * * *' } });
    assert.equal(created.status, 201, created.text);
    await first.stop();

    const second = await startTestServer({ rootDir });
    try {
      // No waiting: the first request after start must already see the type.
      const got = await second.request('GET', '/apis/stable.example.com/v1/crontabs/kept');
      assert.equal(got.status, 200, got.text);
      assert.equal(got.json.spec.replicas, 1);
      const disc = (await second.request('GET', '/apis/stable.example.com/v1')).json;
      assert.ok(disc.resources.some((r: any) => r.name === 'crontabs'));
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(rootDir, { recursive: true, force: true });
  }
});
