/**
 * Admission webhooks' matchConditions (k8s.io/apiserver pkg/admission/plugin/webhook/matchconditions): CEL
 * expressions over `object`, `oldObject`, `request` (the AdmissionRequest) and `authorizer`, compiled once per
 * expression in the Kubernetes CEL environment custom resource rules use, and evaluated for every request a webhook's
 * rules match: any false skips the webhook; an evaluation error fails per the webhook's failurePolicy.
 *
 * Deliberate difference: `authorizer` and `authorizer.requestResource` are not available (an expression naming them
 * fails to compile), and no cost limit is enforced beyond the library's.
 */
import { Environment, type ParseResult } from '@marcbachmann/cel-js';
import { registerKubernetesLibrary } from '../apiextensions/schema/cel/library.js';
import { celIssues } from '../apiextensions/schema/cel/compile.js';
import { toCelValue } from '../apiextensions/schema/cel/values.js';

let env: Environment | undefined;
function environment(): Environment {
  if (!env) {
    env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
    for (const v of ['object', 'oldObject', 'request']) env.registerVariable(v, 'dyn');
    registerKubernetesLibrary(env);
  }
  return env;
}

export interface CompiledCondition {
  program?: ParseResult;
  /** Why it does not compile, in upstream's words (`compilation failed: ERROR: <input>:...`). */
  error?: string;
}

const compiled = new Map<string, CompiledCondition>();

/** Compiles (once per expression text) a match condition. */
export function compileMatchCondition(expression: string): CompiledCondition {
  let c = compiled.get(expression);
  if (c) return c;
  const e = environment();
  try {
    const program = e.parse(expression);
    const checked = e.check(expression);
    if (!checked.valid) c = { error: `compilation failed: ${celIssues(expression, checked.error as never)}` };
    else if (checked.type !== 'bool' && checked.type !== 'dyn') c = { error: 'cel expression must evaluate to a bool' };
    else c = { program };
  } catch (err) {
    c = { error: `compilation failed: ${celIssues(expression, err as never)}` };
  }
  if (compiled.size > 10_000) compiled.clear();
  compiled.set(expression, c);
  return c;
}

/** What the expressions see. */
export interface ConditionInput {
  object: unknown;
  oldObject: unknown;
  request: unknown;
}

/**
 * Evaluates the conditions in order: `{ matches: false, name }` at the first false one, `{ error }` when one cannot
 * be evaluated (upstream evaluates all and reports errors only when none is false; the first false wins either way).
 */
export function evaluateMatchConditions(conditions: { name: string; expression: string }[], input: ConditionInput): { matches: boolean; failedName?: string; error?: string } {
  const activation = { object: toCelValue(input.object ?? null, undefined), oldObject: toCelValue(input.oldObject ?? null, undefined), request: toCelValue(input.request, undefined) };
  let firstError: string | undefined;
  for (const cond of conditions) {
    const c = compileMatchCondition(cond.expression.trim());
    if (!c.program) {
      firstError ??= `compilation failed: ${c.error}`;
      continue;
    }
    try {
      const result = c.program(activation as never);
      if (result === false) return { matches: false, failedName: cond.name };
      if (result !== true) firstError ??= `matchCondition '${cond.name}' evaluated to a non-bool`;
    } catch (err) {
      firstError ??= (err as Error).message.split('\n')[0];
    }
  }
  if (firstError !== undefined) return { matches: false, error: firstError };
  return { matches: true };
}
