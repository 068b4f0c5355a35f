/**
 * The ValidatingAdmissionPolicy status controller (pkg/controller/validatingadmissionpolicystatus, with the type
 * checker of k8s.io/apiserver pkg/admission/plugin/policy/validating/typechecking.go): for every policy whose
 * generation is ahead of status.observedGeneration, type-checks its validations' expressions and
 * messageExpressions against the schema of each kind its matchConstraints name explicitly (no wildcards) and of its
 * paramKind, and writes `status: {observedGeneration, typeChecking: {expressionWarnings}}` through /status. A warning
 * reads as upstream's: `<group>/<version>, Kind=<Kind>: compilation failed: ERROR: <input>:1:8: undefined field 'x'`
 * plus the source line and caret, one paragraph per kind.
 *
 * Deliberate differences: it runs in-process, fed by the policy cache's watch, rather than as an API client; the
 * check finds selections of fields a kind does not declare (`object.spec.replicaz`, `params.maxReplica`), the error
 * upstream's typed environment reports most; other typed-environment errors (overloads on the declared types) are not
 * reported. Schemas come from the built-in type catalog and custom resources' OpenAPI schemas.
 */
import type { ASTNode } from '@marcbachmann/cel-js';
import type { KubeObject } from '../apimachinery/object.js';
import { isPlainObject } from '../apimachinery/object.js';
import { builtinCatalog } from '../apimachinery/schema/builtin/index.js';
import type { FieldType } from '../apimachinery/schema/types.js';
import { celIssues } from '../apiextensions/schema/cel/compile.js';
import { logger } from '../logging/logger.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { ResourceDefinition } from '../registry/rest.js';
import { compileExpression } from './cel.js';

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** A position in a schema: a catalog type, an OpenAPI schema, or anything (not checked further). */
type SchemaNode = { type: FieldType } | { openapi: Json } | 'any';

function catalogField(t: FieldType, name: string): SchemaNode | undefined {
  if ('ref' in t) {
    const desc = builtinCatalog.get(t.ref);
    if (!desc) return 'any';
    const f = desc.fields.find((x) => x.name === name);
    return f ? { type: f.type } : undefined;
  }
  if ('map' in t) return { type: t.map };
  return 'any';
}

function openapiField(s: Json, name: string): SchemaNode | undefined {
  if (s.$ref !== undefined || s.allOf !== undefined || s['x-kubernetes-preserve-unknown-fields'] === true || s['x-kubernetes-int-or-string'] === true) return 'any';
  if (isPlainObject(s.properties) && Object.keys(s.properties).length > 0) {
    const p = s.properties[name];
    if (isPlainObject(p)) return { openapi: p };
    if (s['x-kubernetes-embedded-resource'] === true && ['apiVersion', 'kind', 'metadata'].includes(name)) return 'any';
    return undefined;
  }
  if (isPlainObject(s.additionalProperties)) return { openapi: s.additionalProperties };
  if (s.type === 'object' && s.additionalProperties === undefined) return s['x-kubernetes-embedded-resource'] === true ? 'any' : undefined;
  return 'any';
}

function field(n: SchemaNode, name: string): SchemaNode | undefined {
  if (n === 'any') return 'any';
  return 'type' in n ? catalogField(n.type, name) : openapiField(n.openapi, name);
}

/** The schema of a served kind, or undefined when none is known. */
function schemaOf(def: ResourceDefinition): SchemaNode | undefined {
  const own = def.openAPISchemas?.v3[def.definitionName];
  if (own) return { openapi: own };
  if (builtinCatalog.has(def.definitionName)) return { type: { ref: def.definitionName } };
  return undefined;
}

/** The first selection of an undeclared field on a root variable, in cel-go's words. */
function undefinedField(expr: string, ast: ASTNode, roots: Map<string, SchemaNode>): string | undefined {
  let found: string | undefined;
  const resolve = (n: ASTNode): SchemaNode | undefined => {
    if (found) return undefined;
    if (n.op === 'id') return roots.get(n.args as string);
    if (n.op === '.' || n.op === '.?') {
      const [target, name] = n.args as [ASTNode, string];
      const parent = resolve(target);
      if (!parent) return undefined;
      const child = field(parent, name);
      if (!child) {
        found = celIssues(expr, { message: `undefined field '${name}'`, range: { start: n.range.end - name.length - 1 } });
        return undefined;
      }
      return child;
    }
    const each = (x: unknown): void => {
      if (x && typeof x === 'object' && 'op' in (x as object)) resolve(x as ASTNode);
      else if (Array.isArray(x)) x.forEach(each);
    };
    if (n.op !== 'value') each(n.args as unknown);
    return undefined;
  };
  resolve(ast);
  return found;
}

/** TypeChecker.Check: the expression warnings of a policy in a cluster. */
export function typeCheck(registry: ResourceRegistry, cluster: string, policy: KubeObject): { fieldRef: string; warning: string }[] {
  const spec = isPlainObject(policy.spec) ? policy.spec : {};
  const mc = isPlainObject(spec.matchConstraints) ? spec.matchConstraints : {};
  const served = registry.resources(cluster);
  const kinds: { gvk: string; schema: SchemaNode }[] = [];
  const seen = new Set<string>();
  for (const rule of list(mc.resourceRules)) {
    const groups = strings(rule.apiGroups).filter((g) => g !== '*').sort();
    const versions = strings(rule.apiVersions).filter((v) => v !== '*').sort();
    const resources = strings(rule.resources).filter((r) => r !== '*' && !r.includes('/')).sort();
    for (const g of groups)
      for (const v of versions)
        for (const r of resources) {
          const def = served.find((d) => d.group === g && d.version === v && d.resource === r);
          const schema = def && schemaOf(def);
          const gvk = def ? `${g ? `${g}/` : '/'}${v}, Kind=${def.kind}` : '';
          if (!def || !schema || seen.has(gvk)) continue;
          seen.add(gvk);
          kinds.push({ gvk, schema });
        }
  }
  let params: SchemaNode | undefined;
  const hasParams = isPlainObject(spec.paramKind);
  if (isPlainObject(spec.paramKind)) {
    const apiVersion = String(spec.paramKind.apiVersion ?? '');
    const slash = apiVersion.indexOf('/');
    const [g, v] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
    const def = served.find((d) => d.group === g && d.version === v && d.kind === (spec.paramKind as Json).kind && !d.resource.includes('/'));
    params = def && schemaOf(def);
  }
  if (kinds.length === 0 && !params) return [];
  const variables = list(spec.variables).map((v) => String(v.name ?? ''));
  const check = (expression: string): string => {
    const c = compileExpression(expression, { hasParams, variables, returns: 'any' });
    if (!c.program) return '';
    const out: string[] = [];
    for (const k of kinds.length > 0 ? kinds : [{ gvk: '', schema: 'any' as SchemaNode }]) {
      const roots = new Map<string, SchemaNode>([
        ['object', k.schema],
        ['oldObject', k.schema],
      ]);
      if (params) roots.set('params', params);
      const issue = undefinedField(expression, c.program.ast, roots);
      if (issue) out.push(`${k.gvk || (hasParams ? String((spec.paramKind as Json).apiVersion) + ', Kind=' + String((spec.paramKind as Json).kind) : '')}: compilation failed: ${issue}\n`);
    }
    return out.join('\n');
  };
  const warnings: { fieldRef: string; warning: string }[] = [];
  list(spec.validations).forEach((v, i) => {
    const w = check(String(v.expression ?? ''));
    if (w) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: w });
    if (typeof v.messageExpression === 'string' && v.messageExpression) {
      const m = check(v.messageExpression);
      if (m) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: m });
    }
  });
  return warnings;
}

/** Writes the status of policies whose generation it has not observed, one at a time. */
export class PolicyStatusWriter {
  private readonly queue = new Map<string, { cluster: string; policy: KubeObject }>();
  private running = false;
  private stopped = false;

  constructor(private readonly registry: ResourceRegistry) {}

  observe(cluster: string, policy: KubeObject): void {
    const generation = policy.metadata?.generation ?? 0;
    const observed = isPlainObject(policy.status) && typeof policy.status.observedGeneration === 'number' ? policy.status.observedGeneration : 0;
    if (generation <= observed || this.stopped) return;
    this.queue.set(`${cluster}/${policy.metadata?.name}`, { cluster, policy });
    if (!this.running) void this.drain();
  }

  stop(): void {
    this.stopped = true;
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.size > 0 && !this.stopped) {
        const [key, item] = this.queue.entries().next().value as [string, { cluster: string; policy: KubeObject }];
        this.queue.delete(key);
        await this.write(item.cluster, item.policy);
      }
    } finally {
      this.running = false;
    }
  }

  private async write(cluster: string, policy: KubeObject): Promise<void> {
    const store = this.registry.lookup(cluster, 'admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies');
    if (!store) return;
    const expressionWarnings = typeCheck(this.registry, cluster, policy);
    const status = { observedGeneration: policy.metadata?.generation ?? 0, typeChecking: expressionWarnings.length > 0 ? { expressionWarnings } : {} };
    const name = policy.metadata?.name ?? '';
    try {
      await store.update({ cluster, user: { username: 'system:serviceaccount:kube-system:validatingadmissionpolicy-status-controller', groups: ['system:masters'] } }, '', name, { ...policy, status }, { dryRun: false, fieldManager: 'validatingadmissionpolicy-status-controller' }, 'status');
    } catch (err) {
      // A conflict or a deletion: the watch brings the newer policy (and queues it again) or nothing.
      logger.debug('validating admission policy status not written', { cluster, policy: name, error: (err as Error).message });
    }
  }
}
