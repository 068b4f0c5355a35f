/** Waiting on Workspaces, which the suites create and then need Ready (or in another phase) before they go on. */
import { eventually } from './eventually.js';
import type { TestServer } from './harness.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';

export interface WaitForWorkspaceOptions {
  /** The status.phase to wait for; Ready by default. */
  phase?: string;
  timeoutMs?: number;
  intervalMs?: number;
  /** Ask as the user with this bearer token instead of the admin. */
  token?: string;
}

/**
 * Polls Workspace `name` in the logical cluster `parent` (a path such as `root` or `root:org`) until its status.phase
 * is `phase`, and returns it. Fails, naming the workspace, with the last status seen once `timeoutMs` has passed.
 */
export function waitForWorkspace(ts: TestServer, parent: string, name: string, opts: WaitForWorkspaceOptions = {}): Promise<any> {
  const phase = opts.phase ?? 'Ready';
  return eventually(
    `workspace ${parent}:${name} ${phase}`,
    async () => {
      const r = await ts.request('GET', `/clusters/${parent}${WS}/${name}`, undefined, opts.token ? { token: opts.token } : undefined);
      if (r.status === 200 && r.json?.status?.phase === phase) return r.json;
      throw new Error(r.status === 200 ? `status ${JSON.stringify(r.json?.status)}` : `GET answered ${r.status}: ${r.text}`);
    },
    opts.timeoutMs ?? 30_000,
    opts.intervalMs ?? 100,
  );
}
