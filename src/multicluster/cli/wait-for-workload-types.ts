/**
 * What `kubectl atrium bind compute` and `kubectl atrium workload sync` do last: wait until the workspace's discovery
 * serves the workload types (checked on deployments.apps), so a script can `kubectl apply` a Deployment right after.
 * A workspace serves them as soon as it holds a SyncTarget or a Placement; every replica notices from its own watch,
 * usually within milliseconds. Progress is one line (`Waiting for the workspace to serve deployments.apps ... done`).
 */
import { StatusError } from '../../apimachinery/status.js';
import type { RestClient } from '../../client/rest-client.js';

export interface WaitOptions {
  /** Writes progress text (no newline added): the command's stderr. */
  progress?(text: string): void;
  /** Default 60 s. */
  timeoutMs?: number;
  pollMs?: number;
}

/** Whether `cluster`'s discovery lists deployments in apps/v1. */
export async function servesDeployments(client: RestClient, cluster: string): Promise<boolean> {
  try {
    const list = (await client.call('GET', `/clusters/${cluster}/apis/apps/v1`)) as { resources?: { name: string }[] };
    return (list.resources ?? []).some((r) => r.name === 'deployments');
  } catch (err) {
    if (err instanceof StatusError && err.code === 404) return false;
    throw err;
  }
}

/** Resolves once `cluster` serves deployments.apps; throws after the timeout. */
export async function waitForWorkloadTypes(client: RestClient, cluster: string, opts: WaitOptions = {}): Promise<void> {
  const progress = opts.progress ?? (() => {});
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  progress('Waiting for the workspace to serve deployments.apps ...');
  for (;;) {
    if (await servesDeployments(client, cluster)) {
      progress(' done\n');
      return;
    }
    if (Date.now() > deadline) {
      progress(' timed out\n');
      throw new Error(`the workspace does not serve deployments.apps after ${Math.round(timeoutMs / 1000)}s (is the server running with multi-cluster support?)`);
    }
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 100));
  }
}
