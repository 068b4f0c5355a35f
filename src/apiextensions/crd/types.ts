/**
 * The wire shape of apiextensions.k8s.io/v1 CustomResourceDefinition as atrium reads it, plus the condition helpers
 * the registry and the CRD controllers share. Field names are the JSON names.
 */
import { findCondition as findStatusCondition, isConditionTrue as isStatusConditionTrue, setStatusCondition } from '../../apimachinery/conditions.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { JSONSchemaProps } from '../schema/json-schema-props.js';

export const CRD_GROUP = 'apiextensions.k8s.io';
/** Finalizer the CRD registry adds on deletion; the finalizer controller removes it once every instance is gone. */
export const CUSTOM_RESOURCE_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export interface CRDNames {
  plural?: string;
  singular?: string;
  shortNames?: string[];
  kind?: string;
  listKind?: string;
  categories?: string[];
}

export interface CRDScale {
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

export interface CRDSubresources {
  status?: Record<string, never>;
  scale?: CRDScale;
}

export interface CRDColumn {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

export interface CRDSelectableField {
  jsonPath?: string;
}

export interface CRDVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: CRDSubresources;
  additionalPrinterColumns?: CRDColumn[];
  selectableFields?: CRDSelectableField[];
}

export interface CRDCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** spec.conversion (apiextensions v1 CustomResourceConversion). */
export interface CRDConversion {
  strategy?: string;
  webhook?: {
    clientConfig?: { url?: string; service?: { namespace?: string; name?: string; path?: string; port?: number }; caBundle?: string };
    conversionReviewVersions?: string[];
  };
}

export interface CRDSpec {
  group: string;
  names: CRDNames;
  scope: string;
  versions: CRDVersion[];
  conversion?: CRDConversion;
  preserveUnknownFields?: boolean;
}

export interface CRDStatus {
  conditions?: CRDCondition[];
  acceptedNames?: CRDNames;
  storedVersions?: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec: CRDSpec;
  status?: CRDStatus;
}

/** FindCRDCondition: the condition of `type`, if present. */
export function findCondition(crd: CustomResourceDefinition, type: string): CRDCondition | undefined {
  return findStatusCondition(crd.status?.conditions, type);
}

/** IsCRDConditionTrue. */
export function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return isStatusConditionTrue(crd.status?.conditions, type);
}

/**
 * SetCRDCondition: lastTransitionTime only moves when the status changes (or was never set); reason and message are
 * always replaced. meta.SetStatusCondition's rule (apimachinery/conditions.ts).
 */
export function setCondition(crd: CustomResourceDefinition, cond: Omit<CRDCondition, 'lastTransitionTime'>, now: string): void {
  setStatusCondition(((crd.status ??= {}).conditions ??= []), cond, now);
}

/** The version marked storage:true (validation guarantees exactly one in stored CRDs). */
export function storageVersionOf(crd: CustomResourceDefinition): string | undefined {
  return crd.spec.versions.find((v) => v.storage)?.name;
}
