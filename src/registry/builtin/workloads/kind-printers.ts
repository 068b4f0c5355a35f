/**
 * Table columns and cells of StatefulSets, DaemonSets, ControllerRevisions, Jobs, CronJobs, PodDisruptionBudgets and
 * HorizontalPodAutoscalers, as kube-apiserver 1.32's internalversion printers make them (what `kubectl get` shows);
 * priority-1 columns appear with `-o wide`. Descriptions are our own.
 */
import { formatLabelSelector, type LabelSelectorSpec } from '../../../apimachinery/labels/selector.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { ageColumn, ageOf, containersColumn, imagesColumn, int, list, nameColumn, nameOf, obj, formatLabels, selectorColumn, str, templateContainerCells } from './printers.js';
import { humanDuration, translateTimestampSince } from '../../../apimachinery/table/duration.js';
import { column } from '../../../apimachinery/table/table.js';
import type { TablePrinter } from '../../../apimachinery/table/builtin-printers.js';

// The cell helpers and shared columns of the other workload printers.
const selectorCell = (selector: unknown): string => formatLabelSelector(isPlainObject(selector) ? (selector as LabelSelectorSpec) : undefined);

/** printStatefulSet: NAME READY AGE, wide CONTAINERS IMAGES. */
export const statefulSetPrinter: TablePrinter = {
  columns: [nameColumn, column('Ready', 'string', 'Ready pods out of the desired number.'), ageColumn, containersColumn, imagesColumn],
  row(o, now) {
    const spec = obj(o.spec);
    const [names, images] = templateContainerCells(spec.template);
    return [nameOf(o), `${int(obj(o.status).readyReplicas)}/${int(spec.replicas)}`, ageOf(o, now), names, images];
  },
};

/** printDaemonSet: NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE, wide CONTAINERS IMAGES SELECTOR. */
export const daemonSetPrinter: TablePrinter = {
  // Upstream prints the internal DaemonSet, whose conversion moved this annotation into spec.templateGeneration.
  rowMetadata(metadata) {
    const annotations = metadata.annotations as Record<string, string> | undefined;
    if (!annotations || !('deprecated.daemonset.template.generation' in annotations)) return metadata;
    const { 'deprecated.daemonset.template.generation': _generation, ...rest } = annotations;
    const out = { ...metadata };
    if (Object.keys(rest).length) out.annotations = rest;
    else delete out.annotations;
    return out;
  },
  columns: [
    nameColumn,
    column('Desired', 'integer', 'Nodes that should run the daemon pod.'),
    column('Current', 'integer', 'Nodes running the daemon pod.'),
    column('Ready', 'integer', 'Nodes whose daemon pod is ready.'),
    column('Up-to-date', 'integer', 'Nodes running the current template.'),
    column('Available', 'integer', 'Nodes whose daemon pod is available.'),
    column('Node Selector', 'string', 'Node labels the pod template requires.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  row(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const [names, images] = templateContainerCells(spec.template);
    return [
      nameOf(o),
      int(status.desiredNumberScheduled),
      int(status.currentNumberScheduled),
      int(status.numberReady),
      int(status.updatedNumberScheduled),
      int(status.numberAvailable),
      formatLabels(obj(obj(spec.template).spec).nodeSelector),
      ageOf(o, now),
      names,
      images,
      selectorCell(spec.selector),
    ];
  },
};

/** `group/version` → the group (schema.ParseGroupVersion; "v1" is the core group). */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** printControllerRevision: NAME CONTROLLER REVISION AGE; the controller as `kind.group/name` in lower case. */
export const controllerRevisionPrinter: TablePrinter = {
  columns: [nameColumn, column('Controller', 'string', 'The controller that owns the revision.'), column('Revision', 'string', 'The revision number.'), ageColumn],
  row(o, now) {
    const ref = list(obj(o.metadata).ownerReferences).find((r) => r.controller === true);
    let controller = '<none>';
    if (ref) {
      const group = groupOf(str(ref.apiVersion));
      const kind = str(ref.kind);
      controller = kind || group ? `${(group ? `${kind}.${group}` : kind).toLowerCase()}/${str(ref.name)}` : str(ref.name);
    }
    return [nameOf(o), controller, int(o.revision), ageOf(o, now)];
  },
};

function hasTrueCondition(o: JsonObject, type: string): boolean {
  const c = list(obj(o.status).conditions).find((x) => x.type === type);
  return c?.status === 'True';
}

/** printJob's STATUS cell. */
function jobStatus(o: JsonObject): string {
  if (hasTrueCondition(o, 'Complete')) return 'Complete';
  if (hasTrueCondition(o, 'Failed')) return 'Failed';
  if (obj(o.metadata).deletionTimestamp) return 'Terminating';
  if (hasTrueCondition(o, 'Suspended')) return 'Suspended';
  if (hasTrueCondition(o, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function timeOf(v: unknown): number | undefined {
  if (typeof v !== 'string' || !v) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

/** printJob: NAME STATUS COMPLETIONS DURATION AGE, wide CONTAINERS IMAGES SELECTOR. */
export const jobPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', 'Succeeded pods out of those needed.'),
    column('Duration', 'string', 'How long the job ran, or has been running.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  row(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const succeeded = int(status.succeeded);
    let completions: string;
    if (typeof spec.completions === 'number') completions = `${succeeded}/${spec.completions}`;
    else completions = int(spec.parallelism) > 1 ? `${succeeded}/1 of ${int(spec.parallelism)}` : `${succeeded}/1`;
    const start = timeOf(status.startTime);
    const end = timeOf(status.completionTime);
    const nowMs = typeof now === 'number' ? now : now.getTime();
    const duration = start === undefined ? '' : humanDuration((end ?? nowMs) - start);
    const [names, images] = templateContainerCells(spec.template);
    return [nameOf(o), jobStatus(o), completions, duration, ageOf(o, now), names, images, selectorCell(spec.selector)];
  },
};

/** printBoolPtr. */
function boolPtr(v: unknown): string {
  return typeof v === 'boolean' ? (v ? 'True' : 'False') : '<unset>';
}

/** printCronJob: NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE, wide CONTAINERS IMAGES SELECTOR. */
export const cronJobPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Schedule', 'string', 'When jobs are created, in cron format.'),
    column('Timezone', 'string', 'Time zone the schedule is read in.'),
    column('Suspend', 'boolean', 'Whether new runs are suspended.'),
    column('Active', 'integer', 'Jobs running now.'),
    column('Last Schedule', 'string', 'How long ago a job was last scheduled.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  row(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const jobSpec = obj(obj(spec.jobTemplate).spec);
    const last = typeof status.lastScheduleTime === 'string' && status.lastScheduleTime ? translateTimestampSince(status.lastScheduleTime, now) : '<none>';
    const [names, images] = templateContainerCells(jobSpec.template);
    return [
      nameOf(o),
      str(spec.schedule),
      typeof spec.timeZone === 'string' ? spec.timeZone : '<none>',
      boolPtr(spec.suspend),
      list(status.active).length,
      last,
      ageOf(o, now),
      names,
      images,
      selectorCell(jobSpec.selector),
    ];
  },
};

/** intstr.IntOrString.String(). */
function intOrString(v: unknown): string {
  return typeof v === 'number' ? String(v) : String(v ?? '');
}

/** printPodDisruptionBudget: NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE. */
export const podDisruptionBudgetPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Min Available', 'string', 'Pods that must stay available.'),
    column('Max Unavailable', 'string', 'Pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'How many pods may be disrupted now.'),
    ageColumn,
  ],
  row(o, now) {
    const spec = obj(o.spec);
    const has = (v: unknown) => v !== undefined && v !== null;
    return [
      nameOf(o),
      has(spec.minAvailable) ? intOrString(spec.minAvailable) : 'N/A',
      has(spec.maxUnavailable) ? intOrString(spec.maxUnavailable) : 'N/A',
      int(obj(o.status).disruptionsAllowed),
      ageOf(o, now),
    ];
  },
};

/** resource.Quantity.String() of an optional quantity ("<nil>" for none). */
function quantity(v: unknown): string {
  if (v === undefined || v === null) return '<nil>';
  return String(v);
}

/** formatHPAMetrics: up to two `current/target` pairs, then `+ N more...`. */
export function formatHPAMetrics(specs: JsonObject[], statuses: JsonObject[]): string {
  if (specs.length === 0) return '<none>';
  const out: string[] = [];
  specs.forEach((spec, i) => {
    const st = statuses[i];
    switch (spec.type) {
      case 'External':
      case 'Object': {
        const key = spec.type === 'External' ? 'external' : 'object';
        const target = obj(obj(spec[key]).target);
        const current = st && isPlainObject(st[key]) ? obj(obj(st[key]).current) : undefined;
        if (target.averageValue !== undefined && target.averageValue !== null) {
          const cur = current && current.averageValue !== undefined && current.averageValue !== null ? quantity(current.averageValue) : '<unknown>';
          out.push(`${cur}/${quantity(target.averageValue)} (avg)`);
        } else {
          out.push(`${current ? quantity(current.value) : '<unknown>'}/${quantity(target.value)}`);
        }
        break;
      }
      case 'Pods': {
        const target = obj(obj(spec.pods).target);
        const cur = st && isPlainObject(st.pods) ? quantity(obj(obj(st.pods).current).averageValue) : '<unknown>';
        out.push(`${cur}/${quantity(target.averageValue)}`);
        break;
      }
      case 'Resource':
      case 'ContainerResource': {
        const key = spec.type === 'Resource' ? 'resource' : 'containerResource';
        const source = obj(spec[key]);
        const target = obj(source.target);
        const current = st && isPlainObject(st[key]) ? obj(obj(st[key]).current) : undefined;
        if (target.averageValue !== undefined && target.averageValue !== null) {
          out.push(`${str(source.name)}: ${current ? quantity(current.averageValue) : '<unknown>'}/${quantity(target.averageValue)}`);
        } else {
          const cur = current && typeof current.averageUtilization === 'number' ? `${current.averageUtilization}%` : '<unknown>';
          const tgt = typeof target.averageUtilization === 'number' ? `${target.averageUtilization}%` : '<auto>';
          out.push(`${str(source.name)}: ${cur}/${tgt}`);
        }
        break;
      }
      default:
        out.push('<unknown type>');
    }
  });
  if (out.length > 2) return `${out.slice(0, 2).join(', ')} + ${out.length - 2} more...`;
  return out.join(', ');
}

/**
 * printHorizontalPodAutoscaler: NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE. Upstream prints the internal
 * (v2-shaped) object for either API version; `toV2` brings an autoscaling/v1 object into that shape.
 */
export function horizontalPodAutoscalerPrinter(toV2: (o: JsonObject) => JsonObject = (o) => o): TablePrinter {
  return {
    columns: [
      nameColumn,
      column('Reference', 'string', 'The scaled object, as Kind/name.'),
      column('Targets', 'string', 'Current and target value of each metric.'),
      column('MinPods', 'string', 'Fewest replicas.'),
      column('MaxPods', 'string', 'Most replicas.'),
      column('Replicas', 'string', 'Replicas now.'),
      ageColumn,
    ],
    row(input, now) {
      const o = toV2(input);
      const spec = obj(o.spec);
      const ref = obj(spec.scaleTargetRef);
      return [
        nameOf(o),
        `${str(ref.kind)}/${str(ref.name)}`,
        formatHPAMetrics(list(spec.metrics), list(obj(o.status).currentMetrics)),
        typeof spec.minReplicas === 'number' ? String(spec.minReplicas) : '<unset>',
        int(spec.maxReplicas),
        int(obj(o.status).currentReplicas),
        ageOf(o, now),
      ];
    },
  };
}
