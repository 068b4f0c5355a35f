import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { containerProbeTimes, hasGatingProbes, probePlainlyFails } from '../../../src/pcluster/controllers/probes.js';

describe('simulated probes', () => {
  it('a container without probes is started and ready as it runs', () => {
    assert.deepEqual(containerProbeTimes({ name: 'c' }, 1000), { startedAt: 1000, readyAt: 1000 });
  });

  it("a readiness probe holds the container unready for its initial delay, counted from the container's start", () => {
    assert.deepEqual(containerProbeTimes({ readinessProbe: { httpGet: { port: 80 }, initialDelaySeconds: 15 } }, 1000), { startedAt: 1000, readyAt: 16_000 });
    assert.deepEqual(containerProbeTimes({ readinessProbe: { tcpSocket: { port: 80 } } }, 1000), { startedAt: 1000, readyAt: 1000 });
  });

  it('a startup probe holds both started and ready; the readiness delay runs from the start, not after it', () => {
    const c = { startupProbe: { exec: { command: ['cat', '/tmp/ok'] }, initialDelaySeconds: 5 }, readinessProbe: { httpGet: { port: 80 }, initialDelaySeconds: 3 } };
    assert.deepEqual(containerProbeTimes(c, 0), { startedAt: 5000, readyAt: 5000 });
    assert.deepEqual(containerProbeTimes({ ...c, readinessProbe: { httpGet: { port: 80 }, initialDelaySeconds: 8 } }, 0), { startedAt: 5000, readyAt: 8000 });
  });

  it('a probe that plainly fails never passes; other commands and handlers do', () => {
    assert.ok(probePlainlyFails({ exec: { command: ['/bin/false'] } }));
    assert.ok(probePlainlyFails({ exec: { command: ['sh', '-c', 'exit 2'] } }));
    assert.ok(!probePlainlyFails({ exec: { command: ['sh', '-c', 'exit 0'] } }));
    assert.ok(!probePlainlyFails({ exec: { command: ['cat', '/tmp/health'] } }));
    assert.ok(!probePlainlyFails({ httpGet: { port: 81 } }));
    assert.deepEqual(containerProbeTimes({ readinessProbe: { exec: { command: ['false'] } } }, 0), { startedAt: 0, readyAt: Infinity });
    assert.deepEqual(containerProbeTimes({ startupProbe: { exec: { command: ['false'] } } }, 0), { startedAt: Infinity, readyAt: Infinity });
  });

  it('only startup probes and delayed or failing readiness probes hold a pod back', () => {
    assert.ok(!hasGatingProbes([{ readinessProbe: { httpGet: { port: 80 } }, livenessProbe: { exec: { command: ['false'] } } }]));
    assert.ok(hasGatingProbes([{}, { readinessProbe: { httpGet: { port: 80 }, initialDelaySeconds: 1 } }]));
    assert.ok(hasGatingProbes([{ startupProbe: { httpGet: { port: 80 } } }]));
  });
});
