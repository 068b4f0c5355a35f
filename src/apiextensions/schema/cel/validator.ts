/**
 * Evaluation of `x-kubernetes-validations` on a custom resource (apiextensions-apiserver schema/cel/validation.go).
 * Rules run at every schema node that has a non-null value, with `self` bound to that value and, for transition
 * rules, `oldSelf` bound to the correlated old value: old and new are correlated through object properties, map keys
 * and the keys of `x-kubernetes-list-type: map` lists, never through atomic or set lists.
 */
import { EvaluationError, Optional } from '@marcbachmann/cel-js';
import { type FieldError, FieldPath, duplicate, forbidden, invalid, required } from '../../../apimachinery/field-errors.js';
import type { ValidationRule } from '../json-schema-props.js';
import type { Structural } from '../structural.js';
import { type CompiledRule, compileRules } from './compile.js';
import { PerCallLimit, RuntimeCELCostBudget, estimateCost } from './cost.js';
import { parseRuleFieldPath } from './rule-field-path.js';
import { toCelValue, toCelValueFields } from './values.js';
import { hasValidationRules, subtreeHas } from '../subtree.js';

/** Longest message a messageExpression may produce (celconfig.MaxEvaluatedMessageExpressionSizeBytes). */
const MaxEvaluatedMessageExpressionSizeBytes = 5 * 1024;

interface NodeRules {
  rules: CompiledRule[];
  /** Normalised fieldPath per rule index (undefined: the node itself). */
  fieldPaths: (string | undefined)[];
  /** The schema `self` is converted with (the root as rules see it, apiVersion/kind/metadata included). */
  valueSchema: Structural;
  /** Fields of `self` the node's rules read, or undefined when some rule needs the whole value. */
  selfFields?: string[];
}

export interface CelResult {
  errors: FieldError[];
  /** Budget left; negative when evaluation stopped early. */
  remainingBudget: number;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && !(x instanceof Date) && !(x instanceof Uint8Array);
}

const trimmedRule = (r: ValidationRule): string => (r.message ? r.message.trim() : r.rule.trim());
const messageOrDefault = (r: ValidationRule): string => (r.message ? r.message.trim() : `failed rule: ${r.rule.trim()}`);

function errorForReason(path: string, type: string, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return forbidden(path, detail);
    case 'FieldValueRequired':
      return required(path, detail);
    case 'FieldValueDuplicate':
      return duplicate(path, type);
    default:
      return invalid(path, type, detail);
  }
}

/** First line of a cel-js error, with the leading capital lowered to read like cel-go (`no such key: x`). */
function celErrorText(e: unknown): string {
  const err = e as { summary?: string; message?: string };
  const text = err.summary ?? err.message?.split('\n')[0] ?? String(e);
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** Compiled rules for a whole schema tree, built once and reused for every object. */
export class CelValidator {
  private readonly nodes = new Map<Structural, NodeRules>();
  private readonly ruleProperties = new Map<Structural, [string, Structural][]>();
  /** The root as rules see it: at a resource root, apiVersion/kind/metadata are part of `self`. */
  private readonly valueRoot: Structural;
  readonly hasRules: boolean;

  /** @param root the structural schema; `isResourceRoot` makes apiVersion/kind/metadata selectable at the root. */
  constructor(
    private readonly root: Structural,
    isResourceRoot = true,
  ) {
    this.valueRoot = isResourceRoot && !root.embeddedResource ? { ...root, embeddedResource: true } : root;
    this.index(this.valueRoot, root);
    this.hasRules = this.nodes.size > 0;
  }

  private index(compileAs: Structural, key: Structural): void {
    if (key.validations.length > 0) {
      const rules = compileRules(compileAs);
      const fieldPaths = rules.map((r) => (r.rule.fieldPath ? parseRuleFieldPath(r.rule.fieldPath, key).normalized : undefined));
      const runnable = rules.filter((r) => r.program);
      const whole = runnable.some((r) => !r.selfFields);
      const selfFields = whole ? undefined : [...new Set(runnable.flatMap((r) => [...r.selfFields!]))];
      this.nodes.set(key, { rules, fieldPaths, valueSchema: compileAs, selfFields });
    }
    if (key.items) this.index(key.items, key.items);
    for (const p of key.properties?.values() ?? []) this.index(p, p);
    const ap = key.additionalProperties?.schema;
    if (ap) this.index(ap, ap);
  }

  /** The properties of `s` with rules at or below them (most of a schema has none), worked out once per node. */
  private rulePropertiesOf(s: Structural): [string, Structural][] {
    let props = this.ruleProperties.get(s);
    if (!props) {
      props = [...(s.properties ?? [])].filter(([, p]) => subtreeHas(p, hasValidationRules));
      this.ruleProperties.set(s, props);
    }
    return props;
  }

  /** The compiled rules of one schema node (for CRD validation reporting). */
  rulesOf(s: Structural): CompiledRule[] {
    return this.nodes.get(s)?.rules ?? [];
  }

  /**
   * Runs every rule on `obj` (and `old` for transition rules on update). Evaluation stops with an error once a call
   * exceeds the per-call cost limit or the request budget runs out.
   */
  validate(obj: unknown, old: unknown, base: FieldPath = FieldPath.root(), budget = RuntimeCELCostBudget): CelResult {
    const errors: FieldError[] = [];
    if (!this.hasRules) return { errors, remainingBudget: budget };
    // The walk goes over the decoded JSON; values are converted to CEL only at nodes with rules, and only the
    // fields those rules read.
    const hasOld = old !== undefined && old !== null;
    const remaining = this.walk(this.root, obj, hasOld ? old : undefined, hasOld, base, errors, budget);
    return { errors, remainingBudget: remaining };
  }

  private walk(s: Structural, v: unknown, old: unknown, hasOld: boolean, p: FieldPath, errs: FieldError[], budget: number): number {
    // Callers only descend into subtrees that hold rules (the root is only walked when anything has rules).
    if (v === null || v === undefined || budget < 0) return budget;
    budget = this.evaluateNode(s, v, old, hasOld, p, errs, budget);
    if (budget < 0) return budget;
    if (Array.isArray(v)) {
      // Checked here rather than in the callee, so rule-free children cost no FieldPath.
      if (!s.items || !subtreeHas(s.items, hasValidationRules)) return budget;
      const oldByKey = hasOld && s.listType === 'map' && Array.isArray(old) ? indexByMapKeys(old, s.listMapKeys ?? []) : undefined;
      for (let i = 0; i < v.length && budget >= 0; i++) {
        const o = oldByKey?.get(mapKey(v[i], s.listMapKeys ?? []));
        budget = this.walk(s.items, v[i], o, o !== undefined, p.index(i), errs, budget);
      }
      return budget;
    }
    if (!isObject(v)) return budget;
    const oldObj = hasOld && isObject(old) ? old : undefined;
    for (const [k, prop] of this.rulePropertiesOf(s)) {
      if (budget < 0) break;
      if (!(k in v)) continue;
      budget = this.walk(prop, v[k], oldObj?.[k], oldObj !== undefined && k in oldObj, p.child(k), errs, budget);
    }
    const ap = s.additionalProperties?.schema;
    if (ap && subtreeHas(ap, hasValidationRules)) {
      const correlate = s.mapType !== 'atomic';
      for (const k of Object.keys(v)) {
        if (budget < 0) break;
        if (s.properties?.has(k)) continue;
        const o = correlate ? oldObj?.[k] : undefined;
        budget = this.walk(ap, v[k], o, correlate && oldObj !== undefined && k in oldObj, p.key(k), errs, budget);
      }
    }
    return budget;
  }

  private evaluateNode(s: Structural, raw: unknown, rawOld: unknown, hasOld: boolean, p: FieldPath, errs: FieldError[], budget: number): number {
    const node = this.nodes.get(s);
    if (!node) return budget;
    const self = celValueFor(node, raw);
    const old = hasOld ? celValueFor(node, rawOld) : undefined;
    const type = s.type;
    for (let i = 0; i < node.rules.length && budget >= 0; i++) {
      const compiled = node.rules[i]!;
      const rule = compiled.rule;
      if (compiled.error || !compiled.program) {
        if (compiled.error) errs.push(invalid(p.toString(), type, `rule compile error: ${compiled.error.detail}`));
        continue;
      }
      const optionalOldSelf = rule.optionalOldSelf === true;
      if (compiled.usesOldSelf && !hasOld && !optionalOldSelf) continue;
      const oldSelfValue = optionalOldSelf ? (hasOld ? Optional.of(old) : Optional.none()) : hasOld ? old : null;
      const cost =
        compiled.runtimeCost ?? estimateCost(compiled.program.ast, { schema: s, known: true, value: self }, { schema: s, known: true, value: hasOld ? old : null });
      if (cost > PerCallLimit) {
        errs.push(
          invalid(
            p.toString(),
            type,
            `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${trimmedRule(rule)}`,
          ),
        );
        budget = -1;
        continue;
      }
      if (cost > budget) {
        errs.push(invalid(p.toString(), type, 'validation failed due to running out of cost budget, no further validation rules will be run'));
        budget = -1;
        continue;
      }
      budget -= cost;
      const activation = { self, oldSelf: oldSelfValue };
      let result: unknown;
      try {
        result = compiled.program(activation);
      } catch (e) {
        const text = celErrorText(e);
        if (e instanceof EvaluationError && text.startsWith('no such overload')) {
          errs.push(
            invalid(p.toString(), type, `'${text}': call arguments did not match a supported operator, function or macro signature for rule: ${trimmedRule(rule)}`),
          );
        } else {
          errs.push(invalid(p.toString(), type, `${text} evaluating rule: ${trimmedRule(rule)}`));
        }
        continue;
      }
      if (result === true) continue;
      if (typeof result !== 'boolean') {
        errs.push(invalid(p.toString(), type, `'no such overload': call arguments did not match a supported operator, function or macro signature for rule: ${trimmedRule(rule)}`));
        continue;
      }
      const fieldPath = node.fieldPaths[i];
      const at = fieldPath ? p.child(fieldPath).toString() : p.toString();
      let detail = messageOrDefault(rule);
      if (compiled.messageProgram) {
        const msgCost = compiled.messageCost;
        if (msgCost > budget) {
          errs.push(invalid(at, type, 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run'));
          budget = -1;
          continue;
        }
        budget -= msgCost;
        const message = evaluateMessage(compiled, activation);
        if (message !== undefined) detail = message;
      }
      errs.push(errorForReason(at, type, detail, rule.reason));
    }
    return budget;
  }
}

/** `self` (or `oldSelf`) of a node's rules: the CEL form of `raw`, only the fields the rules read when they are few. */
function celValueFor(node: NodeRules, raw: unknown): unknown {
  return node.selfFields && isObject(raw) ? toCelValueFields(raw, node.valueSchema, node.selfFields) : toCelValue(raw, node.valueSchema);
}

/** The messageExpression result, or undefined (fall back to message) when it fails or yields an unusable string. */
function evaluateMessage(compiled: CompiledRule, activation: Record<string, unknown>): string | undefined {
  let value: unknown;
  try {
    value = compiled.messageProgram!(activation);
  } catch {
    return undefined;
  }
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.includes('\n') || Buffer.byteLength(trimmed) > MaxEvaluatedMessageExpressionSizeBytes) return undefined;
  return trimmed;
}

function mapKey(item: unknown, keys: string[]): string {
  if (!isObject(item)) return '\u0000';
  return JSON.stringify(keys.map((k) => (k in item ? item[k] : undefined)), (_, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

function indexByMapKeys(old: unknown[], keys: string[]): Map<string, unknown> {
  const m = new Map<string, unknown>();
  for (const item of old) {
    const k = mapKey(item, keys);
    if (!m.has(k)) m.set(k, item);
  }
  return m;
}
