/**
 * The annotations kube-apiserver 1.32 checks on Pods and pod templates (ValidatePodSpecificAnnotations), before the spec: a mirror
 * pod names its node, and a pod deletion cost is a 32-bit integer. (The deprecated seccomp, AppArmor and tolerations
 * annotations are not checked here.)
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { obj, str } from './pod-validation-helpers.js';

const MIRROR = 'kubernetes.io/config.mirror';
const DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

/** Whether a deletion cost parses as upstream parses it: no sign but '-', no leading zeros, within int32. */
function validDeletionCost(value: string): boolean {
  // A leading '-' may be followed by any digits ("-007" parses); otherwise "0" or no leading zero.
  if (!/^(0|[1-9]\d*|-\d+)$/.test(value)) return false;
  const n = Number(value);
  return n >= -2147483648 && n <= 2147483647;
}

/**
 * The pod-specific errors of the annotations of a Pod or pod template, reported under `path` (`metadata.annotations`
 * for a Pod, `<template>.annotations` for a template). On a Pod update (`old` given) a deletion cost the stored Pod
 * already had wrong stays allowed, as upstream's validation options do.
 */
export function validatePodAnnotations(annotationsValue: unknown, spec: unknown, path: string, oldAnnotations?: unknown): FieldError[] {
  const annotations = obj(annotationsValue);
  const old = obj(oldAnnotations);
  const allowInvalidCost = oldAnnotations !== undefined && DELETION_COST in old && !validDeletionCost(str(old[DELETION_COST]));
  const errs: FieldError[] = [];
  if (MIRROR in annotations && !str(obj(spec).nodeName)) {
    errs.push(fe.invalid(`${path}[${MIRROR}]`, str(annotations[MIRROR]), 'must set spec.nodeName if mirror pod annotation is set'));
  }
  if (!allowInvalidCost && DELETION_COST in annotations && !validDeletionCost(str(annotations[DELETION_COST]))) {
    errs.push(fe.invalid(`${path}[${DELETION_COST}]`, str(annotations[DELETION_COST]), 'must be a 32bit integer'));
  }
  return errs;
}
