/**
 * Built-in type descriptors for events.k8s.io/v1: JSON names, protobuf field numbers (k8s.io generated.proto, v1.32),
 * merge/apply semantics from the Go struct tags and markers, and short descriptions for kubectl explain.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { CORE_V1, EVENTS_V1, INT32, MICRO_TIME, OBJECT_META_FIELD, STRING, TIME, TYPE_META_FIELDS, ref } from './field-types.js';

export const eventsV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: EVENTS_V1 + '.Event',
    description: 'A report of something that happened to an object (events.k8s.io form).',
    gvk: [{ group: 'events.k8s.io', version: 'v1', kind: 'Event' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'eventTime', proto: 2, type: MICRO_TIME, required: true, description: 'When the event was first observed, with microsecond precision.' },
      { name: 'series', proto: 3, type: ref(EVENTS_V1, 'EventSeries'), description: 'Data about an ongoing series of this event.' },
      { name: 'reportingController', proto: 4, type: STRING, description: 'Controller that emitted the event, such as example.com/my-controller.' },
      { name: 'reportingInstance', proto: 5, type: STRING, description: 'Instance of the controller that emitted the event.' },
      { name: 'action', proto: 6, type: STRING, description: 'What was done, or failed, about the object.' },
      { name: 'reason', proto: 7, type: STRING, description: 'Short machine-readable CamelCase reason.' },
      { name: 'regarding', proto: 8, type: ref(CORE_V1, 'ObjectReference'), description: 'The object the event is about.' },
      { name: 'related', proto: 9, type: ref(CORE_V1, 'ObjectReference'), description: 'A second object involved, if any.' },
      { name: 'note', proto: 10, type: STRING, description: 'Human-readable description.' },
      { name: 'type', proto: 11, type: STRING, description: 'Event type: Normal or Warning.' },
      { name: 'deprecatedSource', proto: 12, type: ref(CORE_V1, 'EventSource'), description: 'core/v1 source, kept for compatibility.' },
      { name: 'deprecatedFirstTimestamp', proto: 13, type: TIME, description: 'core/v1 firstTimestamp, kept for compatibility.' },
      { name: 'deprecatedLastTimestamp', proto: 14, type: TIME, description: 'core/v1 lastTimestamp, kept for compatibility.' },
      { name: 'deprecatedCount', proto: 15, type: INT32, description: 'core/v1 count, kept for compatibility.' },
    ],
  },
  {
    name: EVENTS_V1 + '.EventSeries',
    description: 'An event that keeps recurring.',
    fields: [
      { name: 'count', proto: 1, type: INT32, required: true, emitZero: true, description: 'Occurrences so far.' },
      { name: 'lastObservedTime', proto: 2, type: MICRO_TIME, required: true, description: 'When the last occurrence was seen.' },
    ],
  },
];
