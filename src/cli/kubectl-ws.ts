/**
 * The `kubectl ws` plugin (executable `kubectl-ws`) and `kubectl create workspace` (executable
 * `kubectl-create-workspace`), with kcp's command shape:
 *   kubectl ws [<workspace>|..|.|-|:|~|~:a|:root:a:b|a:b] [--short]     (no argument: go home, like `cd`)
 *   kubectl ws use|cd <workspace>     kubectl ws current [--short]     kubectl ws tree [--full] [--wide]
 *   kubectl ws create-context [<name>] [--overwrite]
 *   kubectl ws create <name> [--type=<path:name>] [--enter] [--ignore-existing] [--location-selector=<selector>] [--create-context=<name>]   (deprecated spelling)
 *   kubectl create workspace <name> [--type=<path:name>] [--enter] [--ignore-existing] [--location-selector=<selector>] [--create-context=<name>]
 * Every command also takes kubectl's connection flags (--kubeconfig, --context, --user, --server/-s, --token,
 * --namespace/-n, --certificate-authority, --insecure-skip-tls-verify, --tls-server-name); tree and create take
 * --workspace/-w, as in kcp.
 * Errors print as `Error: <message>` and exit 1, like the cobra-based original.
 */
import { Command } from 'commander';
import { PluginError, WorkspaceCommands, type Output } from '../tenancy/cli/workspace-commands.js';
import { WorkspaceClient, kubeconfigPath, type ConnectionOverrides } from '../tenancy/cli/workspace-client.js';

const io: Output = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

const createDeprecation =
  "Command \"create\" is deprecated, install the 'kubectl create workspace' plugin instead, compare https://docs.kcp.io/kcp/latest/setup/kubectl-plugin/.\n";

/** The connection flags every command takes (see addConnectionOptions). */
type ConnectionFlags = ConnectionOverrides & { kubeconfig?: string };

async function withCommands(flags: ConnectionFlags, fn: (c: WorkspaceCommands) => Promise<void> | void): Promise<void> {
  const { kubeconfig, ...overrides } = flags;
  const client = await WorkspaceClient.open(kubeconfigPath(kubeconfig), overrides);
  try {
    await fn(new WorkspaceCommands(client, io));
  } finally {
    client.close();
  }
}

/**
 * kubectl's connection flags, as kcp's plugins bind them (kcp-dev/cli pkg/base Options.BindFlags): --kubeconfig and
 * clientcmd's override flags except --client-certificate, --client-key, --as, --as-group, --cluster and
 * --request-timeout; `--workspace/-w` only where kcp offers it (tree, create), not on use/current.
 */
function addConnectionOptions(cmd: Command, opts: { workspace: boolean }): Command {
  cmd
    .option('--kubeconfig <path>', 'Path to the kubeconfig file')
    .option('--context <name>', 'The name of the kubeconfig context to use')
    .option('--user <name>', 'The name of the kubeconfig user to use')
    .option('-s, --server <url>', 'The address and port of the Kubernetes API server')
    .option('--token <token>', 'Bearer token for authentication to the API server')
    .option('-n, --namespace <namespace>', 'If present, the namespace scope for this CLI request')
    .option('--certificate-authority <path>', 'Path to a cert file for the certificate authority')
    .option('--insecure-skip-tls-verify', "If true, the server's certificate will not be checked for validity. This will make your HTTPS connections insecure")
    .option('--tls-server-name <name>', 'Server name to use for server certificate validation. If it is not provided, the hostname used to contact the server is used');
  if (opts.workspace) {
    cmd.option(
      '-w, --workspace <path>',
      "Workspace path to target. If not specified, the current workspace from the kubeconfig will be used. Use a leading ':' for absolute paths (e.g. ':root:my-ws'), or omit it for relative paths (e.g. 'my-ws'). '.' stays in the current workspace, '..' navigates to the parent workspace.",
    );
  }
  return cmd;
}

function addCreateOptions(cmd: Command): Command {
  return addConnectionOptions(
    cmd
      .argument('<name>', 'name of the workspace')
      .option('--type <type>', 'A workspace type. The default type depends on where this child workspace is created.')
      .option('--enter', 'Immediately enter the created workspace')
      .option('--ignore-existing', 'Ignore if the workspace already exists. Requires none or absolute type path.')
      .option('--location-selector <selector>', 'A label selector to select the scheduling location of the created workspace.')
      .option('--create-context <name>', 'Create a kubeconfig context for the new workspace with the given name.'),
    { workspace: true },
  );
}

type CreateFlags = ConnectionFlags & { type?: string; enter?: boolean; ignoreExisting?: boolean; locationSelector?: string; createContext?: string };

function runCreate(name: string, flags: CreateFlags): Promise<void> {
  const { type, enter, ignoreExisting, locationSelector, createContext, ...connection } = flags;
  return withCommands(connection, (c) => c.create(name, { type, enter, ignoreExisting, locationSelector, createContext }));
}

function workspaceProgram(): Command {
  const program = addConnectionOptions(
    new Command('kubectl ws')
      .description('Manages KCP workspaces')
      // Flags after a subcommand belong to it (`ws current --short`), as with cobra.
      .enablePositionalOptions()
      .argument('[workspace]', 'workspace to enter: <name>, a:b, :root:a, :, .., -, .')
      .option('--short', 'Print only the name of the workspace, e.g. for integration into the shell prompt'),
    { workspace: false },
  ).action((workspace: string | undefined, flags: ConnectionFlags & { short?: boolean }) => {
    const { short, ...connection } = flags;
    return withCommands(connection, (c) => c.use(workspace ?? '', !!short));
  });
  addConnectionOptions(
    program
      .command('use')
      .alias('cd')
      .description('Uses the given workspace as the current workspace. Using - means previous workspace, .. means parent workspace, . mean current, ~ means home workspace')
      .argument('<workspace>')
      .option('--short', 'Print only the name of the workspace, e.g. for integration into the shell prompt'),
    { workspace: false },
  ).action((workspace: string, flags: ConnectionFlags & { short?: boolean }) => {
    const { short, ...connection } = flags;
    return withCommands(connection, (c) => c.use(workspace, !!short));
  });
  addConnectionOptions(
    program
      .command('current')
      .description("Print the current workspace. Same as 'kubectl ws .'.")
      .option('--short', 'Print only the name of the workspace, e.g. for integration into the shell prompt'),
    { workspace: false },
  ).action((flags: ConnectionFlags & { short?: boolean }) => {
    const { short, ...connection } = flags;
    return withCommands(connection, (c) => c.current(!!short));
  });
  addConnectionOptions(
    program.command('tree').description('Print the current workspace tree.').option('-f, --full', 'Show full workspace names').option('--wide', 'Show workspace and logical cluster status for each node'),
    { workspace: true },
  ).action((flags: ConnectionFlags & { full?: boolean; wide?: boolean }) => {
    const { full, wide, ...connection } = flags;
    return withCommands(connection, (c) => c.tree(!!full, !!wide));
  });
  addConnectionOptions(
    program
      .command('create-context')
      .description('Create a kubeconfig context for the current workspace')
      .argument('[name]', 'name of the context (default: the workspace path)')
      .option('--overwrite', 'Overwrite the context if it already exists'),
    { workspace: false },
  ).action((name: string | undefined, flags: ConnectionFlags & { overwrite?: boolean }) => {
    const { overwrite, ...connection } = flags;
    return withCommands(connection, (c) => c.createContext(name, { overwrite: !!overwrite }));
  });
  addCreateOptions(program.command('create').description('Creates a new workspace')).action((name: string, flags: CreateFlags) => {
    io.err(createDeprecation);
    return runCreate(name, flags);
  });
  return program;
}

function createWorkspaceProgram(): Command {
  return addCreateOptions(new Command('kubectl create workspace').description('Creates a new workspace')).action((name: string, flags: CreateFlags) =>
    runCreate(name, flags),
  );
}

const booleanFlags = new Set(['--short', '--enter', '--ignore-existing', '--full', '--wide', '--insecure-skip-tls-verify', '--overwrite']);

/** pflag accepts `--flag=true` / `--flag=false` for booleans; commander only the bare flag. */
function normalizeBooleanFlags(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const m = /^(--[a-z-]+)=(.*)$/.exec(a);
    if (m && booleanFlags.has(m[1]!)) {
      const v = m[2]!.toLowerCase();
      if (v === 'true' || v === '1' || v === 't') out.push(m[1]!);
      else if (v === 'false' || v === '0' || v === 'f') continue;
      else throw new PluginError(`invalid argument ${JSON.stringify(m[2])} for "${m[1]}" flag: strconv.ParseBool: parsing ${JSON.stringify(m[2])}: invalid syntax`);
      continue;
    }
    out.push(a);
  }
  return out;
}

async function run(program: Command, argv: string[]): Promise<void> {
  program.exitOverride();
  program.configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith('error: ') ? `Error: ${s.slice('error: '.length)}` : s) });
  try {
    await program.parseAsync(normalizeBooleanFlags(argv), { from: 'user' });
  } catch (err) {
    if (err instanceof PluginError) {
      process.stderr.write(`Error: ${err.message}\n`);
      process.exit(1);
    }
    const code = (err as { exitCode?: number; code?: string }).exitCode;
    if (typeof code === 'number') process.exit(code);
    process.stderr.write(`Error: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

/** Entry point of `kubectl-ws`. */
export function main(argv: string[]): Promise<void> {
  return run(workspaceProgram(), argv);
}

/** Entry point of `kubectl-create-workspace`. */
export function mainCreateWorkspace(argv: string[]): Promise<void> {
  return run(createWorkspaceProgram(), argv);
}
