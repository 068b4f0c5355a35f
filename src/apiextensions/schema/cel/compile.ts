/**
 * Compilation of `x-kubernetes-validations` rules (apiextensions-apiserver schema/cel/compilation.go): parse and
 * type-check each rule and messageExpression once, find whether it uses `oldSelf` (a transition rule), check the
 * fields it selects against the schema, and estimate its cost. Errors carry upstream's detail texts
 * (`compilation failed: ERROR: <input>:1:6: ...`, `cel expression must evaluate to a bool`).
 */
import { type ASTNode, Environment, type ParseResult } from '@marcbachmann/cel-js';
import type { ValidationRule } from '../json-schema-props.js';
import type { Structural } from '../structural.js';
import { estimateCost, valueIndependentCost } from './cost.js';
import { registerKubernetesLibrary } from './library.js';

export interface CompileError {
  type: 'Invalid' | 'Required' | 'Internal';
  detail: string;
}

export interface CompiledRule {
  rule: ValidationRule;
  program?: ParseResult;
  messageProgram?: ParseResult;
  usesOldSelf: boolean;
  /** Static cost estimate of the rule alone (not multiplied by the node's cardinality). */
  cost: number;
  /** The cost every evaluation has, when it does not depend on the values (computed once here, not per call). */
  runtimeCost?: number;
  /**
   * The fields of `self`/`oldSelf` the rule and its messageExpression read, when they only ever select fields of
   * them (`self.a`, `has(self.b)`); undefined when they use the whole value. Only these need converting to CEL.
   */
  selfFields?: Set<string>;
  messageCost: number;
  error?: CompileError;
  messageError?: CompileError;
}

let environments: { plain: Environment; optionalOldSelf: Environment } | undefined;

/**
 * The CEL environments rules compile in: `self` is dynamic and the k8s library is loaded; `oldSelf` is dynamic, or
 * `optional<dyn>` for rules with `optionalOldSelf: true`. Built once per process.
 */
export function celEnvironment(optionalOldSelf = false): Environment {
  if (!environments) {
    const base = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
    base.registerVariable('self', 'dyn');
    registerKubernetesLibrary(base);
    environments = {
      plain: base.clone().registerVariable('oldSelf', 'dyn'),
      optionalOldSelf: base.clone().registerVariable('oldSelf', 'optional<dyn>').registerVariable(OLD_SELF_VALUE, 'dyn'),
    };
  }
  return optionalOldSelf ? environments.optionalOldSelf : environments.plain;
}

/**
 * The value inside an optional `oldSelf`, bound only for the rewritten presence tests below; `__` names are reserved
 * in CEL, so no rule can name it.
 */
const OLD_SELF_VALUE = '__oldSelfValue';

/**
 * cel-go's evalTestOnly answers `has(oldSelf.x)` on an optional `oldSelf` with whether a value is there, then tests
 * the field inside it; cel-js tests presence on the optional wrapper itself, which is always "present". Rules with
 * `optionalOldSelf` therefore run a rewritten program in which each `has(oldSelf.<path>)` reads
 * `(oldSelf.hasValue() && has(__oldSelfValue.<path>))`; the original program still serves cost and field analysis.
 */
function withOptionalPresenceTests(env: Environment, expr: string, program: ParseResult): ParseResult {
  const edits: { start: number; end: number; id: { start: number; end: number } }[] = [];
  visitAll(program.ast, (n) => {
    if (n.op !== 'call' || n.args[0] !== 'has') return;
    let arg = (n.args[1] as ASTNode[])[0];
    while (arg && (arg.op === '.' || arg.op === '.?')) arg = arg.args[0];
    if (arg?.op === 'id' && arg.args === 'oldSelf') edits.push({ start: n.range.start, end: n.range.end, id: arg.range });
  });
  if (edits.length === 0) return program;
  let text = expr;
  for (const e of edits.sort((a, b) => b.start - a.start)) {
    const call = text.slice(e.start, e.id.start) + OLD_SELF_VALUE + text.slice(e.id.end, e.end);
    text = `${text.slice(0, e.start)}(oldSelf.hasValue() && ${call})${text.slice(e.end)}`;
  }
  const rewritten = env.parse(text);
  const run = (ctx?: Record<string, unknown>): unknown => {
    const old = ctx?.oldSelf as { hasValue?(): boolean; value?(): unknown } | undefined;
    return rewritten({ ...ctx, [OLD_SELF_VALUE]: old?.hasValue?.() ? old.value!() : null });
  };
  return Object.assign(run, { ast: program.ast, check: () => program.check() }) as ParseResult;
}

interface CelErrorLike {
  summary?: string;
  message: string;
  range?: { start: number; end: number };
}

/** Formats a parse or type error like cel-go's issues: `ERROR: <input>:1:6: msg` followed by the source and a caret. */
function issues(expr: string, e: CelErrorLike): string {
  const start = e.range?.start ?? 0;
  const summary = lexerErrorAsCelGo(expr, start, e.summary ?? e.message.split('\n')[0]!);
  const before = expr.slice(0, start);
  const line = before.split('\n').length;
  const column = start - (before.lastIndexOf('\n') + 1);
  const sourceLine = expr.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${column + 1}: ${summary}\n | ${sourceLine}\n | ${'.'.repeat(column)}^`;
}

/**
 * cel-go's grammar is ANTLR's: input no token starts with is a `Syntax error: token recognition error at: '<text>'`,
 * the text running to the character the lexer gave up on (`= ` for `self = 42`, where only `==` exists; `'x` for a
 * string the input ends in). cel-js's lexer says `Unexpected character: =` / `Unterminated string` at the same
 * place, so those are reworded. Deliberately partial: ANTLR's parser then goes on and reports further errors
 * (`extraneous input '42' expecting <EOF>`) and words the parser's own errors (`mismatched input ...`) differently;
 * cel-js stops at its first error, which keeps its wording.
 */
function lexerErrorAsCelGo(expr: string, start: number, summary: string): string {
  let text: string | undefined;
  const ch = expr[start];
  if (ch !== undefined && summary === `Unexpected character: ${ch}`) {
    // `=`, `&` and `|` start two-character tokens (`==`, `&&`, `||`): the lexer read one more before it gave up.
    text = '=&|'.includes(ch) && start + 1 < expr.length && expr[start + 1] !== '\n' ? expr.slice(start, start + 2) : ch;
  } else if (summary === 'Unterminated string' && !expr.slice(start).includes('\n')) {
    text = expr.slice(start);
  }
  return text === undefined ? summary : `Syntax error: token recognition error at: '${text}'`;
}

/** Walks `ast` calling `visit` on every node. */
function visitAll(ast: ASTNode, visit: (n: ASTNode) => void): void {
  visit(ast);
  const args = ast.args as unknown;
  const each = (x: unknown): void => {
    if (x && typeof x === 'object' && 'op' in (x as object)) visitAll(x as ASTNode, visit);
    else if (Array.isArray(x)) x.forEach(each);
  };
  if (ast.op !== 'value' && ast.op !== 'id') each(args);
}

const isSelfId = (n: ASTNode | undefined): boolean => n?.op === 'id' && (n.args === 'self' || n.args === 'oldSelf');

/**
 * Adds to `fields` the fields selected directly on `self`/`oldSelf` in `ast`; returns false when either is used
 * otherwise (passed to a function, compared, indexed, iterated), i.e. the whole value is needed.
 */
function collectSelfFields(ast: ASTNode, fields: Set<string>): boolean {
  let whole = false;
  const visit = (n: ASTNode): void => {
    if (whole) return;
    if (n.op === 'id') {
      if (isSelfId(n)) whole = true;
      return;
    }
    if (n.op === 'value') return;
    if ((n.op === '.' || n.op === '.?') && isSelfId(n.args[0])) {
      fields.add(n.args[1]);
      return;
    }
    const each = (x: unknown): void => {
      if (x && typeof x === 'object' && 'op' in (x as object)) visit(x as ASTNode);
      else if (Array.isArray(x)) x.forEach(each);
    };
    each(n.args);
  };
  visit(ast);
  return !whole;
}

/** Whether the expression references the variable `oldSelf`. */
function referencesOldSelf(ast: ASTNode): boolean {
  let found = false;
  visitAll(ast, (n) => {
    if (n.op === 'id' && n.args === 'oldSelf') found = true;
  });
  return found;
}

/**
 * Finds a field selection on `self`/`oldSelf` (or on comprehension variables over them) that the schema does not
 * declare, which upstream's type checker rejects as `undefined field 'x'`. Returns the offending node.
 */
function undefinedField(ast: ASTNode, s: Structural): { node: ASTNode; field: string } | undefined {
  const scope = new Map<string, Structural | undefined>([
    ['self', s],
    ['oldSelf', s],
  ]);
  let found: { node: ASTNode; field: string } | undefined;
  const schemaOf = (n: ASTNode, sc: Map<string, Structural | undefined>): Structural | undefined => {
    if (found) return undefined;
    switch (n.op) {
      case 'id':
        return sc.get(n.args);
      case '.': {
        const [obj, field] = n.args;
        const parent = schemaOf(obj, sc);
        if (!parent) return undefined;
        if (parent.type === 'object' && parent.properties && parent.properties.size > 0 && !parent.additionalProperties) {
          const sub = parent.properties.get(field);
          const meta = parent.embeddedResource && (field === 'apiVersion' || field === 'kind' || field === 'metadata');
          if (!sub && !meta && !parent.preserveUnknownFields) found = { node: n, field };
          return sub;
        }
        if (parent.type === 'object' && !parent.additionalProperties && !parent.preserveUnknownFields && !parent.embeddedResource) {
          found = { node: n, field };
          return undefined;
        }
        return parent.additionalProperties?.schema;
      }
      case '[]':
        schemaOf(n.args[1], sc);
        return schemaOf(n.args[0], sc)?.items ?? schemaOf(n.args[0], sc)?.additionalProperties?.schema;
      case 'rcall': {
        const [name, recv, args] = n.args;
        const r = schemaOf(recv, sc);
        if (['all', 'exists', 'exists_one', 'map', 'filter'].includes(name) && args[0]?.op === 'id') {
          const inner = new Map(sc);
          inner.set(args[0].args, r?.type === 'array' ? r.items : undefined);
          for (const a of args.slice(1)) schemaOf(a, inner);
          return undefined;
        }
        for (const a of args) schemaOf(a, sc);
        return undefined;
      }
      case 'call':
        // has(self.x) tests presence; an undeclared field there is still an error upstream.
        for (const a of n.args[1]) schemaOf(a, sc);
        return undefined;
      default: {
        const args = n.args as unknown;
        const each = (x: unknown): void => {
          if (x && typeof x === 'object' && 'op' in (x as object)) schemaOf(x as ASTNode, sc);
          else if (Array.isArray(x)) x.forEach(each);
        };
        if (n.op !== 'value') each(args);
        return undefined;
      }
    }
  };
  schemaOf(ast, scope);
  return found;
}

let typedBase: Environment | undefined;
const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;
const celReserved = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/**
 * A check-only environment in which `self`/`oldSelf` carry the types the structural schema gives them, as
 * apiextensions' compilation.go declares them (objects with properties are message types, maps `map<string, T>`,
 * arrays `list<T>`, integer `int`, number `double`, date-time strings timestamps). Rules still run in the dynamic
 * environment; this one only finds type errors. Where our model could be narrower than upstream's (int-or-string,
 * nullable, preserve-unknown-fields, embedded metadata, property names that need escaping) the type is `dyn`.
 */
const typedEnvironments = new WeakMap<Structural, Map<boolean, Environment>>();

function typedEnvironment(s: Structural, optionalOldSelf: boolean): Environment {
  let byOptional = typedEnvironments.get(s);
  if (!byOptional) typedEnvironments.set(s, (byOptional = new Map()));
  let env = byOptional.get(optionalOldSelf);
  if (!env) byOptional.set(optionalOldSelf, (env = buildTypedEnvironment(s, optionalOldSelf)));
  return env;
}

function buildTypedEnvironment(s: Structural, optionalOldSelf: boolean): Environment {
  if (!typedBase) {
    typedBase = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
    registerKubernetesLibrary(typedBase);
  }
  const env = typedBase.clone();
  let n = 0;
  const typeOf = (x: Structural | undefined): string => {
    if (!x || x.intOrString || x.nullable) return 'dyn';
    switch (x.type) {
      case 'integer':
        return 'int';
      case 'number':
        return 'double';
      case 'boolean':
        return 'bool';
      case 'string':
        if (x.format === 'date-time' || x.format === 'datetime') return 'google.protobuf.Timestamp';
        if (x.format === 'byte') return 'bytes';
        return x.format === 'duration' ? 'dyn' : 'string';
      case 'array':
        return `list<${typeOf(x.items)}>`;
      case 'object': {
        if (x.preserveUnknownFields) return 'dyn';
        if (x.properties && x.properties.size > 0) {
          const names = [...x.properties.keys()];
          if (names.some((k) => !identifier.test(k) || celReserved.has(k))) return 'dyn';
          const fields: Record<string, string> = {};
          for (const [k, v] of x.properties) fields[k] = typeOf(v);
          if (x.embeddedResource) for (const k of ['apiVersion', 'kind', 'metadata']) fields[k] ??= k === 'metadata' ? 'dyn' : 'string';
          const name = `atrium.cel.Object${n++}`;
          env.registerType({ name, fields });
          return name;
        }
        if (x.additionalProperties?.schema) return `map<string, ${typeOf(x.additionalProperties.schema)}>`;
        return 'dyn';
      }
      default:
        return 'dyn';
    }
  };
  const selfType = typeOf(s);
  env.registerVariable('self', selfType);
  env.registerVariable('oldSelf', optionalOldSelf ? `optional<${selfType}>` : selfType);
  return env;
}

const scalarTypes = new Set(['string', 'int', 'uint', 'double', 'bool', 'bytes']);
const operatorNames: Record<string, string> = {
  '==': '_==_', '!=': '_!=_', '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_', '+': '_+_', '-': '_-_', '*': '_*_', '/': '_/_', '%': '_%_', in: '@in',
};

/**
 * The typed check's verdict in cel-go's words, for the errors our type model is sure of: an operator or function
 * applied to scalar types it has no overload for (`found no matching overload for '_==_' applied to '(string, int)'`,
 * reported at the operator or at the call's `(` as cel-go does). Other typed-check failures are left to the
 * dynamic check (which passed), so a gap in the model never rejects a rule upstream accepts.
 */
function typedCheckError(expr: string, ast: ASTNode, error: CelErrorLike): string | undefined {
  const msg = error.message.split('\n')[0] ?? '';
  const range = error.range;
  if (!range) return undefined;
  const at = (n: ASTNode): boolean => n.range.start === range.start && n.range.end === range.end;
  const binary = /^no such overload: (\S+) (==|!=|<=|>=|<|>|\+|-|\*|\/|%|in) (\S+)$/.exec(msg);
  if (binary) {
    const [, left, op, right] = binary as unknown as [string, string, string, string];
    if (!scalarTypes.has(left) || !scalarTypes.has(right)) return undefined;
    let node: ASTNode | undefined;
    visitAll(ast, (x) => {
      if (!node && x.op === op && at(x)) node = x;
    });
    if (!node) return undefined;
    const lhs = (node.args as ASTNode[])[0]!;
    const pos = expr.indexOf(op, lhs.range.end);
    if (pos < 0) return undefined;
    return issues(expr, { message: `found no matching overload for '${operatorNames[op]}' applied to '(${left}, ${right})'`, range: { start: pos, end: pos + op.length } });
  }
  const call = /^found no matching overload for '(?:(\w+)\.)?(\w+)\(([\w, ]*)\)'$/.exec(msg);
  if (call) {
    const [, receiver, name, argList] = call as unknown as [string, string | undefined, string, string];
    const args = argList ? argList.split(', ') : [];
    if ((receiver !== undefined && !scalarTypes.has(receiver)) || !args.every((a) => scalarTypes.has(a))) return undefined;
    let node: ASTNode | undefined;
    visitAll(ast, (x) => {
      if (!node && (x.op === 'rcall' || x.op === 'call') && x.args[0] === name && at(x)) node = x;
    });
    if (!node) return undefined;
    const from = node.op === 'rcall' ? (node.args[1] as ASTNode).range.end : node.range.start;
    const open = expr.indexOf('(', expr.indexOf(name, from));
    if (open < 0) return undefined;
    const applied = receiver !== undefined ? `${receiver}.(${args.join(', ')})` : `(${args.join(', ')})`;
    return issues(expr, { message: `found no matching overload for '${name}' applied to '${applied}'`, range: { start: open, end: open + 1 } });
  }
  return undefined;
}

function compileExpression(expr: string, s: Structural, optionalOldSelf: boolean): { program?: ParseResult; error?: string; type?: string } {
  const env = celEnvironment(optionalOldSelf);
  let program: ParseResult;
  try {
    program = env.parse(expr);
  } catch (e) {
    return { error: issues(expr, e as CelErrorLike) };
  }
  const checked = env.check(expr);
  if (!checked.valid) return { error: issues(expr, checked.error as CelErrorLike) };
  const undef = undefinedField(program.ast, s);
  if (undef) {
    const start = undef.node.range.end - undef.field.length - 1;
    return { error: issues(expr, { message: `undefined field '${undef.field}'`, range: { start, end: undef.node.range.end } }) };
  }
  let type = checked.type;
  const typed = typedEnvironment(s, optionalOldSelf).check(expr);
  if (typed.valid) type = typed.type;
  else {
    const error = typedCheckError(expr, program.ast, typed.error as CelErrorLike);
    if (error !== undefined) return { error };
  }
  return { program: optionalOldSelf ? withOptionalPresenceTests(env, expr, program) : program, type };
}

/** Compiles every rule of schema node `s`. Never throws; problems are reported on the result. */
export function compileRules(s: Structural): CompiledRule[] {
  return s.validations.map((rule) => compileRule(rule, s));
}

function compileRule(rule: ValidationRule, s: Structural): CompiledRule {
  const out: CompiledRule = { rule, usesOldSelf: false, cost: 0, messageCost: 0 };
  const expr = rule.rule ?? '';
  if (expr.trim() === '') {
    out.error = { type: 'Required', detail: 'rule is not specified' };
    return out;
  }
  const c = compileExpression(expr, s, rule.optionalOldSelf === true);
  if (c.error !== undefined) {
    out.error = { type: 'Invalid', detail: `compilation failed: ${c.error}` };
  } else if (c.type !== 'bool' && c.type !== 'dyn') {
    out.error = { type: 'Invalid', detail: 'cel expression must evaluate to a bool' };
  } else {
    out.program = c.program;
    out.usesOldSelf = referencesOldSelf(c.program!.ast);
    out.cost = estimateCost(c.program!.ast, { schema: s });
    out.runtimeCost = valueIndependentCost(c.program!.ast, s);
  }
  const msgExpr = rule.messageExpression;
  if (msgExpr !== undefined && msgExpr.trim() !== '') {
    const m = compileExpression(msgExpr, s, rule.optionalOldSelf === true);
    if (m.error !== undefined) out.messageError = { type: 'Invalid', detail: `messageExpression compilation failed: ${m.error}` };
    else if (m.type !== 'string' && m.type !== 'dyn') out.messageError = { type: 'Invalid', detail: 'messageExpression must evaluate to a string' };
    else {
      out.messageProgram = m.program;
      out.messageCost = estimateCost(m.program!.ast, { schema: s });
    }
  }
  if (out.program) {
    const fields = new Set<string>();
    const selective = collectSelfFields(out.program.ast, fields) && (!out.messageProgram || collectSelfFields(out.messageProgram.ast, fields));
    if (selective) out.selfFields = fields;
  }
  return out;
}

/**
 * A CEL error in cel-go's words (`ERROR: <input>:1:6: ...` with the source line and a caret), for other users of the
 * Kubernetes CEL environment (admission webhooks' matchConditions).
 */
export function celIssues(expr: string, e: { message: string; summary?: string; range?: { start: number } }): string {
  return issues(expr, e as CelErrorLike);
}
