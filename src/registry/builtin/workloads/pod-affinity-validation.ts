/**
 * A pod spec's affinity, as kube-apiserver 1.32's validateAffinity checks it: node selector terms (label expressions
 * and the `metadata.name` field expression), preferred weights in 1-100, and pod (anti-)affinity terms — their
 * selectors, namespaces, matchLabelKeys/mismatchLabelKeys and a required topologyKey. Messages are upstream's.
 *
 * Upstream's Pod create merges matchLabelKeys into the term's selector from the pod's labels before validating
 * (MatchLabelKeysInPodAffinity); that mutation is not done here, so only selectors written by the client are seen.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { validateLabelSelector } from '../../../apimachinery/validation/label-selector.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../apimachinery/validation/names.js';
import { validateLabelName } from '../../../apimachinery/validation/object-meta.js';
import { at, isSet, list, num, obj, str } from './pod-validation-helpers.js';

/**
 * ValidateNodeSelectorRequirement. Label values are not checked: upstream passes "allow invalid label values" for
 * both required (a TODO there) and preferred node affinity.
 */
function nodeSelectorRequirement(rq: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = list(rq.values);
  const op = str(rq.operator);
  if (op === 'In' || op === 'NotIn') {
    if (values.length === 0) errs.push(fe.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
  } else if (op === 'Exists' || op === 'DoesNotExist') {
    if (values.length > 0) errs.push(fe.forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
  } else if (op === 'Gt' || op === 'Lt') {
    if (values.length !== 1) errs.push(fe.required(`${path}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
  } else errs.push(fe.invalid(`${path}.operator`, op, 'not a valid selector operator'));
  errs.push(...validateLabelName(str(rq.key), at(`${path}.key`)));
  return errs;
}

/** ValidateNodeFieldSelectorRequirement: only `metadata.name`, with In/NotIn and exactly one node name. */
function nodeFieldRequirement(rq: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const op = str(rq.operator);
  const values = list(rq.values);
  if (op === 'In' || op === 'NotIn') {
    if (values.length !== 1) errs.push(fe.required(`${path}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else errs.push(fe.invalid(`${path}.operator`, op, 'not a valid selector operator'));
  if (str(rq.key) !== 'metadata.name') errs.push(fe.invalid(`${path}.key`, str(rq.key), 'not a valid field selector key'));
  else values.forEach((v, i) => errs.push(...isDNS1123Subdomain(str(v)).map((m) => fe.invalid(`${path}.values[${i}]`, str(v), m))));
  return errs;
}

function nodeSelectorTerm(term: JsonObject, path: string): FieldError[] {
  return [
    ...list(term.matchExpressions).flatMap((r, j) => nodeSelectorRequirement(obj(r), `${path}.matchExpressions[${j}]`)),
    ...list(term.matchFields).flatMap((r, j) => nodeFieldRequirement(obj(r), `${path}.matchFields[${j}]`)),
  ];
}

const weightError = (w: unknown, path: string): FieldError[] => (num(w) <= 0 || num(w) > 100 ? [fe.invalid(path, num(w), 'must be in the range 1-100')] : []);

/** validateNodeAffinity: a required selector needs at least one term; preferred terms are weighted. */
export function validateNodeAffinity(na: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (isPlainObject(na.requiredDuringSchedulingIgnoredDuringExecution)) {
    const termsPath = `${path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
    const terms = list(na.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms);
    if (terms.length === 0) errs.push(fe.required(termsPath, 'must have at least one node selector term'));
    else terms.forEach((t, i) => errs.push(...nodeSelectorTerm(obj(t), `${termsPath}[${i}]`)));
  }
  list(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((raw, i) => {
    const p = `${path}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    errs.push(...weightError(obj(raw).weight, `${p}.weight`), ...nodeSelectorTerm(obj(obj(raw).preference), `${p}.preference`));
  });
  return errs;
}

/** validateLabelKeys: label names, and only alongside a selector. */
function labelKeys(keys: unknown[], selector: unknown, path: string): FieldError[] {
  if (keys.length === 0) return [];
  if (!isPlainObject(selector)) return [fe.forbidden(path, 'must not be specified when labelSelector is not set')];
  return keys.flatMap((k, i) => validateLabelName(str(k), at(`${path}[${i}]`)));
}

/** validateMatchLabelKeysAndMismatchLabelKeys, on the term as the client wrote it. */
function matchAndMismatchLabelKeys(term: JsonObject, path: string): FieldError[] {
  const match = list(term.matchLabelKeys).map(str);
  const mismatch = list(term.mismatchLabelKeys).map(str);
  const errs = [...labelKeys(match, term.labelSelector, `${path}.matchLabelKeys`), ...labelKeys(mismatch, term.labelSelector, `${path}.mismatchLabelKeys`)];
  if (isPlainObject(term.labelSelector)) {
    // A key named in matchLabelKeys whose expression repeats a key already in the selector (upstream reports it at
    // `<term>[i]`, the index into matchLabelKeys, without the field name).
    const index = new Map(match.map((k, i) => [k, i]));
    const keys = new Set(Object.keys(obj(term.labelSelector.matchLabels)));
    for (const e of list(term.labelSelector.matchExpressions)) {
      const key = str(obj(e).key);
      const i = index.get(key);
      if (i !== undefined && keys.has(key)) errs.push(fe.invalid(`${path}[${i}]`, key, 'exists in both matchLabelKeys and labelSelector'));
      keys.add(key);
    }
  }
  const mismatchSet = new Set(mismatch);
  match.forEach((k, i) => {
    if (mismatchSet.has(k)) errs.push(fe.invalid(`${path}.matchLabelKeys[${i}]`, k, 'exists in both matchLabelKeys and mismatchLabelKeys'));
  });
  return errs;
}

/** validatePodAffinityTerm. */
function podAffinityTerm(term: JsonObject, path: string): FieldError[] {
  const errs = [...validateLabelSelector(term.labelSelector, at(`${path}.labelSelector`)), ...validateLabelSelector(term.namespaceSelector, at(`${path}.namespaceSelector`))];
  // Upstream names the path `namespace` (singular, no index) for every bad entry of `namespaces`.
  for (const ns of list(term.namespaces)) errs.push(...isDNS1123Label(str(ns)).map((m) => fe.invalid(`${path}.namespace`, str(ns), m)));
  errs.push(...matchAndMismatchLabelKeys(term, path));
  const key = str(term.topologyKey);
  if (key === '') errs.push(fe.required(`${path}.topologyKey`, 'can not be empty'));
  errs.push(...validateLabelName(key, at(`${path}.topologyKey`)));
  return errs;
}

/** validatePodAffinity / validatePodAntiAffinity: the same checks on required terms and weighted preferred terms. */
export function validatePodAffinity(pa: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (isSet(pa.requiredDuringSchedulingIgnoredDuringExecution)) {
    list(pa.requiredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => errs.push(...podAffinityTerm(obj(t), `${path}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`)));
  }
  list(pa.preferredDuringSchedulingIgnoredDuringExecution).forEach((raw, j) => {
    const p = `${path}.preferredDuringSchedulingIgnoredDuringExecution[${j}]`;
    errs.push(...weightError(obj(raw).weight, `${p}.weight`), ...podAffinityTerm(obj(obj(raw).podAffinityTerm), `${p}.podAffinityTerm`));
  });
  return errs;
}
