/**
 * The request side of server-side apply (k8s.io/apiserver handlers/patch.go applyPatcher): PatchOptions validation,
 * decoding the YAML or JSON body, and the checks on the configuration and on the resulting object, each failing
 * with kube-apiserver's Status.
 */
import * as fe from '../../apimachinery/field-errors.js';
import { FieldPath } from '../../apimachinery/field-errors.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { errors, StatusError } from '../../apimachinery/status.js';
import { validateFieldManager } from '../../apimachinery/validation/object-meta.js';
import { parseBoolParam } from '../../apimachinery/query-params.js';
import { isMap, isPair, isScalar, isSeq, LineCounter, parse as parseYaml, parseDocument } from 'yaml';
import { isObjectValue, type SsaType } from './schema.js';
import { configurationTypeErrors } from './validate-config.js';

export interface ApplyOptions {
  fieldManager: string;
  force: boolean;
}

/**
 * fieldManager (required for apply, at most 128 printable characters) and force (a boolean). Errors are 422 on
 * PatchOptions.meta.k8s.io, e.g. `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required
 * for apply patch`. dryRun and fieldValidation are checked by the caller as for every patch.
 */
export function parseApplyOptions(query: URLSearchParams): ApplyOptions {
  const fieldManager = query.get('fieldManager') ?? '';
  const errs = fieldManager === '' ? [fe.required('fieldManager', 'is required for apply patch')] : validateFieldManager(fieldManager, FieldPath.root('fieldManager'));
  if (errs.length) throw errors.invalid('meta.k8s.io', 'PatchOptions', '', errs);
  // PatchOptions.Force through runtime.Convert_Slice_string_To_Pointer_bool: "0" and any "false" are false, anything
  // else true (so force=yes forces).
  return { fieldManager, force: parseBoolParam(query, 'force') ?? false };
}

/**
 * Decodes an apply body: YAML or JSON (JSON is YAML), which must be a mapping. An empty body is an empty
 * configuration (it then fails the apiVersion check). 400 `error decoding YAML: ...` otherwise.
 */
export function decodeApplyBody(body: Buffer): KubeObject {
  const text = body.toString('utf8');
  let value: unknown = NOT_JSON;
  // JSON is YAML, and kubectl and most controllers send JSON: try the fast parser first.
  if (/^\s*\{/.test(text)) {
    try {
      value = JSON.parse(text);
    } catch {
      value = NOT_JSON;
    }
  }
  if (value === NOT_JSON) {
    try {
      value = parseYaml(text, { uniqueKeys: false, maxAliasCount: 100 });
    } catch (err) {
      throw errors.badRequest(`error decoding YAML: error converting YAML to JSON: yaml: ${firstLine((err as Error).message)}`);
    }
  }
  if (value === null || value === undefined) return {};
  if (!isObjectValue(value)) {
    const kind = Array.isArray(value) ? 'array' : typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'bool';
    throw errors.badRequest(
      `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`,
    );
  }
  return value as KubeObject;
}

/**
 * The field manager's checks on the configuration, in upstream's order: versionCheckManager (the configuration's
 * group, version and kind are the endpoint's: 400 `invalid object type: <gvk>`), structuredMergeManager (no
 * managedFields: 400 `metadata.managedFields must be nil`) and the type converter (the configuration matches the
 * schema: a plain error, which reaches the client as a 500 without a reason, `failed to create typed patch object
 * (<ns>/<name>; <gvk>): <smd errors>`). structuredMergeManager's `Incorrect version specified in apply patch` can
 * no longer fail once the group and version matched.
 */
export function checkApplyConfiguration(config: KubeObject, groupVersion: string, kind: string, root: SsaType): void {
  const gvk = configGVK(config);
  if (gvk !== gvkString(groupVersion, kind)) throw errors.badRequest(`invalid object type: ${gvk}`);
  const meta = config.metadata;
  if (isObjectValue(meta) && meta.managedFields !== undefined && meta.managedFields !== null) {
    throw errors.badRequest('metadata.managedFields must be nil');
  }
  const problems = configurationTypeErrors(config, root);
  if (problems) {
    const ns = isObjectValue(meta) && typeof meta.namespace === 'string' ? meta.namespace : '';
    const name = isObjectValue(meta) && typeof meta.name === 'string' ? meta.name : '';
    throw unknownError(`failed to create typed patch object (${ns}/${name}; ${gvk}): ${problems}`);
  }
}

/** ErrorToAPIStatus of an error that is no APIStatus: 500, no reason, no details. */
function unknownError(message: string): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
}

function gvkString(groupVersion: string, kind: string): string {
  const slash = groupVersion.indexOf('/');
  return slash < 0 ? `/${groupVersion}, Kind=${kind}` : `${groupVersion.slice(0, slash)}/${groupVersion.slice(slash + 1)}, Kind=${kind}`;
}

/**
 * Unstructured.GroupVersionKind() of the configuration, printed: apiVersion and kind read as strings (anything else
 * is ""), and an apiVersion with more than one slash parses to nothing, kind included.
 */
function configGVK(config: KubeObject): string {
  const apiVersion = typeof config.apiVersion === 'string' ? config.apiVersion : '';
  const kind = typeof config.kind === 'string' ? config.kind : '';
  if (apiVersion === '' || apiVersion === '/') return `/, Kind=${kind}`;
  const slashes = apiVersion.split('/').length - 1;
  if (slashes > 1) return '/, Kind=';
  return gvkString(apiVersion, kind);
}

/**
 * The applied object must name the URL's object (patch.go checkName): 400 `the name of the object (<a>) does not
 * match the name on the URL (<b>)` / `the namespace of the object (<a>) does not match the namespace on the request (<b>)`.
 */
export function checkAppliedName(obj: KubeObject, name: string, namespace: string): void {
  const objName = obj.metadata?.name ?? '';
  if (objName !== name) throw errors.badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
  const objNamespace = obj.metadata?.namespace ?? '';
  if (namespace && objNamespace && objNamespace !== namespace) {
    throw errors.badRequest(`the namespace of the object (${objNamespace}) does not match the namespace on the request (${namespace})`);
  }
}

/**
 * The duplicate keys yaml.v2's strict decoding reports for an apply body (JSON bodies are YAML too), in document
 * order: `line <n>: key "<k>" already set in map`, the line being where the repeated key's value starts (the node
 * yaml.v2 reports), or the key's own line for an empty value.
 */
export function yamlDuplicateKeys(text: string): string[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter });
  if (doc.errors.length) return [];
  const out: string[] = [];
  const walk = (node: unknown): void => {
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const item of node.items) {
        if (!isPair(item)) continue;
        const key = isScalar(item.key) ? item.key.value : item.key;
        const id = typeof key === 'string' ? `s:${key}` : `v:${String(key)}`;
        if (seen.has(id)) {
          const value = item.value as { range?: [number, number, number] } | null;
          const keyRange = (item.key as { range?: [number, number, number] } | null)?.range;
          const offset = isScalar(item.value) && item.value.value === null ? keyRange?.[0] : (value?.range?.[0] ?? keyRange?.[0]);
          const line = offset === undefined ? 0 : lineCounter.linePos(offset).line;
          out.push(`line ${line}: key ${typeof key === 'string' ? JSON.stringify(key) : String(key)} already set in map`);
        }
        seen.add(id);
        walk(item.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) walk(item);
    }
  };
  walk(doc.contents);
  return out;
}

const NOT_JSON = Symbol('not JSON');

function firstLine(s: string): string {
  return s.split('\n')[0]!;
}
