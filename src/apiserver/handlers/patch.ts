import { type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import { goJSONSyntaxError } from '../../apimachinery/go-json-syntax.js';
import { applyPatch } from '../../patch/apply-patch.js';
import { goPatchedDocument, patchInvalid, patchInvalidValue, renderPatchValue } from '../../patch/patch-invalid.js';
import { findDuplicateKeys, readBody } from '../http/body.js';
import { addWarnings } from '../http/response.js';
import { dedupOwnerReferences } from './dedup-owner-references.js';
import { admitKeepingManagedFields, optionsObject, validateWrite } from './admission-attributes.js';
import type { AdmissionAttributes } from '../admission/admission.js';
import { fieldValidationProblems } from './field-validation-problems.js';
import { type ParsedRequest, subresourceView } from './parsed-request.js';
import { writeObject } from './render.js';

/**
 * PATCH with a JSON, merge or strategic merge patch (k8s.io/apiserver handlers/patch.go): the patch is applied to the
 * live object (or its subresource's view) and the result decoded, admitted and stored, retried on conflicts.
 */
export async function handlePatch(r: ParsedRequest<'patch'>): Promise<void> {
  const def = r.def;
  const { patchType, dryRun, fieldManager, fieldValidation } = r.options;
  const body = await readBody(r.req);
  let patch: unknown;
  try {
    patch = JSON.parse(body.toString('utf8'));
  } catch {
    // Go's words for the syntax error, from whichever decoding meets it first (handlers/patch.go): the strict
    // pre-decode of JSON and merge patches (Strict/Warn, the default) prefixes `error decoding patch: `; without it
    // (Ignore) a JSON patch's jsonpatch.DecodePatch says it bare and a merge patch's jsonpatch.MergePatch says
    // `Invalid JSON Patch`; a strategic merge patch's decoding never prefixes.
    const syntax = goJSONSyntaxError(body.toString('utf8')) ?? 'unexpected end of JSON input';
    if (patchType === 'strategic') throw errors.badRequest(syntax);
    if (fieldValidation === 'Ignore') throw errors.badRequest(patchType === 'merge' ? 'Invalid JSON Patch' : syntax);
    throw errors.badRequest(`error decoding patch: ${syntax}`);
  }
  // kjson.UnmarshalStrict of the body (Strict and Warn only): a JSON patch's are about its operations.
  const patchDuplicates =
    fieldValidation === 'Ignore' ? [] : findDuplicateKeys(body.toString('utf8')).map((d) => `${patchType === 'json' ? 'json patch ' : ''}duplicate field "${d}"`);
  let warnings: string[] = [];
  const options = optionsObject('UpdateOptions', { dryRun, fieldManager, fieldValidation });
  let attrs: AdmissionAttributes | undefined;
  const admit = async (obj: KubeObject): Promise<KubeObject> => {
    attrs!.object = obj;
    const admitted = await admitKeepingManagedFields(r, attrs!);
    warnings.push(...dedupOwnerReferences(admitted, true));
    return admitted;
  };
  // The kind's own warnings for the write (WarningsOnUpdate), added by the store once the result validated.
  const strategyWarnings: string[] = [];
  let updated: { object: KubeObject };
  try {
    updated = await r.store.guaranteedUpdate(
      r.ctx,
      r.namespace,
      r.name,
      async (current) => {
        // A subresource with its own kind (Scale) is patched in that form; the store maps the result onto the parent.
        const original = subresourceView(r, current!);
        const patched = applyPatch(patchType, original, patch, def.codec.strategicMergePatchSchema(r.subresource)) as KubeObject;
        if (!isPlainObject(patched)) throw errors.badRequest('the patch produced something that is not an object');
        // The result is decoded into the resource's type before anything else looks at it: a value of the wrong type is
        // a 422 naming the whole patched document (JSON and merge patches) or the patch (strategic, through the
        // unstructured converter, hence its own wording).
        const decodeError = def.codec.decodePatched(patched, original, patchType, r.subresource);
        if (decodeError) throw patchInvalid(patchType, patched, patch, decodeError);
        // Strict/Warn: the patch body's own duplicate fields, then the result's unknown fields; Strict fails with the
        // same 422 patch error as a type error (not the create/update 400), Warn returns them as warnings.
        // Decoding the fields drops the unknown ones from `patched`; a Strict failure names the document that had them.
        const strictValue = fieldValidation === 'Strict' && patchType !== 'strategic' ? renderPatchValue(patchType, patched, patch) : undefined;
        warnings = fieldValidationProblems(r, {
          mode: fieldValidation,
          obj: patched,
          duplicates: patchDuplicates,
          kind: def.kind,
          strictFailure: (detail) => (strictValue !== undefined ? patchInvalidValue(strictValue, detail) : patchInvalid(patchType, patched, patch, detail)),
          sortUnknown: patchType === 'strategic',
          decodedAs: patchType === 'strategic' ? patched : (goPatchedDocument(patchType, patched, patch) as KubeObject),
        });
        // checkName (handlers/rest.go) on the patched object: a patch that removes the name (or all of metadata) leaves
        // an object whose name cannot be determined; one that changes it is caught by the store's identity check.
        const patchedMeta = patched.metadata;
        if (!(isPlainObject(patchedMeta) && typeof patchedMeta.name === 'string' && patchedMeta.name !== '')) {
          throw errors.badRequest(`the name of the object (${r.name} based on URL) was undeterminable: name must be provided`);
        }
        // A resourceVersion inside the patch is a precondition (kubectl diff and apply send one).
        const wanted = patched.metadata?.resourceVersion;
        if (wanted !== undefined && wanted !== original.metadata?.resourceVersion) {
          throw errors.conflictModified({ group: def.group, resource: def.resource }, r.name);
        }
        // Decoding into a Go type already made them the original's; an unstructured result (custom resources, whose
        // decoding upstream is not modelled here) gets atrium's own answer.
        if (patched.apiVersion !== original.apiVersion || patched.kind !== original.kind) {
          throw errors.badRequest(`the API version or kind of the object changed in the patch`);
        }
        attrs = { operation: 'UPDATE', ctx: r.ctx, def, namespace: r.namespace, name: r.name, object: patched, oldObject: original, subresource: r.subresource, dryRun, warnings, options };
        // A main-resource patch is admitted in the store once managedFields record it (upstream's patcher runs the
        // field manager in applyPatch, before applyAdmission); a subresource's view is admitted here.
        return r.subresource ? admit(patched) : patched;
      },
      {
        dryRun,
        fieldManager,
        warnings: strategyWarnings,
        ...(r.subresource ? {} : { admit: (obj: KubeObject) => admit(obj) }),
        validateAdmission: r.admission.validates ? (obj, old) => validateWrite(r, attrs!)!(obj, old) : undefined,
      },
      r.subresource,
    );
  } catch (err) {
    addWarnings(r.res, warnings);
    throw err;
  }
  const { object } = updated;
  addWarnings(r.res, [...warnings, ...strategyWarnings]);
  writeObject(r.res, 200, subresourceView(r, object), r.output, def);
}
