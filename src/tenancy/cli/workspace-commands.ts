/**
 * The behaviour of kcp's `kubectl ws` / `kubectl create workspace` plugins (kcp-dev/cli pkg/workspace/plugin), with
 * their messages: moving between workspaces by rewriting the kubeconfig's `workspace.kcp.io/current` cluster and
 * context (the previous one saved as `workspace.kcp.io/previous` for `ws -`), printing the current workspace, the
 * tree, and creating workspaces. Every failure is thrown as a PluginError carrying the text to print after "Error: ".
 */
import { homedir } from 'node:os';
import type { KubeconfigCluster, KubeconfigContext } from '../../client/kubeconfig/kubeconfig.js';
import { isValidPath, joinPath, splitPath } from '../paths.js';
import { apiErrorMessage, parseClusterURL, workspaceURL, type WorkspaceClient } from './workspace-client.js';
import { parseToLabelSelectorSpec } from '../../apimachinery/labels/selector.js';

export const CURRENT_KEY = 'workspace.kcp.io/current';
export const PREVIOUS_KEY = 'workspace.kcp.io/previous';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';

export class PluginError extends Error {}

/** What kcp prints on stderr after a bare `kubectl ws` went home. */
export const HOME_NOTE =
  "Note: 'kubectl ws' now matches 'cd' semantics: go to home workspace. 'kubectl ws -' to go back. 'kubectl ws .' to print current workspace.\n";

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

interface TypeRef {
  name: string;
  path?: string;
}

function typeString(t: TypeRef): string {
  return joinPath(t.path ?? '', t.name);
}

type Named<T> = { name: string } & Record<string, unknown> & { [k: string]: T | string };

function getNamed<T>(list: { name: string }[], key: string, name: string): T | undefined {
  return (list.find((e) => e.name === name) as Record<string, unknown> | undefined)?.[key] as T | undefined;
}

function setNamed<T>(list: { name: string }[], key: string, name: string, value: T): void {
  const i = list.findIndex((e) => e.name === name);
  const entry = { name, [key]: value } as Named<T>;
  if (i >= 0) list[i] = entry;
  else list.push(entry);
}

/** `Current workspace is 'root:a' (type root:universal).` (or the URL when it is not a workspace URL). */
export function currentWorkspaceMessage(host: string, short: boolean, type?: TypeRef): string | undefined {
  const parsed = parseClusterURL(host);
  if (!parsed) return short ? undefined : `Current workspace is the URL ${JSON.stringify(host)}.`;
  if (short) return parsed.path;
  return `Current workspace is '${parsed.path}'${type ? ` (type ${typeString(type)})` : ''}.`;
}

/**
 * An unquoted `kubectl ws ~` or `kubectl ws ~/a` reaches the plugin as the shell expanded it ($HOME, $HOME/a); like
 * kcp's use command, a leading home directory is turned back into `~` before the name is parsed.
 */
export function unexpandHome(name: string, home: string): string {
  const h = home.replace(/\/+$/, '');
  if (!h) return name;
  if (name === h || name === `${h}/`) return '~';
  if (name.startsWith(`${h}/`)) return `~${name.slice(h.length)}`;
  return name;
}

/** Resolves `.` and `..` in an absolute path without its leading colon. */
export function resolveDots(path: string): string {
  const out: string[] = [];
  for (const part of path.split(':')) {
    if (part === '.') continue;
    if (part === '..') {
      if (out.length === 0) throw new PluginError('cannot go up from root');
      out.pop();
      continue;
    }
    out.push(part);
  }
  return out.join(':');
}

export class WorkspaceCommands {
  constructor(
    private readonly client: WorkspaceClient,
    private readonly io: Output,
  ) {}

  private currentURL(): { base: URL; path: string } {
    const host = this.client.server();
    const parsed = parseClusterURL(host);
    if (!parsed) throw new PluginError(`current URL ${JSON.stringify(host)} does not point to a workspace`);
    return parsed;
  }

  /** `kubectl ws current` / `kubectl ws .` */
  current(short: boolean): void {
    const msg = currentWorkspaceMessage(this.client.server(), short);
    if (msg !== undefined) this.io.out(`${msg}\n`);
  }

  /** `kubectl ws <name>`: every form of the argument (relative, :absolute, :, .., -, ., root:legacy). */
  async use(rawName: string, short: boolean): Promise<void> {
    let name = unexpandHome(rawName, homedir()).replaceAll('/', ':');
    let goingHome = false;
    if (name === 'root' || (name.startsWith('root:') && !short)) {
      name = `:${name}`;
      this.io.err("Note: Using 'root:' to define an absolute path is no longer supported. Instead, use ':root' to specify an absolute path.\n");
    }
    // A bare `kubectl ws` goes home, like `cd` (kcp's note says so on stderr unless --short).
    if (name === '') {
      name = '~';
      if (!short) goingHome = true;
    }
    if (name === '~' || name.startsWith('~:')) name = `:${await this.homePath()}${name.slice(1)}`;
    if (name === '-') return this.swap(short);
    if (name === '.') return this.current(short);
    const { base, path: current } = this.currentURL();
    if (name === ':') return this.commit(workspaceURL(base, current.split(':')[0]!), short);

    const joined = name.startsWith(':') ? name.slice(1) : joinPath(current, name);
    const path = resolveDots(joined);
    if (!isValidPath(path)) throw new PluginError(`invalid workspace path: ${rawName}`);

    // Discovery tells whether we may enter; the Workspace in the parent tells whether it exists.
    const discovery = await this.client.send('GET', base, path, '/apis');
    if (discovery.status !== 200 && discovery.status !== 403 && discovery.status !== 404) throw new PluginError(apiErrorMessage(discovery));
    const denied = discovery.status !== 200;
    let type: TypeRef | undefined;
    let notFound = false;
    if (path === 'root') type = { name: 'root' };
    else {
      const { parent, base: wsName } = splitPath(path);
      if (parent) {
        const ws = await this.client.send('GET', base, parent, `${WS}/${encodeURIComponent(wsName)}`);
        if (ws.status === 404) notFound = true;
        else if (ws.status === 200) type = ws.json?.spec?.type;
      }
    }
    if (denied && notFound) throw new PluginError(`workspace ${JSON.stringify(path)} not found`);
    if (denied) throw new PluginError(`access to workspace ${JSON.stringify(path)} denied`);
    await this.commit(workspaceURL(base, path), short, type);
    if (goingHome) this.io.err(HOME_NOTE);
  }

  /**
   * The path of the caller's home workspace: `GET workspaces/~` in root (which creates it on first use) and the
   * path of the returned spec.URL (kcp's homePath).
   */
  private async homePath(): Promise<string> {
    const { base } = this.currentURL();
    const r = await this.client.send('GET', base, 'root', `${WS}/~`);
    if (r.status !== 200) throw new PluginError(apiErrorMessage(r));
    const url = String(r.json?.spec?.URL ?? '');
    const parsed = parseClusterURL(url);
    if (!parsed || !url) throw new PluginError(`invalid home workspace URL ${JSON.stringify(url)}`);
    return parsed.path;
  }

  /** Points the `workspace.kcp.io/current` context at `url`, saving the current one as previous (kcp's commitConfig). */
  private async commit(url: string, short: boolean, type?: TypeRef): Promise<void> {
    const file = this.client.kubeconfig.file;
    const currentName = this.client.contextName();
    const currentContext = getNamed<KubeconfigContext>(file.contexts, 'context', currentName);
    if (!currentContext) throw new PluginError(`current ${JSON.stringify(currentName)} context not found`);
    const oldCluster = getNamed<KubeconfigCluster>(file.clusters, 'cluster', currentContext.cluster);
    if (!oldCluster) throw new PluginError(`cluster ${JSON.stringify(currentContext.cluster)} not found in kubeconfig`);
    setNamed(file.clusters, 'cluster', CURRENT_KEY, { ...oldCluster, server: url });
    setNamed(file.contexts, 'context', CURRENT_KEY, { ...currentContext, cluster: CURRENT_KEY });
    let previous = { ...currentContext };
    if (currentContext.cluster === CURRENT_KEY) {
      previous = { ...currentContext, cluster: PREVIOUS_KEY };
      setNamed(file.clusters, 'cluster', PREVIOUS_KEY, oldCluster);
    }
    setNamed(file.contexts, 'context', PREVIOUS_KEY, previous);
    file['current-context'] = CURRENT_KEY;
    await this.client.save();
    await this.warnUnresolvedClaims(url);
    const msg = currentWorkspaceMessage(url, short, type);
    if (msg !== undefined) this.io.out(`${msg}\n`);
  }

  /**
   * After entering a workspace, kcp's plugin lists its APIBindings (v1alpha2; not allowed to: nothing to say) and warns
   * on stderr about every permission claim an export makes that its binding leaves unresolved (findUnresolvedPermissionClaims):
   * not in the binding's spec, neither accepted nor rejected, or with other verbs. A failure is reported, never fatal.
   */
  private async warnUnresolvedClaims(url: string): Promise<void> {
    const parsed = parseClusterURL(url);
    if (!parsed) return;
    const r = await this.client.send('GET', parsed.base, parsed.path, '/apis/apis.kcp.io/v1alpha2/apibindings').catch((err: unknown) => err as Error);
    if (r instanceof Error) {
      this.io.err(`error checking APIBindings: ${r.message}\n`);
      return;
    }
    if (r.status === 403) return;
    if (r.status !== 200) {
      this.io.err(`error checking APIBindings: ${apiErrorMessage(r)}\n`);
      return;
    }
    type Claim = { group?: string; resource?: string; identityHash?: string; verbs?: string[]; state?: string };
    const gri = (c: Claim) => `${c.group ?? ''}/${c.resource ?? ''}/${c.identityHash ?? ''}`;
    const text = (c: Claim) => (!c.group ? (c.resource ?? '') : c.identityHash ? `${c.resource}.${c.group}:${c.identityHash}` : `${c.resource}.${c.group}`);
    for (const b of (r.json?.items ?? []) as { metadata?: { name?: string }; spec?: { permissionClaims?: Claim[] }; status?: { exportPermissionClaims?: Claim[] } }[]) {
      const name = b.metadata?.name ?? '';
      for (const exported of b.status?.exportPermissionClaims ?? []) {
        let found = false;
        let ack = false;
        let verbsMatch = false;
        let expected: string[] = [];
        let actual: string[] = [];
        for (const claim of b.spec?.permissionClaims ?? []) {
          if (gri(claim) !== gri(exported)) continue;
          found = true;
          ack = claim.state === 'Accepted' || claim.state === 'Rejected';
          expected = [...new Set(exported.verbs ?? [])];
          actual = [...new Set(claim.verbs ?? [])];
          verbsMatch = actual.every((v) => expected.includes(v)) && expected.every((v) => actual.includes(v));
        }
        if (!found) this.io.err(`Warning: claim for ${text(exported)} exported but not specified on APIBinding ${name}\nAdd this claim to the APIBinding's Spec.\n`);
        if (!ack) this.io.err(`Warning: claim for ${text(exported)} specified on APIBinding ${name} but not accepted or rejected.\n`);
        if (!verbsMatch) this.io.err(`Warning: allowed verbs (${actual.join(',')}) on claim for ${text(exported)} on APIBinding ${name} do not match expected verbs (${expected.join(',')}).\n`);
      }
    }
  }

  /** `kubectl ws -`: swaps the current and previous contexts (kcp's swapContexts). */
  private async swap(short: boolean): Promise<void> {
    const file = this.client.kubeconfig.file;
    const currentName = this.client.contextName();
    let currentContext = getNamed<KubeconfigContext>(file.contexts, 'context', currentName);
    if (!currentContext) throw new PluginError(`current ${JSON.stringify(currentName)} context not found`);
    let prev = getNamed<KubeconfigContext>(file.contexts, 'context', PREVIOUS_KEY);
    if (!prev) throw new PluginError('no previous workspace found in kubeconfig');
    const clusters = new Map(file.clusters.map((c) => [c.name, c.cluster]));
    if (currentContext.cluster === CURRENT_KEY) {
      const oldCluster = clusters.get(CURRENT_KEY);
      if (!oldCluster) throw new PluginError(`cluster ${JSON.stringify(currentContext.cluster)} not found in kubeconfig`);
      currentContext = { ...currentContext, cluster: PREVIOUS_KEY };
      setNamed(file.clusters, 'cluster', PREVIOUS_KEY, oldCluster);
    }
    if (prev.cluster === PREVIOUS_KEY) {
      const prevCluster = clusters.get(PREVIOUS_KEY);
      if (!prevCluster) throw new PluginError(`cluster ${JSON.stringify(currentContext.cluster)} not found in kubeconfig`);
      prev = { ...prev, cluster: CURRENT_KEY };
      setNamed(file.clusters, 'cluster', CURRENT_KEY, prevCluster);
    }
    setNamed(file.contexts, 'context', CURRENT_KEY, prev);
    setNamed(file.contexts, 'context', PREVIOUS_KEY, currentContext);
    file['current-context'] = CURRENT_KEY;
    await this.client.save();
    const server = getNamed<KubeconfigCluster>(file.clusters, 'cluster', prev.cluster)!.server;
    await this.warnUnresolvedClaims(server);
    const msg = currentWorkspaceMessage(server, short);
    if (msg !== undefined) this.io.out(`${msg}\n`);
  }

  /** `kubectl ws tree [--full]`: the current workspace and everything below it, drawn like treeprint. */
  /**
   * `kubectl ws tree [--full] [--wide]`: with --wide each node also shows its Workspace's phase (`-` for the top one,
   * whose Workspace is not listed) and its LogicalCluster's (`Unknown` when it cannot be read), in columns aligned as
   * Go's tabwriter (padding 2) aligns kcp's.
   */
  async tree(full: boolean, wide = false): Promise<void> {
    const { base, path } = this.currentURL();
    const name = full ? path : path.slice(path.lastIndexOf(':') + 1);
    const label = wide ? await this.wideLabel(base, path, name, undefined) : name;
    const lines: string[] = ['.'];
    const root = { label, children: await this.branch(base, path, name, full, wide) };
    draw(root, '', true, lines);
    if (wide) this.io.out(`${alignTabs(lines).join('\n')}\n`);
    else this.io.out(`${lines.join('\n')}\n\n`);
  }

  private async branch(base: URL, path: string, parentName: string, full: boolean, wide: boolean): Promise<TreeNode[]> {
    const r = await this.client.send('GET', base, path, WS);
    if (r.status === 404) return [];
    if (r.status !== 200) throw new PluginError(apiErrorMessage(r));
    const out: TreeNode[] = [];
    for (const ws of (r.json?.items ?? []) as any[]) {
      if (ws.metadata?.deletionTimestamp) continue;
      const parsed = parseClusterURL(ws.spec?.URL ?? '');
      if (!parsed || !ws.spec?.URL) throw new PluginError(`current config context URL ${JSON.stringify(ws.spec?.URL ?? '')} does not point to workspace`);
      const name = full ? `${parentName}:${ws.metadata.name}` : ws.metadata.name;
      const label = wide ? await this.wideLabel(base, parsed.path, name, ws.status?.phase) : name;
      out.push({ label, children: await this.branch(base, parsed.path, name, full, wide) });
    }
    return out;
  }

  /** kcp's formatWideName: `<name>\tws=<workspace phase or ->\tlc=<logical cluster phase or Unknown>`. */
  private async wideLabel(base: URL, path: string, name: string, workspacePhase: string | undefined): Promise<string> {
    const r = await this.client.send('GET', base, path, '/apis/core.kcp.io/v1alpha1/logicalclusters/cluster').catch(() => undefined);
    const lcPhase = (r?.status === 200 && typeof r.json?.status?.phase === 'string' && r.json.status.phase) || 'Unknown';
    return `${name}\tws=${workspacePhase || '-'}\tlc=${lcPhase}`;
  }

  /**
   * `kubectl create workspace <name> [--type] [--enter] [--ignore-existing] [--location-selector]` (kcp's
   * CreateWorkspaceOptions.Run): the selector goes into spec.location.selector as metav1.ParseToLabelSelector makes it.
   */
  async create(name: string, opts: { type?: string; enter?: boolean; ignoreExisting?: boolean; locationSelector?: string; createContext?: string; readyTimeoutMs?: number }): Promise<void> {
    const { base, path: current } = this.currentURL();
    if (opts.ignoreExisting && opts.type && !(opts.type === 'root' || opts.type.startsWith('root:'))) {
      throw new PluginError('--ignore-existing must not be used with non-absolute type path');
    }
    let wanted: TypeRef | undefined;
    if (opts.type) {
      const i = opts.type.lastIndexOf(':');
      wanted = i < 0 ? { name: opts.type.toLowerCase() } : { name: opts.type.slice(i + 1).toLowerCase(), path: opts.type.slice(0, i) };
    }
    const spec: Record<string, unknown> = wanted ? { type: wanted } : {};
    if (opts.locationSelector) {
      try {
        spec.location = { selector: parseToLabelSelectorSpec(opts.locationSelector) };
      } catch (err) {
        // CreateWorkspaceOptions.Validate's wording.
        throw new PluginError(`invalid location selector: ${(err as Error).message}`);
      }
    }
    const body = { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec };
    let r = await this.client.send('POST', base, current, WS, body);
    let preExisting = false;
    if (r.status === 409 && r.json?.reason === 'AlreadyExists' && opts.ignoreExisting) {
      preExisting = true;
      r = await this.client.send('GET', base, current, `${WS}/${encodeURIComponent(name)}`);
    }
    if (r.status < 200 || r.status >= 300) throw new PluginError(apiErrorMessage(r));
    let ws = r.json;
    const actual: TypeRef = ws.spec?.type ?? { name: '' };
    const reference = `Workspace ${JSON.stringify(name)} (type ${typeString(actual)})`;
    const timeout = opts.readyTimeoutMs ?? 60_000;
    if (preExisting) {
      if (wanted && ((actual.name !== '' && actual.name !== wanted.name) || (actual.path ?? '') !== (wanted.path ?? ''))) {
        throw new PluginError(`workspace ${JSON.stringify(name)} cannot be created with type ${typeString(wanted)}, it already exists with different type ${typeString(actual)}`);
      }
      this.io.out(ws.status?.phase !== 'Ready' && timeout > 0 ? `${reference} already exists. Waiting for it to be ready...\n` : `${reference} already exists.\n`);
    } else if (ws.status?.phase !== 'Ready') {
      this.io.out(`${reference} created. Waiting for it to be ready...\n`);
    }
    const deadline = Date.now() + timeout;
    while (ws.status?.phase !== 'Ready') {
      if (Date.now() > deadline) throw new PluginError('context deadline exceeded');
      await new Promise((res) => setTimeout(res, 100));
      const g = await this.client.send('GET', base, current, `${WS}/${encodeURIComponent(name)}`);
      if (g.status !== 200) throw new PluginError(apiErrorMessage(g));
      ws = g.json;
    }
    this.io.out(`${reference} is ready to use.\n`);
    // --create-context: a context for the new workspace (overwritten with --ignore-existing), switched to with --enter
    // instead of entering it.
    if (opts.createContext) {
      await this.createContext(opts.createContext, { clusterURL: ws.spec?.URL, overwrite: !!opts.ignoreExisting, keepCurrent: !opts.enter });
      return;
    }
    if (opts.enter) await this.use(name, false);
  }

  /**
   * `kubectl ws create-context [name] [--overwrite]` (kcp's CreateContextOptions.Run): a kubeconfig context named `name`
   * (default: the current workspace's path) with a copy of the current cluster entry pointing at `clusterURL` (default:
   * the current server), made the current context unless `keepCurrent`.
   */
  async createContext(name: string | undefined, opts: { overwrite?: boolean; keepCurrent?: boolean; clusterURL?: string } = {}): Promise<void> {
    const file = this.client.kubeconfig.file;
    const currentName = this.client.contextName();
    const currentContext = getNamed<KubeconfigContext>(file.contexts, 'context', currentName);
    if (!currentContext) throw new PluginError(`current context ${JSON.stringify(currentName)} is not found in kubeconfig`);
    const currentCluster = getNamed<KubeconfigCluster>(file.clusters, 'cluster', currentContext.cluster);
    if (!currentCluster) throw new PluginError(`current cluster ${JSON.stringify(currentContext.cluster)} is not found in kubeconfig`);
    const parsed = parseClusterURL(currentCluster.server);
    if (!parsed) throw new PluginError(`current URL ${JSON.stringify(currentCluster.server)} does not point to a workspace`);
    const contextName = name || parsed.path;
    const existedBefore = file.contexts.some((c) => c.name === contextName);
    if (existedBefore && !opts.overwrite) throw new PluginError(`context ${JSON.stringify(contextName)} already exists in kubeconfig, use --overwrite to update it`);
    const wasCurrent = file['current-context'] === contextName;
    setNamed(file.clusters, 'cluster', contextName, { ...currentCluster, ...(opts.clusterURL ? { server: opts.clusterURL } : {}) });
    setNamed(file.contexts, 'context', contextName, { ...currentContext, cluster: contextName });
    if (!opts.keepCurrent) file['current-context'] = contextName;
    await this.client.save();
    const verb = existedBefore ? 'Updated' : 'Created';
    this.io.out(opts.keepCurrent || wasCurrent ? `${verb} context ${JSON.stringify(contextName)}.\n` : `${verb} context ${JSON.stringify(contextName)} and switched to it.\n`);
  }
}

interface TreeNode {
  label: string;
  children: TreeNode[];
}

/**
 * text/tabwriter with padding 2 and spaces: every tab-terminated cell padded to its column's widest (in characters)
 * plus 2, over the lines that have that column; the text after the last tab is left as it is.
 */
function alignTabs(lines: string[]): string[] {
  const rows = lines.map((l) => l.split('\t'));
  const widths: number[] = [];
  for (const cells of rows) for (let c = 0; c < cells.length - 1; c++) widths[c] = Math.max(widths[c] ?? 0, [...cells[c]!].length);
  return rows.map((cells) => cells.map((cell, c) => (c < cells.length - 1 ? cell + ' '.repeat(widths[c]! + 2 - [...cell].length) : cell)).join(''));
}

/** Draws like github.com/xlab/treeprint: `├── `, `└── `, with `│   ` / `    ` indentation per level. */
function draw(node: TreeNode, prefix: string, last: boolean, lines: string[]): void {
  lines.push(`${prefix}${last ? '└── ' : '├── '}${node.label}`);
  const childPrefix = prefix + (last ? '    ' : '│   ');
  node.children.forEach((c, i) => draw(c, childPrefix, i === node.children.length - 1, lines));
}
