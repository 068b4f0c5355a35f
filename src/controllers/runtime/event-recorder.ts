/**
 * Records core/v1 Events about objects, the way client-go's EventRecorder does for controllers: an Event named
 * `<object name>.<hex nanoseconds>` in the object's namespace (`default` for cluster-scoped objects), with the
 * controller as `source.component`. Recording is best effort: a failure is logged and never fails a reconcile.
 *
 * With `aggregate`, a recorder counts repeats as client-go's EventCorrelator does: the same event (object, type,
 * reason, message) recorded again within ten minutes patches the first one's `count` and `lastTimestamp` instead of
 * creating another, so `kubectl describe` shows `(x5 over 2m)`. The cache of recent events is in memory and bounded.
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
  /** The part of the object the event is about (`spec.containers{c}`), as the kubelet records it. */
  fieldPath?: string;
}

export type EventType = 'Normal' | 'Warning';

const events = { group: '', version: 'v1', resource: 'events' };

let subMillisecond = 0;
function nextSubMillisecond(): number {
  subMillisecond = (subMillisecond + 1) % 1_000_000;
  return subMillisecond;
}

export interface EventRecorderOptions {
  /** Count repeats of the same event on the first one (client-go's EventCorrelator); default false. */
  aggregate?: boolean;
}

/** How long a repeat still counts on an earlier event, and how many recent events are remembered (client-go's values). */
const aggregationWindowMs = 10 * 60 * 1000;
const aggregationCacheSize = 4096;

interface SeenEvent {
  name: string;
  namespace: string;
  count: number;
  lastMs: number;
}

export class EventRecorder {
  private readonly seen = new Map<string, SeenEvent>();
  /** Per event identity, the recording in flight: repeats wait for it, so one identity is never created twice. */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly client: RestClient,
    /** `source.component`, e.g. `garbage-collector-controller`. */
    private readonly component: string,
    private readonly opts: EventRecorderOptions = {},
  ) {}

  /** Creates one Event in logical cluster `cluster` (or counts a repeat). Resolves once written (or once the failure was logged). */
  async record(cluster: string, involved: InvolvedObject, type: EventType, reason: string, message: string, host?: string): Promise<void> {
    if (!this.opts.aggregate) {
      await this.create(cluster, involved, type, reason, message, host);
      return;
    }
    const id = JSON.stringify([cluster, involved.namespace ?? '', involved.kind, involved.name, involved.uid ?? '', involved.fieldPath ?? '', type, reason, message]);
    const previous = this.inFlight.get(id) ?? Promise.resolve();
    const next = previous.then(() => this.recordAggregated(id, cluster, involved, type, reason, message, host));
    this.inFlight.set(id, next);
    await next;
    if (this.inFlight.get(id) === next) this.inFlight.delete(id);
  }

  private async recordAggregated(id: string, cluster: string, involved: InvolvedObject, type: EventType, reason: string, message: string, host?: string): Promise<void> {
    const now = Date.now();
    const seen = this.seen.get(id);
    if (seen && now - seen.lastMs < aggregationWindowMs) {
      try {
        const patch = { count: seen.count + 1, lastTimestamp: formatRFC3339(new Date(now)) };
        await this.client.patch(events, seen.name, 'merge', patch, { cluster, namespace: seen.namespace });
        seen.count++;
        seen.lastMs = now;
        this.seen.delete(id);
        this.seen.set(id, seen);
        return;
      } catch {
        // Gone (expired, deleted) or unreachable: start a new one.
      }
    }
    const created = await this.create(cluster, involved, type, reason, message, host);
    if (!created) return;
    this.seen.delete(id);
    this.seen.set(id, { name: created, namespace: involved.namespace || 'default', count: 1, lastMs: now });
    if (this.seen.size > aggregationCacheSize) this.seen.delete(this.seen.keys().next().value as string);
  }

  /** Creates the Event; resolves with its name, or undefined when it could not be written. */
  private async create(cluster: string, involved: InvolvedObject, type: EventType, reason: string, message: string, host?: string): Promise<string | undefined> {
    const now = new Date();
    const namespace = involved.namespace || 'default';
    // Date has millisecond precision: the sub-millisecond part counts up, so two Events in one millisecond get two names.
    const nanos = BigInt(now.getTime()) * 1_000_000n + BigInt(nextSubMillisecond() % 1_000_000);
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${involved.name}.${nanos.toString(16)}`, namespace },
      involvedObject: { kind: involved.kind, namespace: involved.namespace || undefined, name: involved.name, uid: involved.uid, apiVersion: involved.apiVersion, ...(involved.fieldPath ? { fieldPath: involved.fieldPath } : {}) },
      reason,
      message,
      source: { component: this.component, ...(host ? { host } : {}) },
      firstTimestamp: formatRFC3339(now),
      lastTimestamp: formatRFC3339(now),
      count: 1,
      type,
      reportingComponent: this.component,
    };
    try {
      await this.client.create(events, event, { cluster, namespace });
      return event.metadata!.name;
    } catch (err) {
      logger.warn('event recorder: could not record event', { cluster, namespace, reason, error: (err as Error).message });
      return undefined;
    }
  }
}
