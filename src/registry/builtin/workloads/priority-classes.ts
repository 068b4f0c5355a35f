/**
 * scheduling.k8s.io/v1 PriorityClasses as kube-apiserver 1.32 serves them (pkg/registry/scheduling/priorityclass):
 * cluster-scoped, short name `pc`, preemptionPolicy defaulted to PreemptLowerPriority on decode, generation 1 from
 * create on, and the system classes refused a DELETE. The system classes themselves are created where the kind is
 * served (systemPriorityClassObjects); the Priority admission plugin (priority-admission.ts) gives pods their values.
 */
import { type KubeObject, isPlainObject } from '../../../apimachinery/object.js';
import { column } from '../../../apimachinery/table/table.js';
import type { TablePrinter } from '../../../apimachinery/table/builtin-printers.js';
import { defineBuiltin } from '../define.js';
import { ageColumn, ageOf, nameColumn, nameOf, str } from './printers.js';
import { SYSTEM_PRIORITY_CLASSES, isSystemPriorityClassName, validatePriorityClass, validatePriorityClassUpdate } from './priority-class-validation.js';

/** SetDefaults_PriorityClass. */
export function defaultPriorityClass(obj: KubeObject): void {
  if (obj.preemptionPolicy === undefined || obj.preemptionPolicy === null) obj.preemptionPolicy = 'PreemptLowerPriority';
}

/** printPriorityClass: the preemption policy is an ordinary column (priority 0), so kubectl always shows it. */
export const priorityClassPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Value', 'integer', 'The priority pods of this class get.'),
    column('Global-Default', 'boolean', 'Whether pods naming no class get this one.'),
    ageColumn,
    column('PreemptionPolicy', 'string', 'Whether pods of this class may preempt lower-priority pods.'),
  ],
  row: (o, now) => [nameOf(o), typeof o.value === 'number' ? o.value : 0, o.globalDefault === true, ageOf(o, now), str(o.preemptionPolicy)],
};

export const priorityClasses = defineBuiltin({
  group: 'scheduling.k8s.io',
  version: 'v1',
  resource: 'priorityclasses',
  kind: 'PriorityClass',
  namespaced: false,
  shortNames: ['pc'],
  definitionName: 'io.k8s.api.scheduling.v1.PriorityClass',
  // Upstream's decoder defaults the body, so the writer's managedFields entry owns what defaulting adds.
  defaults: defaultPriorityClass,
  strategy: {
    prepareForCreate(obj) {
      defaultPriorityClass(obj);
      if (!isPlainObject(obj.metadata)) obj.metadata = {};
      obj.metadata!.generation = 1;
    },
    prepareForUpdate: (obj) => defaultPriorityClass(obj),
    validate: validatePriorityClass,
    validateUpdate: validatePriorityClassUpdate,
    deleteRefusal: (name) => (isSystemPriorityClassName(name) ? 'this is a system priority class and cannot be deleted' : undefined),
  },
  printer: priorityClassPrinter,
});

/** The system classes as kube-apiserver's post-start hook creates them (defaulted as its client's create is). */
export function systemPriorityClassObjects(): KubeObject[] {
  return SYSTEM_PRIORITY_CLASSES.map((c) => ({
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: c.name },
    value: c.value,
    description: c.description,
    preemptionPolicy: 'PreemptLowerPriority',
  }));
}
