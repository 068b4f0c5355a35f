/**
 * Defaulting of apps/v1 StatefulSets and DaemonSets, as SetObjectDefaults_StatefulSet / SetObjectDefaults_DaemonSet
 * (pkg/apis/apps/v1) fill omitted fields in on every write, with the feature gates of kube-apiserver 1.32
 * (StatefulSetAutoDeletePVC on, MaxUnavailableStatefulSet off).
 */
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { defaultPodTemplate } from './defaults.js';
import { isSet, objectAt } from './kinds-common.js';

/**
 * The claims of volumeClaimTemplates as the apps/v1 conversion and defaults write them: apiVersion v1 and kind
 * PersistentVolumeClaim (Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec), status.phase Pending
 * (SetDefaults_PersistentVolumeClaim) and spec.volumeMode Filesystem (SetDefaults_PersistentVolumeClaimSpec).
 */
function defaultVolumeClaimTemplates(spec: JsonObject): void {
  if (!Array.isArray(spec.volumeClaimTemplates)) return;
  for (const claim of spec.volumeClaimTemplates) {
    if (!isPlainObject(claim)) continue;
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
    const claimSpec = objectAt(claim, 'spec');
    if (!isSet(claimSpec.volumeMode)) claimSpec.volumeMode = 'Filesystem';
    const status = objectAt(claim, 'status');
    if (!status.phase) status.phase = 'Pending';
  }
}

/**
 * SetDefaults_StatefulSet: OrderedReady pods, RollingUpdate with partition 0, claims retained on delete and on scale
 * down, 1 replica, 10 revisions kept; plus the pod template's and the claim templates' defaults.
 */
export function defaultStatefulSet(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  if (!spec.podManagementPolicy) spec.podManagementPolicy = 'OrderedReady';
  const strategy = objectAt(spec, 'updateStrategy');
  if (!strategy.type) {
    strategy.type = 'RollingUpdate';
    if (!isSet(strategy.rollingUpdate)) strategy.rollingUpdate = {};
  }
  if (strategy.type === 'RollingUpdate' && isPlainObject(strategy.rollingUpdate)) {
    if (!isSet(strategy.rollingUpdate.partition)) strategy.rollingUpdate.partition = 0;
    // MaxUnavailableStatefulSet is alpha (off) in 1.32: the field is dropped (dropStatefulSetDisabledFields).
  }
  const retention = objectAt(spec, 'persistentVolumeClaimRetentionPolicy');
  if (!retention.whenDeleted) retention.whenDeleted = 'Retain';
  if (!retention.whenScaled) retention.whenScaled = 'Retain';
  if (!isSet(spec.replicas)) spec.replicas = 1;
  if (!isSet(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  defaultPodTemplate(objectAt(spec, 'template'));
  defaultVolumeClaimTemplates(spec);
}

/**
 * dropStatefulSetDisabledFields with MaxUnavailableStatefulSet off: rollingUpdate.maxUnavailable is dropped unless
 * the stored object already uses it.
 */
export function dropDisabledStatefulSetFields(obj: JsonObject, old?: JsonObject): void {
  const oldInUse = isSet(asRollingUpdate(old)?.maxUnavailable);
  const ru = asRollingUpdate(obj);
  if (ru && !oldInUse) delete ru.maxUnavailable;
}

function asRollingUpdate(obj: JsonObject | undefined): JsonObject | undefined {
  const spec = isPlainObject(obj?.spec) ? obj.spec : undefined;
  const strategy = isPlainObject(spec?.updateStrategy) ? spec.updateStrategy : undefined;
  return isPlainObject(strategy?.rollingUpdate) ? strategy.rollingUpdate : undefined;
}

/** SetDefaults_DaemonSet: RollingUpdate with maxUnavailable 1 and maxSurge 0, 10 revisions kept, template defaults. */
export function defaultDaemonSet(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  const strategy = objectAt(spec, 'updateStrategy');
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = objectAt(strategy, 'rollingUpdate');
    if (!isSet(ru.maxUnavailable)) ru.maxUnavailable = 1;
    if (!isSet(ru.maxSurge)) ru.maxSurge = 0;
  }
  if (!isSet(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  defaultPodTemplate(objectAt(spec, 'template'));
}

/**
 * The annotation apps/v1 carries the internal DaemonSetSpec.TemplateGeneration in (Convert_apps_DaemonSet_To_v1):
 * 1 on create, bumped with every template change, never set by the user.
 */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

function annotationsOf(obj: JsonObject): Record<string, string> {
  const meta = objectAt(obj, 'metadata');
  return objectAt(meta, 'annotations') as Record<string, string>;
}

/** The template generation an object's annotation carries (0 when absent or not a number, as on create). */
export function templateGeneration(obj: JsonObject): number {
  const meta = isPlainObject(obj.metadata) ? obj.metadata : {};
  const value = isPlainObject(meta.annotations) ? meta.annotations[TEMPLATE_GENERATION_ANNOTATION] : undefined;
  const n = typeof value === 'string' && /^-?[0-9]+$/.test(value) ? Number(value) : 0;
  return n;
}

export function setTemplateGeneration(obj: JsonObject, generation: number): void {
  annotationsOf(obj)[TEMPLATE_GENERATION_ANNOTATION] = String(generation);
}
