/**
 * Records core/v1 Events about objects, the way client-go's EventRecorder does for controllers: an Event named
 * `<object name>.<hex nanoseconds>` in the object's namespace (`default` for cluster-scoped objects), with the
 * controller as `source.component`. Recording is best effort: a failure is logged and never fails a reconcile.
 */
import { type KubeObject, formatRFC3339 } from '../../apimachinery/object.js';
import type { RestClient } from '../../client/rest-client.js';
import { logger } from '../../logging/logger.js';

/** The object an Event is about (core/v1 ObjectReference fields client-go fills in). */
export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
}

export type EventType = 'Normal' | 'Warning';

const events = { group: '', version: 'v1', resource: 'events' };

let subMillisecond = 0;
function nextSubMillisecond(): number {
  subMillisecond = (subMillisecond + 1) % 1_000_000;
  return subMillisecond;
}

export class EventRecorder {
  constructor(
    private readonly client: RestClient,
    /** `source.component`, e.g. `garbage-collector-controller`. */
    private readonly component: string,
  ) {}

  /** Creates one Event in logical cluster `cluster`. Resolves once written (or once the failure was logged). */
  async record(cluster: string, involved: InvolvedObject, type: EventType, reason: string, message: string): Promise<void> {
    const now = new Date();
    const namespace = involved.namespace || 'default';
    // Date has millisecond precision: the sub-millisecond part counts up, so two Events in one millisecond get two names.
    const nanos = BigInt(now.getTime()) * 1_000_000n + BigInt(nextSubMillisecond() % 1_000_000);
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${involved.name}.${nanos.toString(16)}`, namespace },
      involvedObject: { kind: involved.kind, namespace: involved.namespace || undefined, name: involved.name, uid: involved.uid, apiVersion: involved.apiVersion },
      reason,
      message,
      source: { component: this.component },
      firstTimestamp: formatRFC3339(now),
      lastTimestamp: formatRFC3339(now),
      count: 1,
      type,
      reportingComponent: this.component,
    };
    try {
      await this.client.create(events, event, { cluster, namespace });
    } catch (err) {
      logger.warn('event recorder: could not record event', { cluster, namespace, reason, error: (err as Error).message });
    }
  }
}
