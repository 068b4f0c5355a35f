/**
 * Validation suites whose expectations are kube-apiserver's own answers: a simulated cluster (which serves the
 * workload types as every workspace with compute does) answers dry-run creates, and each case's message must be the
 * one kube-apiserver v1.32.4 gave for the same body (recorded from the binary the `kube` benchmark builds).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestServer } from './harness.js';
import { useSimulatedCluster } from './simulated-cluster.js';

export interface ValidationCase {
  name: string;
  /** The collection the body is created in. */
  path: string;
  body: unknown;
  /** kube-apiserver's message (a 422); undefined: it accepts the object (201). */
  message?: string;
}

/**
 * The file's simulated cluster (one node of 2 CPU / 4 Gi), named after the suite. Its ServiceAccount admission is off,
 * as it was on the kube-apiserver the messages come from: with it, a pod naming a missing account is refused (403)
 * before validation could report anything.
 */
export function useValidationCluster(name: string): () => TestServer {
  return useSimulatedCluster(name.slice(0, 8), { nodeCapacity: { cpu: '2', memory: '4Gi', pods: '110' }, disableAdmissionPlugins: ['ServiceAccount'] });
}

/**
 * One test per case: a dry-run create answers 201, or 422 with kube-apiserver's message (both passed through
 * `normalise`, for parts that differ on every request, such as Go pointers printed as addresses).
 */
export function validationCases(cases: readonly ValidationCase[], server: () => TestServer, normalise: (message: string) => string = (m) => m): void {
  for (const c of cases) {
    test(c.name, async () => {
      const r = await server().request('POST', `${c.path}?dryRun=All`, c.body);
      if (c.message === undefined) {
        assert.equal(r.status, 201, r.text);
        return;
      }
      assert.equal(r.status, 422, r.text);
      assert.equal(normalise(r.json.message), normalise(c.message));
    });
  }
}
