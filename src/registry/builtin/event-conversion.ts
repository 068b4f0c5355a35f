import type { KubeObject } from '../../apimachinery/object.js';

/**
 * events.k8s.io/v1 Events are stored as core/v1 Events (kube-apiserver keeps one storage for both), so an event written
 * through either API is visible through the other. These pairs are the field renames between the two shapes; every
 * other field (reason, type, action, eventTime, series, related, reportingInstance, metadata) has the same name.
 */
const renames: [eventsV1: string, coreV1: string][] = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

function rename(obj: KubeObject, pairs: [string, string][], apiVersion: string): KubeObject {
  const out: KubeObject = { ...obj, apiVersion, kind: 'Event' };
  for (const [from, to] of pairs) {
    if (from in out) {
      if (out[from] !== undefined) out[to] = out[from];
      delete out[from];
    }
  }
  return out;
}

/** events.k8s.io/v1 Event → the stored core/v1 form. */
export function eventsV1ToCore(obj: KubeObject): KubeObject {
  return rename(obj, renames, 'v1');
}

/** Stored core/v1 Event → events.k8s.io/v1. */
export function coreToEventsV1(obj: KubeObject): KubeObject {
  return rename(
    obj,
    renames.map(([a, b]) => [b, a]),
    'events.k8s.io/v1',
  );
}
