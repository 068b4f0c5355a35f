/**
 * The ValidatingAdmissionPolicies and ValidatingAdmissionPolicyBindings of every logical cluster, kept in memory from
 * one watch per kind across all clusters (upstream's policy source and its informers): a request costs no storage
 * read to find what applies, and a workspace without policies costs a map lookup. Each policy is compiled once per
 * generation (its expressions in the policy CEL environment); each cluster's policies, with their bindings, are kept
 * in name order.
 */
import type { KubeObject } from '../apimachinery/object.js';
import { isPlainObject } from '../apimachinery/object.js';
import type { GenericStore } from '../registry/generic/store.js';
import { ClusterObjects } from '../apiserver/admission/cluster-objects.js';
import { type CompiledExpression, compileExpression } from './cel.js';

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export interface CompiledValidation {
  expression: CompiledExpression;
  messageExpression?: CompiledExpression;
  message: string;
  reason?: string;
}

/** A policy compiled for evaluation. */
export interface CompiledPolicy {
  name: string;
  generation: number;
  object: KubeObject;
  failurePolicy: 'Fail' | 'Ignore' | string;
  paramKind?: { apiVersion: string; kind: string; group: string; version: string };
  matchConstraints?: Json;
  matchConditions: { name: string; compiled: CompiledExpression }[];
  variables: { name: string; compiled: CompiledExpression }[];
  validations: CompiledValidation[];
  auditAnnotations: { key: string; valueExpression: string; compiled: CompiledExpression }[];
}

/** A policy with the bindings that name it, as the dispatcher walks them. */
export interface PolicyHook {
  policy: CompiledPolicy;
  bindings: KubeObject[];
}

/** Compiles a stored policy (its expressions were checked when it was written; a failure here reads as upstream's). */
export function compilePolicy(o: KubeObject): CompiledPolicy {
  const spec = isPlainObject(o.spec) ? o.spec : {};
  const pk = isPlainObject(spec.paramKind) ? spec.paramKind : undefined;
  const hasParams = pk !== undefined;
  let paramKind: CompiledPolicy['paramKind'];
  if (pk) {
    const apiVersion = str(pk.apiVersion);
    const slash = apiVersion.indexOf('/');
    paramKind = { apiVersion, kind: str(pk.kind), group: slash < 0 ? '' : apiVersion.slice(0, slash), version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1) };
  }
  const variableNames: string[] = [];
  const variables = list(spec.variables).map((v) => {
    const compiled = compileExpression(str(v.expression), { hasParams, variables: [...variableNames], returns: 'any' });
    variableNames.push(str(v.name));
    return { name: str(v.name), compiled };
  });
  return {
    name: o.metadata?.name ?? '',
    generation: o.metadata?.generation ?? 0,
    object: o,
    failurePolicy: str(spec.failurePolicy) || 'Fail',
    ...(paramKind ? { paramKind } : {}),
    ...(isPlainObject(spec.matchConstraints) ? { matchConstraints: spec.matchConstraints } : {}),
    matchConditions: list(spec.matchConditions).map((c) => ({ name: str(c.name), compiled: compileExpression(str(c.expression).trim(), { hasParams, variables: variableNames, returns: 'bool' }) })),
    variables,
    validations: list(spec.validations).map((v) => ({
      expression: compileExpression(str(v.expression), { hasParams, variables: variableNames, returns: 'bool' }),
      ...(str(v.messageExpression).trim() ? { messageExpression: compileExpression(str(v.messageExpression), { hasParams, variables: variableNames, returns: 'string' }) } : {}),
      message: str(v.message),
      ...(v.reason ? { reason: str(v.reason) } : {}),
    })),
    auditAnnotations: list(spec.auditAnnotations).map((a) => ({
      key: str(a.key),
      valueExpression: str(a.valueExpression),
      compiled: compileExpression(str(a.valueExpression).trim(), { hasParams, variables: variableNames, returns: 'stringOrNull' }),
    })),
  };
}

export class PolicyCache {
  private readonly policies: ClusterObjects;
  private readonly bindings: ClusterObjects;
  /** cluster → policy name → compiled (kept while the generation stays). */
  private readonly compiled = new Map<string, Map<string, CompiledPolicy>>();
  /** cluster → hooks in order, rebuilt lazily after a change. */
  private readonly hooksByCluster = new Map<string, PolicyHook[]>();

  constructor(
    policies: () => GenericStore | undefined,
    bindings: () => GenericStore | undefined,
    /** Told of every policy added or changed (the status writer). */
    private readonly onPolicy?: (cluster: string, policy: KubeObject) => void,
  ) {
    this.policies = new ClusterObjects(policies, 'validating admission policies', (cluster, obj, type) => {
      this.hooksByCluster.delete(cluster);
      if ((type === 'ADDED' || type === 'MODIFIED') && this.onPolicy) this.onPolicy(cluster, obj);
    });
    this.bindings = new ClusterObjects(bindings, 'validating admission policy bindings', (cluster) => this.hooksByCluster.delete(cluster));
  }

  async start(): Promise<void> {
    await this.policies.start();
    await this.bindings.start();
  }

  stop(): void {
    this.policies.stop();
    this.bindings.stop();
  }

  /** The cluster's policies that have bindings, by policy name, with their bindings by name. */
  hooks(cluster: string): PolicyHook[] {
    const cached = this.hooksByCluster.get(cluster);
    if (cached) return cached;
    const policies = this.policies.byCluster.get(cluster);
    const bindings = this.bindings.byCluster.get(cluster);
    const out: PolicyHook[] = [];
    if (policies && bindings) {
      const byPolicy = new Map<string, KubeObject[]>();
      for (const name of [...bindings.keys()].sort()) {
        const b = bindings.get(name)!;
        const policyName = str(isPlainObject(b.spec) ? b.spec.policyName : undefined);
        let l = byPolicy.get(policyName);
        if (!l) byPolicy.set(policyName, (l = []));
        l.push(b);
      }
      let compiled = this.compiled.get(cluster);
      if (!compiled) this.compiled.set(cluster, (compiled = new Map()));
      for (const name of [...compiled.keys()]) if (!policies.has(name)) compiled.delete(name);
      for (const name of [...policies.keys()].sort()) {
        const bs = byPolicy.get(name);
        if (!bs) continue;
        const p = policies.get(name)!;
        let c = compiled.get(name);
        if (!c || c.generation !== (p.metadata?.generation ?? 0) || c.object.metadata?.uid !== p.metadata?.uid) compiled.set(name, (c = compilePolicy(p)));
        out.push({ policy: c, bindings: bs });
      }
    } else this.compiled.delete(cluster);
    this.hooksByCluster.set(cluster, out);
    return out;
  }
}
