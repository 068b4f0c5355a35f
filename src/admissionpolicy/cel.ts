/**
 * The CEL environment of ValidatingAdmissionPolicies (k8s.io/apiserver pkg/admission/plugin/cel: compile.go,
 * composition.go, activation.go): `object`, `oldObject`, `request`, `namespaceObject`, `params` (declared only when
 * the policy has a paramKind) and `variables` (the policy's variables, each usable by the later ones and by every
 * validation, messageExpression and auditAnnotation), with the Kubernetes CEL library custom resource rules use.
 * Expressions compile once per text and environment; errors read as cel-go's (`compilation failed: ERROR:
 * <input>:1:6: ...`, `must evaluate to bool but got string`).
 *
 * Deliberate differences: `authorizer` and `authorizer.requestResource` are not declared (an expression naming them
 * fails to compile, `undeclared reference to 'authorizer'`); variables are evaluated in order before the expressions
 * rather than lazily (an expression reading a variable that failed reports that variable's error, as upstream does);
 * no runtime cost budget is enforced beyond the library's.
 */
import { type ASTNode, Environment, type ParseResult } from '@marcbachmann/cel-js';
import { registerKubernetesLibrary } from '../apiextensions/schema/cel/library.js';
import { celIssues } from '../apiextensions/schema/cel/compile.js';

let environments: { plain: Environment; withParams: Environment } | undefined;

function environment(hasParams: boolean): Environment {
  if (!environments) {
    const base = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
    for (const v of ['object', 'oldObject', 'request', 'namespaceObject', 'variables']) base.registerVariable(v, 'dyn');
    registerKubernetesLibrary(base);
    environments = { plain: base, withParams: base.clone().registerVariable('params', 'dyn') };
  }
  return hasParams ? environments.withParams : environments.plain;
}

/** What an expression must evaluate to: a validation or match condition bool, a message string, an annotation string or null. */
export type ReturnKind = 'bool' | 'string' | 'stringOrNull' | 'any';

export interface CompiledExpression {
  expression: string;
  program?: ParseResult;
  /** The upstream detail (`compilation failed: ...`, `must evaluate to bool but got int`) when it does not compile. */
  error?: string;
  /** The variables (`variables.<name>`) it reads. */
  reads: string[];
}

interface CelErrorLike {
  message: string;
  summary?: string;
  range?: { start: number; end: number };
}

/** cel-js says `Unknown variable: x` where cel-go says `undeclared reference to 'x' (in container '')`. */
function upstreamIssues(expr: string, e: CelErrorLike): string {
  const first = (e.summary ?? e.message.split('\n')[0] ?? '').trim();
  const unknown = /^Unknown variable: (\S+)$/.exec(first);
  const summary = unknown ? `undeclared reference to '${unknown[1]}' (in container '')` : first;
  return celIssues(expr, { ...e, message: summary, summary });
}

function visitAll(ast: ASTNode, visit: (n: ASTNode) => void): void {
  visit(ast);
  if (ast.op === 'value' || ast.op === 'id') return;
  const each = (x: unknown): void => {
    if (x && typeof x === 'object' && 'op' in (x as object)) visitAll(x as ASTNode, visit);
    else if (Array.isArray(x)) x.forEach(each);
  };
  each(ast.args as unknown);
}

/** The `variables.<name>` selections of `ast`, with the node of the first that `known` lacks. */
function variableReads(ast: ASTNode, known: ReadonlySet<string>): { reads: string[]; unknown?: { node: ASTNode; name: string } } {
  const reads = new Set<string>();
  let unknown: { node: ASTNode; name: string } | undefined;
  visitAll(ast, (n) => {
    if ((n.op === '.' || n.op === '.?') && n.args[0]?.op === 'id' && n.args[0].args === 'variables') {
      const name = n.args[1] as string;
      reads.add(name);
      if (!known.has(name) && !unknown) unknown = { node: n, name };
    }
  });
  return { reads: [...reads], ...(unknown ? { unknown } : {}) };
}

const cache = new Map<string, CompiledExpression>();

/**
 * Compiles `expression` for a policy with or without params, where `variables` are the variable names it may read.
 * Cached per (text, environment, variables, return kind).
 */
export function compileExpression(expression: string, opts: { hasParams: boolean; variables: readonly string[]; returns: ReturnKind }): CompiledExpression {
  const key = `${opts.hasParams ? 'p' : '-'}|${opts.returns}|${opts.variables.join(',')}|${expression}`;
  let c = cache.get(key);
  if (c) return c;
  c = compile(expression, opts);
  if (cache.size > 20_000) cache.clear();
  cache.set(key, c);
  return c;
}

function compile(expression: string, opts: { hasParams: boolean; variables: readonly string[]; returns: ReturnKind }): CompiledExpression {
  const env = environment(opts.hasParams);
  let program: ParseResult;
  try {
    program = env.parse(expression);
  } catch (e) {
    return { expression, reads: [], error: `compilation failed: ${upstreamIssues(expression, e as CelErrorLike)}` };
  }
  const checked = env.check(expression);
  if (!checked.valid) return { expression, reads: [], error: `compilation failed: ${upstreamIssues(expression, checked.error as CelErrorLike)}` };
  const { reads, unknown } = variableReads(program.ast, new Set(opts.variables));
  if (unknown) {
    const start = unknown.node.range.end - unknown.name.length - 1;
    return { expression, reads, error: `compilation failed: ${celIssues(expression, { message: `undefined field '${unknown.name}'`, range: { start } })}` };
  }
  const type = checked.type;
  if (type !== 'dyn') {
    if (opts.returns === 'bool' && type !== 'bool') return { expression, reads, error: `must evaluate to bool but got ${type}` };
    if (opts.returns === 'string' && type !== 'string') return { expression, reads, error: `must evaluate to string but got ${type}` };
    if (opts.returns === 'stringOrNull' && type !== 'string' && type !== 'null') {
      return { expression, reads, error: `must evaluate to one of [string null_type] but got ${type}` };
    }
  }
  return { expression, reads, program };
}

/** An evaluation error's first line in cel-go's words (`no such key: x`). */
export function evaluationMessage(err: unknown): string {
  const first = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim();
  const unknown = /^Unknown variable: (\S+)$/.exec(first);
  if (unknown) return `no such attribute(s): ${unknown[1]}`;
  return first.length > 0 ? first[0]!.toLowerCase() + first.slice(1) : first;
}

/** A CEL value's type name as cel-go prints it (for unsupported return types). */
export function celTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'null_type';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Map) return 'map';
  if (v instanceof Date) return 'google.protobuf.Timestamp';
  return 'map';
}
