/**
 * `pattern` keywords are Go RE2 expressions upstream; atrium evaluates them as ECMAScript regular expressions.
 * The two agree on the syntax CRDs use in practice. Differences handled here:
 * - RE2 rejects lookaround and backreferences; so do we, with Go's error text, so that a CRD upstream refuses is
 *   refused here too.
 * - RE2's leading inline flags `(?i)`, `(?s)`, `(?m)` become ECMAScript flags; `\A` and `\z` become `^` and `$`.
 * Remaining differences (e.g. Unicode class names RE2 lacks, possessive quantifiers) are accepted as ECMAScript reads them.
 */
export interface CompiledPattern {
  regex?: RegExp;
  /** Why the pattern does not compile, phrased like Go's regexp errors. */
  error?: string;
}

const cache = new Map<string, CompiledPattern>();

const unsupportedPerl = /\(\?<?[=!]/;
const backreference = /\\[1-9]|\\k</;

/** Compiles (and memoises) a schema `pattern`. Never throws: a bad pattern comes back with `error` set. */
export function compilePattern(pattern: string): CompiledPattern {
  let hit = cache.get(pattern);
  if (!hit) {
    hit = compile(pattern);
    if (cache.size > 10_000) cache.clear();
    cache.set(pattern, hit);
  }
  return hit;
}

function compile(pattern: string): CompiledPattern {
  const perl = unsupportedPerl.exec(pattern);
  if (perl) return { error: `error parsing regexp: invalid or unsupported Perl syntax: \`${perl[0]}\`` };
  const back = backreference.exec(pattern);
  if (back) return { error: `error parsing regexp: invalid escape sequence: \`${back[0]}\`` };
  let source = pattern;
  let flags = '';
  const inline = /^\(\?([imsU]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    for (const f of inline[1]!) if (f !== 'U' && !flags.includes(f)) flags += f;
  }
  source = source.replace(/\\A/g, '^').replace(/\\z/g, '$');
  try {
    return { regex: new RegExp(source, flags + 'u') };
  } catch {
    try {
      // Unicode mode rejects identity escapes such as `\-` or `\_` that both RE2 and legacy ECMAScript accept.
      return { regex: new RegExp(source, flags) };
    } catch (e) {
      return { error: `error parsing regexp: ${(e as Error).message}` };
    }
  }
}
