/**
 * What a simulated container prints, when its command is plain enough to know without running anything: `echo`,
 * `env`/`printenv`, `date`, `hostname`, with `sleep`, `true`, `false`, `:` and `exit` around them — directly
 * (`["echo", "hello"]`) or as a `sh -c` script of such statements joined by `;`, `&&`, `||` or newlines (the shapes of
 * the examples' and e2e suites' pods: the CronJob tutorial's `date; echo Hello from the Kubernetes cluster`, upstream's
 * `echo 'Hello World' ; sleep 240` and `env` pods). Words are expanded as a shell would for what appears here: single
 * and double quotes, backslashes, `$VAR` and `${VAR}` from the container's environment; the kubelet's own `$(VAR)`
 * references in command and args were expanded before (container-env.ts). Anything else — pipes, redirections,
 * command substitution, control flow, another program — makes the output unknown: undefined, and the container keeps
 * the simulator's own log lines. Nothing is executed.
 */

/** The output lines of `words` (a container's command and args, $(VAR) already expanded), or undefined when unknown. */
export function plainOutput(words: readonly string[], env: Readonly<Record<string, string>>, now = new Date()): string[] | undefined {
  if (words.length === 0) return undefined;
  if (words.length >= 3 && /^(\/bin\/|\/usr\/bin\/)?(sh|bash|ash|dash)$/.test(words[0]!) && words[1] === '-c') return runScript(words[2]!, env, now);
  const out: string[] = [];
  return runCommand(words, env, now, out) === undefined ? undefined : out;
}

/**
 * Whether plainOutput knows that `words` print something, before the environment is read: every variable is taken
 * to be set (so `printenv X` and `env` count as printing).
 */
export function hasPlainOutput(words: readonly string[]): boolean {
  const anyEnv = new Proxy<Record<string, string>>({ HOSTNAME: 'x' }, { get: (_t, k) => (typeof k === 'string' ? 'x' : undefined), has: () => true });
  const lines = plainOutput(words, anyEnv);
  return lines !== undefined && lines.length > 0;
}

/** Runs one simple command; returns its exit status (`exit` as { exit }), or undefined when it cannot be known. */
function runCommand(words: readonly string[], outer: Readonly<Record<string, string>>, now: Date, out: string[]): number | { exit: number } | undefined {
  // `NAME=value cmd ...`: assignments for that command's environment only (its arguments were expanded before).
  let n = 0;
  while (n < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[n]!)) n++;
  // Assignments alone set shell variables later words would expand: not followed here.
  if (n > 0 && n === words.length) return undefined;
  const env: Readonly<Record<string, string>> = n === 0 ? outer : { ...outer, ...Object.fromEntries(words.slice(0, n).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)])) };
  const argv = words.slice(n);
  const name = (argv[0] ?? '').replace(/^(\/usr)?\/bin\//, '');
  const args = argv.slice(1);
  switch (name) {
    case 'echo': {
      let i = 0;
      while (i < args.length && /^-[neE]+$/.test(args[i]!)) i++;
      out.push(...args.slice(i).join(' ').split('\n'));
      return 0;
    }
    case 'env':
    case 'printenv': {
      if (args.length === 0) {
        for (const [k, v] of Object.entries(env)) out.push(...`${k}=${v}`.split('\n'));
        return 0;
      }
      if (name === 'env') return undefined;
      let status = 0;
      for (const a of args) {
        if (a in env) out.push(...env[a]!.split('\n'));
        else status = 1;
      }
      return status;
    }
    case 'date':
      if (args.length > 0) return undefined;
      out.push(goDate(now));
      return 0;
    case 'hostname':
      if (args.length > 0) return undefined;
      out.push(env.HOSTNAME ?? '');
      return 0;
    case 'sleep':
      return args.length === 1 && /^\d+(\.\d+)?$/.test(args[0]!) ? 0 : undefined;
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

/** `date`'s default output in UTC (the containers' TZ): `Sat Nov 28 18:45:00 UTC 2026`. */
function goDate(d: Date): string {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}

type Token = { word: string } | { op: ';' | '&&' | '||' };

function runScript(script: string, env: Readonly<Record<string, string>>, now: Date): string[] | undefined {
  const tokens = tokenize(script, env);
  if (!tokens) return undefined;
  const out: string[] = [];
  let argv: string[] = [];
  let status = 0;
  let skip = false;
  const flush = (): boolean | undefined => {
    if (argv.length === 0) return true;
    const words = argv;
    argv = [];
    if (skip) return true;
    const r = runCommand(words, env, now, out);
    if (r === undefined) return undefined;
    if (typeof r === 'object') return false;
    status = r;
    return true;
  };
  for (const t of tokens) {
    if ('word' in t) {
      argv.push(t.word);
      continue;
    }
    const go = flush();
    if (go === undefined) return undefined;
    if (!go) return out;
    // `a && b` runs b only after a succeeded, `a || b` only after it failed; `;` always.
    skip = (t.op === '&&' && status !== 0) || (t.op === '||' && status === 0);
  }
  return flush() === undefined ? undefined : out;
}

/**
 * The words and separators of a script, expanded; undefined for anything beyond the plain shapes (pipes,
 * redirections, command substitution, globs, subshells, control flow, background jobs).
 */
function tokenize(script: string, env: Readonly<Record<string, string>>): Token[] | undefined {
  const tokens: Token[] = [];
  let i = 0;
  let word: string | undefined;
  const end = () => {
    if (word !== undefined) tokens.push({ word });
    word = undefined;
  };
  const variable = (): string | undefined => {
    // At a `$`: $NAME or ${NAME}.
    const braced = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(script.slice(i));
    const bare = braced ?? /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(script.slice(i));
    if (!bare) return undefined;
    i += bare[0].length;
    return env[bare[1]!] ?? '';
  };
  while (i < script.length) {
    const c = script[i]!;
    if (c === ' ' || c === '\t') {
      end();
      i++;
    } else if (c === '\n' || c === ';') {
      end();
      tokens.push({ op: ';' });
      i++;
    } else if (script.startsWith('&&', i) || script.startsWith('||', i)) {
      end();
      tokens.push({ op: script.slice(i, i + 2) as '&&' | '||' });
      i += 2;
    } else if (c === "'") {
      const close = script.indexOf("'", i + 1);
      if (close < 0) return undefined;
      word = (word ?? '') + script.slice(i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      let s = '';
      i++;
      for (;;) {
        if (i >= script.length) return undefined;
        const d = script[i]!;
        if (d === '"') break;
        if (d === '`') return undefined;
        if (d === '\\' && i + 1 < script.length && '$`"\\\n'.includes(script[i + 1]!)) {
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
      word = (word ?? '') + s;
      i++;
    } else if (c === '\\') {
      if (i + 1 >= script.length) return undefined;
      word = (word ?? '') + script[i + 1];
      i += 2;
    } else if (c === '$') {
      const v = variable();
      if (v === undefined) return undefined;
      // Unquoted: split into fields as the shell does.
      const fields = v.split(/[ \t\n]+/);
      word = (word ?? '') + fields[0];
      for (const f of fields.slice(1)) {
        end();
        word = f;
      }
      if (word === '') word = undefined;
    } else if ('|&<>()`*?[]{}#~'.includes(c)) {
      // A comment, pipe, redirection, background job, subshell, glob or brace: not a plain script.
      return undefined;
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  end();
  // Control flow starts at a command's first word (`echo done` is plain).
  let first = true;
  for (const t of tokens) {
    if ('op' in t) first = true;
    else if (first) {
      if (/^(if|then|else|elif|fi|for|while|until|do|done|case|esac|function|select)$/.test(t.word)) return undefined;
      first = false;
    }
  }
  return tokens;
}
