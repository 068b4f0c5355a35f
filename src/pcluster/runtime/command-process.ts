/**
 * `kubectl exec` on the simulated cluster: the command runs as a LOCAL child process of the pcluster (a simulation,
 * not isolation: the pcluster listens on loopback only, and whoever may exec may run programs as the pcluster's
 * user), in the container's working directory with the container's environment. No shell is added: argv[0] is looked
 * up on PATH, as a container runtime does. With a TTY, the command runs under util-linux `script` (a pseudo-terminal
 * without native modules; `script` runs it through `sh -c`, and the terminal keeps its initial size: resizes are not
 * passed on). The process is killed when the client goes away or the pod is deleted.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { CommandOutcome, RemoteCommandStreams } from '../../apiserver/streaming/remote-command.js';

export interface CommandSpec {
  command: string[];
  cwd: string;
  env: Record<string, string>;
  tty: boolean;
}

/** POSIX-shell quoting of one argument. */
const shellQuote = (arg: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/** Runs the command for the session; `onPodGone` registers the kill for the pod's deletion (returns its undo). */
export function runCommand(session: RemoteCommandStreams, spec: CommandSpec, onPodGone: (kill: () => void) => () => void): void {
  // The client may have gone while the command was being prepared: nothing to run it for (and nothing would stop it).
  if (!session.open) return;
  const [file, ...args] = spec.command;
  const env = spec.tty ? { ...spec.env, TERM: spec.env.TERM ?? 'xterm' } : spec.env;
  const child = spec.tty
    ? spawn('script', ['-qfec', spec.command.map(shellQuote).join(' '), '/dev/null'], { cwd: spec.cwd, env, stdio: 'pipe' })
    : spawn(file!, args, { cwd: spec.cwd, env, stdio: 'pipe' });
  let outcome: CommandOutcome | undefined;
  const kill = () => child.kill('SIGKILL');
  const undo = onPodGone(kill);
  session.once('close', kill);
  child.stdin.on('error', () => {});
  if (session.stdin) session.stdin.pipe(child.stdin);
  else child.stdin.end();
  if (session.stdout) child.stdout.pipe(session.stdout, { end: false });
  else child.stdout.resume();
  if (session.stderr) child.stderr.pipe(session.stderr, { end: false });
  else if (session.stdout && spec.tty) child.stderr.pipe(session.stdout, { end: false });
  else child.stderr.resume();
  child.once('error', (err: NodeJS.ErrnoException) => {
    outcome = {
      error: err.code === 'ENOENT'
        ? `error executing command in container: failed to exec in container: exec: ${JSON.stringify(file)}: executable file not found in $PATH`
        : `error executing command in container: ${err.message}`,
    };
  });
  child.once('close', (code, signal) => {
    undo();
    session.off('close', kill);
    const exitCode = code ?? 128 + (signal ? (constants.signals as Record<string, number>)[signal] ?? 9 : 0);
    session.finish(outcome ?? { exitCode, command: spec.command });
  });
}
