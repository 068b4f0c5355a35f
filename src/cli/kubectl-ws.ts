/**
 * The `kubectl ws` plugin (executable `kubectl-ws`) and `kubectl create workspace` (executable
 * `kubectl-create-workspace`), with kcp's command shape:
 *   kubectl ws [<workspace>|..|.|-|:|~|~:a|:root:a:b|a:b] [--short]     (no argument: go home, like `cd`)
 *   kubectl ws use|cd <workspace>     kubectl ws current [--short]     kubectl ws tree [--full]
 *   kubectl ws create <name> [--type=<path:name>] [--enter] [--ignore-existing]   (deprecated spelling)
 *   kubectl create workspace <name> [--type=<path:name>] [--enter] [--ignore-existing]
 * Errors print as `Error: <message>` and exit 1, like the cobra-based original.
 */
import { Command } from 'commander';
import { PluginError, WorkspaceCommands, type Output } from '../tenancy/cli/workspace-commands.js';
import { WorkspaceClient, kubeconfigPath } from '../tenancy/cli/workspace-client.js';

const io: Output = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

const createDeprecation =
  "Command \"create\" is deprecated, install the 'kubectl create workspace' plugin instead, compare https://docs.kcp.io/kcp/latest/setup/kubectl-plugin/.\n";

async function withCommands(kubeconfig: string | undefined, fn: (c: WorkspaceCommands) => Promise<void> | void): Promise<void> {
  const client = await WorkspaceClient.open(kubeconfigPath(kubeconfig));
  try {
    await fn(new WorkspaceCommands(client, io));
  } finally {
    client.close();
  }
}

function addCreateOptions(cmd: Command): Command {
  return cmd
    .argument('<name>', 'name of the workspace')
    .option('--type <type>', 'A workspace type. The default type depends on where this child workspace is created.')
    .option('--enter', 'Immediately enter the created workspace')
    .option('--ignore-existing', 'Ignore if the workspace already exists. Requires none or absolute type path.')
    .option('--kubeconfig <path>', 'Path to the kubeconfig file to use');
}

type CreateFlags = { type?: string; enter?: boolean; ignoreExisting?: boolean; kubeconfig?: string };

function runCreate(name: string, flags: CreateFlags): Promise<void> {
  return withCommands(flags.kubeconfig, (c) => c.create(name, { type: flags.type, enter: flags.enter, ignoreExisting: flags.ignoreExisting }));
}

function workspaceProgram(): Command {
  const program = new Command('kubectl ws')
    .description('Manages KCP workspaces')
    // Flags after a subcommand belong to it (`ws current --short`), as with cobra.
    .enablePositionalOptions()
    .argument('[workspace]', 'workspace to enter: <name>, a:b, :root:a, :, .., -, .')
    .option('--short', 'Print only the name of the workspace, e.g. for integration into the shell prompt')
    .option('--kubeconfig <path>', 'Path to the kubeconfig file to use')
    .action((workspace: string | undefined, flags: { short?: boolean; kubeconfig?: string }) =>
      withCommands(flags.kubeconfig, async (c) => {
        await c.use(workspace ?? '', !!flags.short);
      }),
    );
  program
    .command('use')
    .alias('cd')
    .description('Uses the given workspace as the current workspace. Using - means previous workspace, .. means parent workspace, . mean current, ~ means home workspace')
    .argument('<workspace>')
    .option('--short', 'Print only the name of the workspace, e.g. for integration into the shell prompt')
    .option('--kubeconfig <path>', 'Path to the kubeconfig file to use')
    .action((workspace: string, flags: { short?: boolean; kubeconfig?: string }) => withCommands(flags.kubeconfig, (c) => c.use(workspace, !!flags.short)));
  program
    .command('current')
    .description("Print the current workspace. Same as 'kubectl ws .'.")
    .option('--short', 'Print only the name of the workspace, e.g. for integration into the shell prompt')
    .option('--kubeconfig <path>', 'Path to the kubeconfig file to use')
    .action((flags: { short?: boolean; kubeconfig?: string }) => withCommands(flags.kubeconfig, (c) => c.current(!!flags.short)));
  program
    .command('tree')
    .description('Print the current workspace tree.')
    .option('-f, --full', 'Show full workspace names')
    .option('--kubeconfig <path>', 'Path to the kubeconfig file to use')
    .action((flags: { full?: boolean; kubeconfig?: string }) => withCommands(flags.kubeconfig, (c) => c.tree(!!flags.full)));
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

async function run(program: Command, argv: string[]): Promise<void> {
  program.exitOverride();
  program.configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith('error: ') ? `Error: ${s.slice('error: '.length)}` : s) });
  try {
    await program.parseAsync(argv, { from: 'user' });
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
