import { groupVersionString } from '../../apimachinery/api-resource.js';
import { type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import { NO_CHANGE } from '../../registry/generic/store.js';
import { checkAppliedName, checkApplyConfiguration, decodeApplyBody, yamlDuplicateKeys } from '../../patch/apply/apply-request.js';
import { fieldManagerFor } from '../../registry/generic/field-manager-for.js';
import { findDuplicateKeys, readBody } from '../http/body.js';
import { addWarnings } from '../http/response.js';
import { fieldValidationProblems } from './field-validation-problems.js';
import { type ParsedRequest, subresourceView } from './parsed-request.js';
import { writeObject } from './render.js';
import { admitKeepingManagedFields, optionsObject, validateWrite } from './admission-attributes.js';
import type { AdmissionAttributes } from '../admission/admission.js';

/**
 * Server-side apply (application/apply-patch+yaml): the configuration is merged over the live object by the
 * resource's field manager, which also answers 409 on conflicts; a missing object is created (201).
 */
export async function handleApply(r: ParsedRequest<'apply'>): Promise<void> {
  const def = r.def;
  const { fieldManager, force, dryRun, fieldValidation } = r.options;
  const body = await readBody(r.req);
  const config = decodeApplyBody(body);
  if (r.subresourceStrategy?.view) {
    throw errors.unsupportedMediaType('application/apply-patch+yaml', ['application/json-patch+json', 'application/merge-patch+json']);
  }
  const manager = fieldManagerFor(def, r.subresource);
  checkApplyConfiguration(config, groupVersionString(def.group, def.version), def.kind, manager.rootType);
  // Duplicate keys, by their YAML line; a JSON body without any (the common case) is not parsed again.
  const text = body.toString('utf8');
  const duplicates =
    fieldValidation === 'Ignore' || (/^\s*\{/.test(text) && findDuplicateKeys(text).length === 0) ? [] : yamlDuplicateKeys(text);
  // The configuration is pruned but not defaulted: defaults go into the merged object below.
  const warnings = [...duplicates, ...fieldValidationProblems(r, { mode: fieldValidation, obj: config, duplicates: [], kind: def.kind, withDefaults: false })];
  let attrs: AdmissionAttributes | undefined;
  // The kind's own warnings for the write (WarningsOnCreate or WarningsOnUpdate), added by the store once it validated.
  const strategyWarnings: string[] = [];
  let result: { object: KubeObject; created: boolean };
  try {
    result = await r.store.guaranteedUpdate(
      r.ctx,
      r.namespace,
      r.name,
      async (current) => {
        const applied = manager.apply(current, config, fieldManager, force);
        if (applied !== current) def.codec.applyDefaults(applied, r.subresource);
        // After a successful apply, Strict and Warn decode the body again with yaml.UnmarshalStrict (applyPatcher).
        if (duplicates.length && fieldValidation === 'Strict') {
          throw errors.badRequest(`error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`);
        }
        // patcher.applyPatch: an object created by the apply must not carry a uid of its own.
        const appliedUID = applied.metadata?.uid;
        if (!current && typeof appliedUID === 'string' && appliedUID !== '') {
          throw errors.conflict(
            { group: def.group, resource: def.resource },
            r.name,
            `uid mismatch: the provided object specified uid ${appliedUID}, and no existing object was found`,
          );
        }
        checkAppliedName(applied, r.name, r.namespace);
        // The field manager hands back the live object itself when the apply changes nothing.
        const unchanged = applied === current;
        attrs = {
          operation: current ? 'UPDATE' : 'CREATE',
          ctx: r.ctx,
          def,
          namespace: r.namespace,
          name: r.name,
          object: applied,
          oldObject: current ?? undefined,
          subresource: r.subresource,
          dryRun,
          warnings,
          options: optionsObject(current ? 'UpdateOptions' : 'CreateOptions', { dryRun, fieldManager, fieldValidation }),
        };
        // A mutating webhook's patch replaces the object: it is what gets stored. Apply recorded managedFields above,
        // before admission, as upstream's patcher does.
        const admitted = await admitKeepingManagedFields(r, attrs);
        // A resourceVersion in the configuration is a precondition on the existing object (the store's update checks
        // the merged object's), also when nothing would change.
        const wanted = isPlainObject(config.metadata) ? config.metadata.resourceVersion : undefined;
        if (current && typeof wanted === 'string' && wanted !== '' && wanted !== current.metadata?.resourceVersion) {
          throw errors.conflictModified({ group: def.group, resource: def.resource }, r.name);
        }
        return unchanged && admitted === applied ? NO_CHANGE : admitted;
      },
      { dryRun, warnings: strategyWarnings, validateAdmission: r.admission.validates ? (obj, old) => validateWrite(r, attrs!)!(obj, old) : undefined },
      r.subresource,
      !r.subresource,
    );
  } catch (err) {
    addWarnings(r.res, warnings);
    throw err;
  }
  const { object, created } = result;
  addWarnings(r.res, [...warnings, ...strategyWarnings]);
  writeObject(r.res, created ? 201 : 200, subresourceView(r, object), r.output, def);
}
