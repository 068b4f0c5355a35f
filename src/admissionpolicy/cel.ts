/**
 * The CEL environment of ValidatingAdmissionPolicies (k8s.io/apiserver pkg/admission/plugin/cel: compile.go,
 * composition.go, activation.go): `object`, `oldObject`, `request`, `namespaceObject`, `params` (declared only when
 * the policy has a paramKind), `variables` (the policy's variables, each usable by the later ones and by every
 * validation, messageExpression and auditAnnotation) and `authorizer` (not in messageExpressions, as upstream), with
 * the Kubernetes CEL library custom resource rules use and the authz library (k8s.io/apiserver pkg/cel/library
 * authz.go: `authorizer.group(g).resource(r).subresource(s).namespace(n).name(x).check(verb)`,
 * `authorizer.path(p).check(verb)`, `authorizer.serviceAccount(ns, name)`, `authorizer.requestResource`, and a
 * decision's `allowed()`, `reason()`, `errored()`, `error()`). Expressions compile once per text and environment;
 * errors read as cel-go's (`compilation failed: ERROR: <input>:1:6: ...`, `must evaluate to bool but got string`).
 *
 * Deliberate differences: variables are evaluated in order before the expressions rather than lazily (an expression
 * reading a variable that failed reports that variable's error, as upstream does); no runtime cost budget is enforced
 * beyond the library's; the authz library has no fieldSelector/labelSelector (1.31 alpha upstream).
 */
import { type ASTNode, Environment, type ParseResult } from '@marcbachmann/cel-js';
import type { UserInfo } from '../apimachinery/user.js';
import type { Authorizer, AuthorizationResult } from '../apiserver/authorization.js';
import { registerKubernetesLibrary } from '../apiextensions/schema/cel/library.js';
import { celIssues } from '../apiextensions/schema/cel/compile.js';

const AUTHZ = 'kubernetes.authorization.';

/** The `authorizer` of one request: its user, in its logical cluster. */
export class CelAuthorizer {
  constructor(
    readonly authorizer: Authorizer,
    readonly cluster: string,
    readonly user: UserInfo,
    /** `authorizer.requestResource`: a check of the request's own resource. */
    public requestResource?: ResourceCheck,
  ) {}
}
export class GroupCheck {
  constructor(
    readonly authz: CelAuthorizer,
    readonly group: string,
  ) {}
}
export class ResourceCheck {
  constructor(
    readonly authz: CelAuthorizer | undefined,
    readonly group: string,
    readonly resource: string,
    readonly subresource = '',
    readonly namespace = '',
    readonly name = '',
  ) {}
  with(change: Partial<Pick<ResourceCheck, 'subresource' | 'namespace' | 'name'>>): ResourceCheck {
    return new ResourceCheck(this.authz, this.group, this.resource, change.subresource ?? this.subresource, change.namespace ?? this.namespace, change.name ?? this.name);
  }
}
export class PathCheck {
  constructor(
    readonly authz: CelAuthorizer,
    readonly path: string,
  ) {}
}
export class AuthzDecision {
  constructor(readonly result: AuthorizationResult) {}
}

function decide(authz: CelAuthorizer | undefined, attrs: { verb: string; resourceRequest: boolean; path?: string; apiGroup?: string; resource?: string; subresource?: string; namespace?: string; name?: string }): AuthzDecision {
  if (!authz) return new AuthzDecision({ decision: 'NoOpinion', reason: '', evaluationError: 'no authorizer' });
  return new AuthzDecision(
    authz.authorizer.authorize(authz.cluster, {
      user: authz.user,
      verb: attrs.verb,
      resourceRequest: attrs.resourceRequest,
      path: attrs.path ?? '',
      apiGroup: attrs.apiGroup ?? '',
      apiVersion: '*',
      resource: attrs.resource ?? '',
      subresource: attrs.subresource ?? '',
      namespace: attrs.namespace ?? '',
      name: attrs.name ?? '',
    }),
  );
}

function registerAuthzLibrary(env: Environment): void {
  env
    .registerType(`${AUTHZ}Authorizer`, CelAuthorizer)
    .registerType(`${AUTHZ}GroupCheck`, GroupCheck)
    .registerType(`${AUTHZ}ResourceCheck`, ResourceCheck)
    .registerType(`${AUTHZ}PathCheck`, PathCheck)
    .registerType(`${AUTHZ}Decision`, AuthzDecision)
    .registerFunction(`${AUTHZ}Authorizer.group(string): ${AUTHZ}GroupCheck`, (a: CelAuthorizer, g: string) => new GroupCheck(a, g))
    .registerFunction(`${AUTHZ}Authorizer.path(string): ${AUTHZ}PathCheck`, (a: CelAuthorizer, p: string) => new PathCheck(a, p))
    .registerFunction(`${AUTHZ}Authorizer.serviceAccount(string, string): ${AUTHZ}Authorizer`, (a: CelAuthorizer, ns: string, name: string) => {
      const user = { username: `system:serviceaccount:${ns}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`] };
      return new CelAuthorizer(a.authorizer, a.cluster, user);
    })
    .registerFunction(`${AUTHZ}GroupCheck.resource(string): ${AUTHZ}ResourceCheck`, (g: GroupCheck, r: string) => new ResourceCheck(g.authz, g.group, r))
    .registerFunction(`${AUTHZ}ResourceCheck.subresource(string): ${AUTHZ}ResourceCheck`, (c: ResourceCheck, s: string) => c.with({ subresource: s }))
    .registerFunction(`${AUTHZ}ResourceCheck.namespace(string): ${AUTHZ}ResourceCheck`, (c: ResourceCheck, s: string) => c.with({ namespace: s }))
    .registerFunction(`${AUTHZ}ResourceCheck.name(string): ${AUTHZ}ResourceCheck`, (c: ResourceCheck, s: string) => c.with({ name: s }))
    .registerFunction(`${AUTHZ}ResourceCheck.check(string): ${AUTHZ}Decision`, (c: ResourceCheck, verb: string) =>
      decide(c.authz, { verb, resourceRequest: true, apiGroup: c.group, resource: c.resource, subresource: c.subresource, namespace: c.namespace, name: c.name }),
    )
    .registerFunction(`${AUTHZ}PathCheck.check(string): ${AUTHZ}Decision`, (c: PathCheck, verb: string) => decide(c.authz, { verb, resourceRequest: false, path: c.path }))
    .registerFunction(`${AUTHZ}Decision.allowed(): bool`, (d: AuthzDecision) => d.result.decision === 'Allow')
    .registerFunction(`${AUTHZ}Decision.reason(): string`, (d: AuthzDecision) => d.result.reason)
    .registerFunction(`${AUTHZ}Decision.errored(): bool`, (d: AuthzDecision) => d.result.evaluationError !== undefined && d.result.evaluationError !== '')
    .registerFunction(`${AUTHZ}Decision.error(): string`, (d: AuthzDecision) => d.result.evaluationError ?? '');
}

/** The four environments: with or without params, with or without the authorizer. */
const environments = new Map<string, Environment>();

function environment(hasParams: boolean, hasAuthorizer: boolean): Environment {
  const key = `${hasParams}/${hasAuthorizer}`;
  let env = environments.get(key);
  if (!env) {
    env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
    for (const v of ['object', 'oldObject', 'request', 'namespaceObject', 'variables']) env.registerVariable(v, 'dyn');
    registerKubernetesLibrary(env);
    registerAuthzLibrary(env);
    if (hasParams) env.registerVariable('params', 'dyn');
    if (hasAuthorizer) env.registerVariable('authorizer', `${AUTHZ}Authorizer`);
    environments.set(key, env);
  }
  return env;
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
  // messageExpressions (the only expressions returning a string) have no authorizer, as upstream.
  let c = cache.get(key);
  if (c) return c;
  c = compile(expression, opts);
  if (cache.size > 20_000) cache.clear();
  cache.set(key, c);
  return c;
}

function compile(expression: string, opts: { hasParams: boolean; variables: readonly string[]; returns: ReturnKind }): CompiledExpression {
  const env = environment(opts.hasParams, opts.returns !== 'string');
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
