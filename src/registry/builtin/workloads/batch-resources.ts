/**
 * batch/v1 Jobs and CronJobs (each with /status), as kube-apiserver 1.32 serves them: upstream's defaults, the
 * generated Job selector and labels, validation, status and generation handling, short names, categories, printer
 * columns and the Job's `status.successful` field selector. The controllers that run them are
 * the simulated cluster's (src/pcluster/controllers/job, cronjob); the registry only stores and serves them.
 */
import { isPlainObject, jsonEqual, type KubeObject } from '../../../apimachinery/object.js';
import type { ResourceDefinition } from '../../rest.js';
import { defineBuiltin } from '../define.js';
import { defaultCronJob, defaultJob, generateJobSelector } from './batch-defaults.js';
import { validateCronJob, validateCronJobUpdate, validateJob, validateJobStatus, validateJobUpdate } from './batch-validation.js';
import { cronJobPrinter, jobPrinter } from './kind-printers.js';
import { asObject, keepStatus, statusSubresource, withPrinter } from './kinds-common.js';
import { cronJobWarnings, jobWarnings } from './pod-warnings.js';


export const jobs: ResourceDefinition = withPrinter(
  defineBuiltin({
    group: 'batch',
    version: 'v1',
    resource: 'jobs',
    kind: 'Job',
    namespaced: true,
    categories: ['all'],
    definitionName: 'io.k8s.api.batch.v1.Job',
    // Upstream's decoder defaults the body, so the writer's managedFields entry owns what defaulting adds.
    defaults: defaultJob,
    strategy: {
      tracksGeneration: true,
      prepareForCreate(obj) {
        obj.status = {};
        // SetDefaults_Job hands a Job without labels its template's label map itself (Go aliasing), so the labels the
        // selector generation then adds to the template show on the Job too: labels still equal to the template's
        // were taken from it at decode time and follow it here.
        const meta = asObject(obj.metadata);
        const templateMeta = asObject(asObject(asObject(obj.spec).template).metadata);
        const aliased = isPlainObject(meta.labels) && isPlainObject(templateMeta.labels) && jsonEqual(meta.labels, templateMeta.labels);
        generateJobSelector(obj);
        if (aliased) meta.labels = { ...(templateMeta.labels as Record<string, string>) };
        defaultJob(obj);
      },
      prepareForUpdate(obj, old) {
        keepStatus(obj, old);
        defaultJob(obj);
      },
      validate: (obj) => validateJob(obj),
      validateUpdate: validateJobUpdate,
      warnings: jobWarnings,
      // batch/v1 orphans a Job's pods unless the DELETE says otherwise (job strategy DefaultGarbageCollectionPolicy),
      // and job REST.Delete warns about it.
      defaultGarbageCollectionPolicy: 'OrphanDependents',
      deleteWarnings: (sent) =>
        sent.propagationPolicy === undefined && sent.orphanDependents === undefined
          ? ['child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning']
          : [],
      selectableFields: (obj) => {
        const succeeded = asObject(obj.status).succeeded;
        return { 'status.successful': String(typeof succeeded === 'number' ? succeeded : 0) };
      },
    },
    subresources: [statusSubresource('Job', {}, (obj) => validateJobStatus(obj))],
  }),
  jobPrinter,
);

export const cronJobs: ResourceDefinition = withPrinter(
  defineBuiltin({
    group: 'batch',
    version: 'v1',
    resource: 'cronjobs',
    kind: 'CronJob',
    namespaced: true,
    shortNames: ['cj'],
    categories: ['all'],
    definitionName: 'io.k8s.api.batch.v1.CronJob',
    // Upstream's decoder defaults the body, so the writer's managedFields entry owns what defaulting adds.
    defaults: defaultCronJob,
    strategy: {
      metadataRevalidation: 'update',
      tracksGeneration: true,
      prepareForCreate(obj) {
        obj.status = {};
        defaultCronJob(obj);
      },
      prepareForUpdate(obj, old) {
        keepStatus(obj, old);
        defaultCronJob(obj);
      },
      validate: validateCronJob,
      validateUpdate: validateCronJobUpdate,
      warnings: cronJobWarnings,
    },
    subresources: [statusSubresource('CronJob', {}, undefined)],
  }),
  cronJobPrinter,
);
