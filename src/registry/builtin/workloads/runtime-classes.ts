/**
 * node.k8s.io/v1 RuntimeClasses as kube-apiserver 1.32 serves them (pkg/registry/node/runtimeclass): cluster-scoped,
 * the handler a DNS label that cannot change, an overhead validated as container limits are, a scheduling section of
 * node labels and unique tolerations (pkg/apis/node/validation). The RuntimeClass admission plugin
 * (apiserver/admission/runtime-class.ts) applies a class to the pods naming it.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import { column } from '../../../apimachinery/table/table.js';
import type { TablePrinter } from '../../../apimachinery/table/builtin-printers.js';
import { isDNS1123Label } from '../../../apimachinery/validation/names.js';
import { validateImmutableField, validateLabels } from '../../../apimachinery/validation/object-meta.js';
import { defineBuiltin } from '../define.js';
import { validateOverhead } from './pod-misc-validation.js';
import { validateTolerations } from './pod-level-validation.js';
import { at, isSet, list, obj, str } from './pod-validation-helpers.js';
import { ageColumn, ageOf, nameColumn, nameOf } from './printers.js';

/** printRuntimeClass: NAME, HANDLER, AGE. */
export const runtimeClassPrinter: TablePrinter = {
  columns: [nameColumn, column('Handler', 'string', 'The CRI handler that runs the pods of this class.'), ageColumn],
  row: (o, now) => [nameOf(o), str(o.handler), ageOf(o, now)],
};

/** ValidateRuntimeClass (the metadata is the store's). */
export function validateRuntimeClass(rc: KubeObject): FieldError[] {
  const errs: FieldError[] = isDNS1123Label(str(rc.handler)).map((m) => fe.invalid('handler', str(rc.handler), m));
  if (isSet(rc.overhead)) errs.push(...validateOverhead(obj(rc.overhead).podFixed, 'overhead'));
  if (isSet(rc.scheduling)) {
    const s = obj(rc.scheduling);
    if (isSet(s.nodeSelector)) errs.push(...validateLabels(obj(s.nodeSelector) as Record<string, string>, at('scheduling.nodeSelector')));
    // validateTolerations names the list twice (fldPath.Child("tolerations") on a path that already ends with it).
    errs.push(...validateTolerations(s.tolerations, 'scheduling.tolerations.tolerations'));
    const seen = new Set<string>();
    list(s.tolerations).forEach((raw, i) => {
      const t = obj(raw);
      const key = JSON.stringify([str(t.key), str(t.operator), str(t.value), str(t.effect)]);
      if (seen.has(key)) errs.push(fe.duplicate(`scheduling.tolerations[${i}]`, t));
      seen.add(key);
    });
  }
  return errs;
}

/** The strategy's ValidateUpdate: the class validated again, then ValidateRuntimeClassUpdate (the handler is immutable). */
export function validateRuntimeClassUpdate(rc: KubeObject, old: KubeObject): FieldError[] {
  return [...validateRuntimeClass(rc), ...validateImmutableField(str(rc.handler), str(old.handler), at('handler'))];
}

export const runtimeClasses = defineBuiltin({
  group: 'node.k8s.io',
  version: 'v1',
  resource: 'runtimeclasses',
  kind: 'RuntimeClass',
  namespaced: false,
  definitionName: 'io.k8s.api.node.v1.RuntimeClass',
  strategy: {
    // strategy.go: no generation; a PUT of a missing class creates it, and an update needs a resourceVersion.
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: false,
    validate: validateRuntimeClass,
    validateUpdate: validateRuntimeClassUpdate,
  },
  printer: runtimeClassPrinter,
});
