/**
 * The /scale subresource of a custom resource (apiextensions registry/customresource: scaleFromCustomResource and the
 * scale update): an autoscaling/v1 Scale view built from specReplicasPath, statusReplicasPath and labelSelectorPath,
 * and writes that set only the spec replicas.
 */
import { type FieldError, FieldPath, invalid } from '../../apimachinery/field-errors.js';
import { type KubeObject, metaOf } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import type { SubresourceStrategy } from '../../registry/rest.js';
import type { CRDScale } from '../crd/types.js';
import { getSimplePath, setSimplePath } from './jsonpath.js';

const SCALE_DEFINITION = 'io.k8s.api.autoscaling.v1.Scale';

/** `validate` checks the parent after the replicas were written (the CR's own schema and rules still apply). */
export function scaleSubresource(scale: CRDScale, validate: SubresourceStrategy['validate']): SubresourceStrategy {
  const specPath = scale.specReplicasPath ?? '.spec.replicas';
  const statusPath = scale.statusReplicasPath ?? '.status.replicas';
  return {
    view(parent: KubeObject): KubeObject {
      const meta = metaOf(parent);
      const metadata: Record<string, unknown> = { name: meta.name };
      if (meta.namespace) metadata.namespace = meta.namespace;
      metadata.uid = meta.uid;
      metadata.resourceVersion = meta.resourceVersion;
      metadata.creationTimestamp = meta.creationTimestamp;
      const specReplicas = getSimplePath(parent, specPath);
      const statusReplicas = getSimplePath(parent, statusPath);
      const spec: Record<string, unknown> = {};
      if (typeof specReplicas === 'number' && specReplicas !== 0) spec.replicas = specReplicas;
      const status: Record<string, unknown> = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
      if (scale.labelSelectorPath) {
        const sel = getSimplePath(parent, scale.labelSelectorPath);
        if (typeof sel === 'string' && sel) status.selector = sel;
      }
      return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata, spec, status };
    },
    viewDefinitionName: SCALE_DEFINITION,
    apply(incoming: KubeObject, current: KubeObject): KubeObject {
      const spec = (incoming.spec ?? {}) as { replicas?: unknown };
      const replicas = spec.replicas ?? 0;
      const name = metaOf(current).name ?? '';
      if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
        throw errors.invalid('autoscaling', 'Scale', name, [invalid(FieldPath.root('spec').child('replicas').toString(), replicas, 'must be an integer')]);
      }
      if (replicas < 0) {
        throw errors.invalid('autoscaling', 'Scale', name, [invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
      }
      setSimplePath(current, specPath, replicas);
      return current;
    },
    validate,
  };
}

/** Go's `%T` of a value decoded by the unstructured JSON decoder. */
function goTypeName(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** Go's `%v` of such a value (good enough for scalars, which is what these errors name). */
function goValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (v !== null && typeof v === 'object') return `map[${Object.keys(v).sort().map((k) => `${k}:${goValue((v as Record<string, unknown>)[k])}`).join(' ')}]`;
  return String(v);
}

/**
 * unstructured.NestedFieldNoCopy + a type check: the value at a simple `.a.b` path, or the accessor error text
 * (`.status.replicas accessor error: abc is of the type string, expected int64`).
 */
function nested(obj: unknown, path: string, expected: 'int64' | 'string'): { value: unknown; error?: string } {
  const fields = path.replace(/^\./, '').split('.');
  let cur: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (cur === null || cur === undefined) return { value: undefined };
    if (typeof cur !== 'object' || Array.isArray(cur)) {
      return { value: undefined, error: `.${fields.slice(0, i).join('.')} accessor error: ${goValue(cur)} is of the type ${goTypeName(cur)}, expected map[string]interface{}` };
    }
    cur = (cur as Record<string, unknown>)[fields[i]!];
  }
  if (cur === undefined || cur === null) return { value: undefined };
  const ok = expected === 'int64' ? typeof cur === 'number' && Number.isInteger(cur) : typeof cur === 'string';
  if (!ok) return { value: undefined, error: `.${fields.join('.')} accessor error: ${goValue(cur)} is of the type ${goTypeName(cur)}, expected ${expected}` };
  return { value: cur };
}

const maxInt32 = 2147483647;

/**
 * Status writes of a custom resource with a scale subresource (customresource validator ValidateScaleStatus): the
 * value at statusReplicasPath must be an int64 in [0, MaxInt32] and the one at labelSelectorPath a string. The
 * field path of each error is the JSON path itself (`.status.replicas`), as upstream builds it.
 */
export function validateScaleStatus(obj: KubeObject, scale: CRDScale): FieldError[] {
  const errs: FieldError[] = [];
  const statusPath = scale.statusReplicasPath ?? '';
  if (statusPath) {
    const r = nested(obj, statusPath, 'int64');
    const replicas = typeof r.value === 'number' ? r.value : 0;
    if (r.error) errs.push(invalid(statusPath, replicas, r.error));
    else if (replicas < 0) errs.push(invalid(statusPath, replicas, 'must be a non-negative integer'));
    else if (replicas > maxInt32) errs.push(invalid(statusPath, replicas, `must be less than or equal to ${maxInt32}`));
  }
  if (scale.labelSelectorPath) {
    const r = nested(obj, scale.labelSelectorPath, 'string');
    if (r.error) errs.push(invalid(scale.labelSelectorPath, '', r.error));
  }
  return errs;
}
