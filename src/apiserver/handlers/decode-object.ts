import { groupVersionString } from '../../apimachinery/api-resource.js';
import { type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import { decodeBody, readBody } from '../http/body.js';
import { protobufTypeFor } from '../../apimachinery/protobuf/encode.js';
import { builtinCatalog } from '../../apimachinery/schema/builtin/index.js';
import { firstDecodeTypeError } from '../../apimachinery/schema/decode-type-errors.js';
import { fieldValidationProblems } from './field-validation-problems.js';
import type { BodyWriteOptions, RequestTarget } from './parsed-request.js';

/** Decodes a create or update body and checks it is this resource's (or subresource's) kind and version. */
export async function decodeObject(r: RequestTarget, options: BodyWriteOptions): Promise<{ obj: KubeObject; warnings: string[] }> {
  const def = r.def;
  const sub = r.subresource ? def.subresources.find((s) => s.name === r.subresource) : undefined;
  // A subresource of another kind (Scale) is written in that kind's group version (autoscaling/v1).
  const gv = sub?.version !== undefined && r.subresourceStrategy?.view ? groupVersionString(sub.group ?? '', sub.version) : groupVersionString(def.group, def.version);
  const expectedKind = r.subresource ? (sub?.kind ?? def.kind) : def.kind;
  const buf = await readBody(r.req);
  const decoded = decodeBody(buf, r.contentType, { kind: expectedKind, version: def.version });
  const obj = decoded.object as KubeObject;
  if (!r.subresource && def.codec.typedList) {
    const foreign = otherKindError(obj, def.group, def.version, def.kind);
    if (foreign) throw errors.badRequest(foreign);
  }
  checkTypeMeta(obj, expectedKind, gv);
  const typeError = def.codec.decodeError(obj, r.subresource);
  if (typeError) throw errors.badRequest(`${expectedKind} in version "${def.version}" cannot be handled as a ${expectedKind}: ${typeError}`);
  if (obj.metadata !== undefined && !isPlainObject(obj.metadata)) {
    throw errors.badRequest(`${expectedKind} in version "${def.version}" cannot be handled as a ${expectedKind}: metadata must be an object`);
  }
  if (options.fieldValidationError) throw options.fieldValidationError;
  const warnings = fieldValidationProblems(r, {
    mode: options.fieldValidation,
    obj,
    duplicates: decoded.duplicateFields.map((d) => `duplicate field "${d}"`),
    ...(decoded.text !== undefined ? { documentText: decoded.text } : {}),
    kind: expectedKind,
  });
  return { obj, warnings };
}

/** A body's apiVersion and kind, when it names them, must be the ones expected. */
export function checkTypeMeta(obj: KubeObject, kind: string, gv: string): void {
  if (typeof obj.apiVersion === 'string' && obj.apiVersion !== gv && (obj.kind === undefined || obj.kind === kind)) {
    // The serializer looks the pair up in its scheme before anything else (runtime.notRegisteredErr).
    const version = obj.apiVersion.slice(obj.apiVersion.lastIndexOf('/') + 1);
    throw errors.badRequest(
      `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(obj.apiVersion)} in scheme "pkg/runtime/scheme.go:100"`,
    );
  }
  if (obj.apiVersion !== undefined && obj.apiVersion !== gv) {
    throw errors.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${gv})`);
  }
  if (obj.kind !== undefined && obj.kind !== kind) {
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${kind}): kind ${JSON.stringify(obj.kind)} in version ${JSON.stringify(gv)}`);
  }
}

/** The Go package of a group's internal types, which a decoded object is converted into (`core.ConfigMap`). */
function internalPackage(group: string): string {
  if (group === '' || group === 'events.k8s.io') return 'core';
  return group.split('.')[0]!;
}

/**
 * A built-in kind's body naming another kind kube-apiserver's scheme registers (`kind: Secret` sent to configmaps):
 * the serializer decodes it as that kind, so that kind's decode errors come first, and then fails to convert it into
 * the expected internal type (`converting (v1.Secret) to (core.ConfigMap): unknown conversion`); a kind it does not
 * register is not found. Undefined when the body names this kind (checkTypeMeta checks it). apiextensions.k8s.io is
 * served from a scheme of its own, which holds neither the other's kinds.
 */
function otherKindError(obj: KubeObject, group: string, version: string, kind: string): string | undefined {
  if (typeof obj.kind !== 'string' || obj.kind === '' || obj.kind === kind) return undefined;
  if (obj.apiVersion !== undefined && typeof obj.apiVersion !== 'string') return undefined;
  // A missing apiVersion is defaulted from the request's group version.
  const apiVersion = obj.apiVersion || groupVersionString(group, version);
  const slash = apiVersion.indexOf('/');
  const [bodyGroup, bodyVersion] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  if (bodyGroup === 'apiextensions.k8s.io' || group === 'apiextensions.k8s.io') return undefined;
  const typeName = protobufTypeFor(bodyGroup, bodyVersion, obj.kind);
  const prefix = `${obj.kind} in version ${JSON.stringify(bodyVersion)} cannot be handled as a ${kind}: `;
  // A kind the scheme does not have is refused as the serializer looks it up (runtime.notRegisteredErr).
  if (typeName === undefined) return `${prefix}no kind ${JSON.stringify(obj.kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "pkg/runtime/scheme.go:100"`;
  return prefix + (firstDecodeTypeError(obj, builtinCatalog, typeName) ?? `converting (${bodyVersion}.${obj.kind}) to (${internalPackage(group)}.${kind}): unknown conversion`);
}
