/**
 * What a simulated container prints, when its command is plain enough to know without running anything: `echo`,
 * `cat` and `hexdump -C` of files in its volumes, `env`/`printenv`, `date`, `hostname`, with `sleep`, `true`, `false`, `:` and `exit`
 * around them — directly (`["echo", "hello"]`) or as a `sh -c` script of such statements joined by `;`, `&&`, `||` or
 * newlines (the shapes of the examples' and e2e suites' pods: the CronJob tutorial's `date; echo Hello from the
 * Kubernetes cluster`, upstream's `echo 'Hello World' ; sleep 240`, `env` and `cat /etc/podinfo/podname` pods). Words
 * are expanded as busybox's sh does for what appears here: single and double quotes, backslashes (a backslash-newline
 * continues the line), `$VAR` and `${VAR}` from the container's environment, split into fields when unquoted, and
 * `NAME=value cmd` for one command's environment; the kubelet's own `$(VAR)` references in command and args were
 * expanded before (container-env.ts). Anything else — pipes, redirections, command substitution, globs, control flow,
 * `echo -e` escapes, output that would come only after a `sleep`, another program — makes the output unknown:
 * undefined, and the container keeps the simulator's own log lines. Nothing is executed.
 */

/** Reads a file the container sees (its volumes: volume-view.ts); undefined when there is none. */
export type FileReader = (path: string) => string | undefined;

/** At most this many lines are kept (a container log holds the last 1000: container-log.ts). */
const MAX_LINES = 1000;

/**
 * The output lines of `words` (a container's command and args, $(VAR) already expanded), or undefined when unknown.
 * `env` is what the program sees; `files` what `cat` reads.
 */
export function plainOutput(words: readonly string[], env: Readonly<Record<string, string>>, files: FileReader = () => undefined, now = new Date()): string[] | undefined {
  if (words.length === 0 || words.some((w) => typeof w !== 'string')) return undefined;
  const out = new Output();
  if (words.length >= 3 && /^(\/bin\/|\/usr\/bin\/)?(sh|bash|ash|dash)$/.test(words[0]!) && words[1] === '-c') {
    if (runScript(words[2]!, env, files, now, out) === undefined) return undefined;
  } else if (runCommand(words, env, files, now, out) === undefined) return undefined;
  return out.lines();
}

/** An environment in which every variable is set (but TZ, so `date` counts as known): for what a command does whatever it reads. */
function anyEnvironment(): Record<string, string> {
  return new Proxy<Record<string, string>>({ HOSTNAME: 'x' }, { get: (_t, k) => (typeof k === 'string' ? 'x' : undefined), has: (_t, k) => k !== 'TZ' });
}

/**
 * Whether plainOutput knows that `words` print something, before the environment and volumes are read: every
 * variable is taken to be set and every file to exist (so `printenv X`, `env` and `cat F` count as printing).
 */
export function hasPlainOutput(words: readonly string[]): boolean {
  try {
    const lines = plainOutput(words, anyEnvironment(), () => 'x');
    return lines !== undefined && lines.length > 0;
  } catch {
    return false;
  }
}

/**
 * How a plain command runs, whatever its environment and files hold: the seconds its `sleep`s take and its exit
 * status (the kubelet's simulated run of a container: pod-run.ts). Undefined when it is not plain.
 */
export function plainRun(words: readonly string[]): { sleepSeconds: number; exitCode: number } | undefined {
  const anyEnv = anyEnvironment();
  if (words.length === 0 || words.some((w) => typeof w !== 'string')) return undefined;
  const out = new Output(true);
  const now = new Date();
  let status: Status | undefined;
  try {
    status = words.length >= 3 && /^(\/bin\/|\/usr\/bin\/)?(sh|bash|ash|dash)$/.test(words[0]!) && words[1] === '-c' ? runScript(words[2]!, anyEnv, () => 'x', now, out) : runCommand(words, anyEnv, () => 'x', now, out);
  } catch {
    return undefined;
  }
  if (status === undefined) return undefined;
  return { sleepSeconds: out.sleptSeconds, exitCode: typeof status === 'object' ? status.exit : status };
}

/** What a program wrote to its output: text that becomes lines (a last line without its newline counts too). */
class Output {
  private readonly done: string[] = [];
  private partial = '';
  /** Whether anything was written after a sleep (that output would come later, not at start). */
  slept = false;
  sleptSeconds = 0;
  wrote = false;

  /** `timing`: only how long it runs matters, so output after a sleep is fine. */
  constructor(readonly timing = false) {}

  write(text: string): void {
    if (!text) return;
    this.wrote = true;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      this.done.push(this.partial + text.slice(start, nl));
      this.partial = '';
      start = nl + 1;
      // Trimmed in batches: one splice per line would move the kept lines each time.
      if (this.done.length > 2 * MAX_LINES) this.done.splice(0, this.done.length - MAX_LINES);
    }
    this.partial += text.slice(start);
  }

  lines(): string[] {
    const all = this.partial ? [...this.done, this.partial] : [...this.done];
    return all.slice(-MAX_LINES);
  }
}

type Status = number | { exit: number };

/** Runs one simple command; returns its exit status (`exit` as { exit }), or undefined when it cannot be known. */
function runCommand(argv: readonly string[], env: Readonly<Record<string, string>>, files: FileReader, now: Date, out: Output): Status | undefined {
  const name = (argv[0] ?? '').replace(/^(\/usr)?\/bin\//, '');
  const args = argv.slice(1);
  const write = (text: string): boolean => {
    // Output after a sleep would appear only then: not something to print at the container's start.
    if (out.slept && text && !out.timing) return false;
    out.write(text);
    return true;
  };
  switch (name) {
    case 'echo': {
      let i = 0;
      let newline = true;
      for (; i < args.length && /^-[neE]+$/.test(args[i]!); i++) {
        if (args[i]!.includes('n')) newline = false;
        if (args[i]!.includes('e') && args.slice(i + 1).some((a) => a.includes('\\'))) return undefined;
      }
      return write(args.slice(i).join(' ') + (newline ? '\n' : '')) ? 0 : undefined;
    }
    case 'cat': {
      if (args.length === 0 || args.some((a) => a.startsWith('-'))) return undefined;
      let text = '';
      for (const a of args) {
        const content = files(a);
        if (content === undefined) return undefined;
        text += content;
      }
      return write(text) ? 0 : undefined;
    }
    case 'hexdump': {
      // `hexdump -C FILE` (upstream's binary ConfigMap spec reads its volume so).
      if (args.length !== 2 || args[0] !== '-C') return undefined;
      const content = files(args[1]!);
      if (content === undefined) return undefined;
      return write(canonicalHexdump(Buffer.from(content, 'latin1'))) ? 0 : undefined;
    }
    case 'env':
    case 'printenv': {
      if (args.length === 0) {
        let text = '';
        for (const [k, v] of Object.entries(env)) text += `${k}=${v}\n`;
        return write(text) ? 0 : undefined;
      }
      if (name === 'env') return undefined;
      let status = 0;
      let text = '';
      for (const a of args) {
        if (a in env) text += `${env[a]}\n`;
        else status = 1;
      }
      return write(text) ? status : undefined;
    }
    case 'date':
      if (args.length > 0 || 'TZ' in env) return undefined;
      return write(`${unixDate(now)}\n`) ? 0 : undefined;
    case 'hostname':
      if (args.length > 0 || !('HOSTNAME' in env)) return undefined;
      return write(`${env.HOSTNAME}\n`) ? 0 : undefined;
    case 'sleep':
      if (args.length !== 1 || !/^\d+(\.\d+)?$/.test(args[0]!)) return undefined;
      if (Number(args[0]) > 0) out.slept = true;
      out.sleptSeconds += Number(args[0]);
      return 0;
    case 'true':
    case ':':
      return 0;
    case 'false':
      return 1;
    case 'exit': {
      if (args.length === 0) return { exit: 0 };
      return args.length === 1 && /^\d+$/.test(args[0]!) ? { exit: Number(args[0]) & 255 } : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * `hexdump -C`: 16 bytes a line — the offset, the bytes in hex (two groups of 8), the printable ones between bars —,
 * a repeated line shown once then `*`, and the length last.
 */
export function canonicalHexdump(data: Buffer): string {
  let out = '';
  let previous: string | undefined;
  let starred = false;
  for (let off = 0; off < data.length; off += 16) {
    const chunk = data.subarray(off, off + 16);
    const hex = [...chunk].map((b, i) => b.toString(16).padStart(2, '0') + (i === 7 ? '  ' : ' ')).join('');
    const body = `${hex.padEnd(49)} |${[...chunk].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('')}|`;
    if (body === previous && chunk.length === 16) {
      if (!starred) out += '*\n';
      starred = true;
      continue;
    }
    starred = false;
    previous = body;
    out += `${off.toString(16).padStart(8, '0')}  ${body}\n`;
  }
  return data.length > 0 ? `${out}${data.length.toString(16).padStart(8, '0')}\n` : '';
}

/** `date`'s default output in UTC (a container's TZ when none is set): `Sat Nov  8 09:05:07 UTC 2026` (day padded with a space). */
function unixDate(d: Date): string {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}

/** A word of a script: its text, and whether it may be an assignment (`NAME=value` written literally, unquoted). */
type Token = { word: string; literal: boolean } | { op: ';' | '&&' | '||' };

/** Variables a shell sets itself (not from the container's environment): their values are not known here. */
const SHELL_VARIABLES = new Set(['PWD', 'OLDPWD', 'PPID', 'RANDOM', 'SHLVL', 'UID', 'EUID', 'LINENO', 'SECONDS', 'IFS', 'OPTIND', 'PS1', 'PS2', 'PS4']);

function runScript(script: string, env: Readonly<Record<string, string>>, files: FileReader, now: Date, out: Output): Status | undefined {
  const tokens = tokenize(script, env);
  if (!tokens) return undefined;
  let words: { word: string; literal: boolean }[] = [];
  let status = 0;
  let exitCode = 0;
  let skip = false;
  /** Runs the words gathered: true to go on, false after `exit`, undefined when the output cannot be known. */
  const flush = (): boolean | undefined => {
    if (words.length === 0) return true;
    const cmd = words;
    words = [];
    if (skip) return true;
    // `NAME=value cmd ...`: assignments for that command's environment only (its arguments were expanded before).
    let n = 0;
    while (n < cmd.length && cmd[n]!.literal && /^[A-Za-z_][A-Za-z0-9_]*=/.test(cmd[n]!.word)) n++;
    // Assignments alone set shell variables later words would expand: not followed here.
    if (n > 0 && n === cmd.length) return undefined;
    const local = n === 0 ? env : { ...env, ...Object.fromEntries(cmd.slice(0, n).map(({ word: w }) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)])) };
    const r = runCommand(cmd.slice(n).map((t) => t.word), local, files, now, out);
    if (r === undefined) return undefined;
    if (typeof r === 'object') {
      exitCode = r.exit;
      return false;
    }
    status = r;
    return true;
  };
  for (const t of tokens) {
    if ('word' in t) {
      words.push(t);
      continue;
    }
    const go = flush();
    if (go === undefined) return undefined;
    if (!go) return { exit: exitCode };
    // `a && b` runs b only after a succeeded, `a || b` only after it failed; `;` always.
    skip = (t.op === '&&' && status !== 0) || (t.op === '||' && status === 0);
  }
  const last = flush();
  if (last === undefined) return undefined;
  return last ? status : { exit: exitCode };
}

/**
 * The words and separators of a script, expanded; undefined for anything beyond the plain shapes (pipes,
 * redirections, command substitution, globs, subshells, control flow, background jobs, shell-set variables).
 */
function tokenize(script: string, env: Readonly<Record<string, string>>): Token[] | undefined {
  const tokens: Token[] = [];
  let i = 0;
  /** The word being built (undefined: none yet), and whether all of it was written literally, unquoted. */
  let word: string | undefined;
  let literal = true;
  const end = () => {
    if (word !== undefined) tokens.push({ word, literal });
    word = undefined;
    literal = true;
  };
  const append = (text: string, asLiteral: boolean) => {
    word = (word ?? '') + text;
    if (!asLiteral) literal = false;
  };
  const separator = (op: ';' | '&&' | '||') => {
    end();
    const last = tokens[tokens.length - 1];
    // A newline right after `&&` or `||` continues the list.
    if (op === ';' && last && 'op' in last && last.op !== ';') return;
    tokens.push({ op });
  };
  const variable = (): string | undefined => {
    // At a `$`: $NAME or ${NAME}.
    const braced = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(script.slice(i, i + 256));
    const m = braced ?? /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(script.slice(i, i + 256));
    if (!m || SHELL_VARIABLES.has(m[1]!)) return undefined;
    i += m[0].length;
    return env[m[1]!] ?? '';
  };
  while (i < script.length) {
    const c = script[i]!;
    if (c === ' ' || c === '\t') {
      end();
      i++;
    } else if (c === '\n' || c === ';') {
      separator(';');
      i++;
    } else if (script.startsWith('&&', i) || script.startsWith('||', i)) {
      separator(script.slice(i, i + 2) as '&&' | '||');
      i += 2;
    } else if (c === "'") {
      const close = script.indexOf("'", i + 1);
      if (close < 0) return undefined;
      append(script.slice(i + 1, close), false);
      i = close + 1;
    } else if (c === '"') {
      let s = '';
      i++;
      for (;;) {
        if (i >= script.length) return undefined;
        const d = script[i]!;
        if (d === '"') break;
        if (d === '`') return undefined;
        if (d === '\\' && script[i + 1] === '\n') i += 2;
        else if (d === '\\' && i + 1 < script.length && '$`"\\'.includes(script[i + 1]!)) {
          s += script[i + 1];
          i += 2;
        } else if (d === '$') {
          const v = variable();
          if (v === undefined) return undefined;
          s += v;
        } else {
          s += d;
          i++;
        }
      }
      append(s, false);
      i++;
    } else if (c === '\\') {
      if (i + 1 >= script.length) return undefined;
      // A backslash-newline is a line continuation: both go.
      if (script[i + 1] !== '\n') append(script[i + 1]!, false);
      i += 2;
    } else if (c === '$') {
      const v = variable();
      if (v === undefined) return undefined;
      // Unquoted: split into fields on blanks as the shell does; a glob character would be expanded against files.
      if (/[*?[]/.test(v)) return undefined;
      literal = false;
      const fields = v.split(/[ \t\n]+/);
      for (let f = 0; f < fields.length; f++) {
        if (f > 0) end();
        if (fields[f]) append(fields[f]!, false);
      }
    } else if ('|&<>()`*?[]{}#~'.includes(c)) {
      // A comment, pipe, redirection, background job, subshell, glob or brace: not a plain script.
      return undefined;
    } else {
      append(c, true);
      i++;
    }
  }
  end();
  // Control flow starts at a command's first word (`echo done` is plain).
  let first = true;
  for (const t of tokens) {
    if ('op' in t) first = true;
    else if (first) {
      if (/^(if|then|else|elif|fi|for|while|until|do|done|case|esac|function|select|!)$/.test(t.word)) return undefined;
      first = false;
    }
  }
  return tokens;
}
