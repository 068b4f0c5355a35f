/**
 * Type descriptors for kcp's scheduling API, scheduling.kcp.io/v1alpha1 Location and Placement. kcp served these as
 * CRDs, so they have no protobuf field numbers and their OpenAPI names follow the CRD convention (reversed group +
 * version + kind). JSON names are those of kcp's Go types (contrib-tmc apis/scheduling/v1alpha1); descriptions are our
 * own words. One atrium extension: PlacementSpec.clusterSpread, how many SyncTargets of the Location a Placement binds
 * (kcp always bound one).
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { INT32, META_V1, OBJECT_META_FIELD, STRING, TYPE_META_FIELDS, list, ref } from './field-types.js';

export const SCHEDULING_V1ALPHA1 = 'io.kcp.scheduling.v1alpha1';
/** kcp's conditions type, described with the tenancy types. */
const CONDITION = ref('io.kcp.conditions.v1alpha1', 'Condition');

export const schedulingV1alpha1Types: readonly BuiltinTypeSpec[] = [
  {
    name: SCHEDULING_V1ALPHA1 + '.Location',
    description: 'A named group of SyncTargets (chosen by a label selector) that Placements can select and schedule onto.',
    gvk: [{ group: 'scheduling.kcp.io', version: 'v1alpha1', kind: 'Location' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', type: ref(SCHEDULING_V1ALPHA1, 'LocationSpec'), description: 'Which instances the Location groups.' },
      { name: 'status', type: ref(SCHEDULING_V1ALPHA1, 'LocationStatus'), description: 'How many instances the Location has.' },
    ],
  },
  {
    name: SCHEDULING_V1ALPHA1 + '.LocationSpec',
    description: 'The desired state of a Location.',
    fields: [
      { name: 'resource', type: ref(SCHEDULING_V1ALPHA1, 'GroupVersionResource'), required: true, description: 'The resource of the instances the Location groups (synctargets in workload.kcp.io/v1alpha1).' },
      { name: 'description', type: STRING, description: 'A human readable description of the Location.' },
      {
        name: 'availableSelectorLabels',
        type: list(ref(SCHEDULING_V1ALPHA1, 'AvailableSelectorLabel')),
        listType: 'map',
        listMapKeys: ['key'],
        description: 'Labels a Placement may use to pick an instance of this Location, with their possible values.',
      },
      { name: 'instanceSelector', type: ref(META_V1, 'LabelSelector'), description: 'Picks the instances (SyncTargets) that belong to the Location; when absent, none do.' },
    ],
  },
  {
    name: SCHEDULING_V1ALPHA1 + '.GroupVersionResource',
    description: 'A resource named by API group, version and plural resource name.',
    fields: [
      { name: 'group', type: STRING, description: 'The API group; empty for the core group.' },
      { name: 'version', type: STRING, required: true, description: 'The API version.' },
      { name: 'resource', type: STRING, required: true, description: 'The plural resource name.' },
    ],
  },
  {
    name: SCHEDULING_V1ALPHA1 + '.AvailableSelectorLabel',
    description: 'A label key with the values it can take on a Location\'s instances.',
    fields: [
      { name: 'key', type: STRING, required: true, description: 'The label key.' },
      { name: 'values', type: list(STRING), required: true, listType: 'set', description: 'The values the label can take (at least one).' },
      { name: 'description', type: STRING, description: 'A human readable description of the label.' },
    ],
  },
  {
    name: SCHEDULING_V1ALPHA1 + '.LocationStatus',
    description: 'The observed state of a Location.',
    fields: [
      { name: 'instances', type: INT32, description: 'How many instances belong to the Location.' },
      { name: 'availableInstances', type: INT32, description: 'How many of them are Ready and schedulable.' },
    ],
  },
  {
    name: SCHEDULING_V1ALPHA1 + '.Placement',
    description: 'A rule that picks one Location for the namespaces of a workspace it selects, and the SyncTargets in it their objects run on.',
    gvk: [{ group: 'scheduling.kcp.io', version: 'v1alpha1', kind: 'Placement' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', type: ref(SCHEDULING_V1ALPHA1, 'PlacementSpec'), description: 'What the Placement selects.' },
      { name: 'status', type: ref(SCHEDULING_V1ALPHA1, 'PlacementStatus'), description: 'What the scheduler decided.' },
    ],
  },
  {
    name: SCHEDULING_V1ALPHA1 + '.PlacementSpec',
    description: 'The desired state of a Placement.',
    fields: [
      { name: 'locationSelectors', type: list(ref(META_V1, 'LabelSelector')), description: 'Label selectors over Locations, ORed; an empty list selects none.' },
      { name: 'locationResource', type: ref(SCHEDULING_V1ALPHA1, 'GroupVersionResource'), required: true, description: 'The resource of the instances of the Locations to select.' },
      { name: 'namespaceSelector', type: ref(META_V1, 'LabelSelector'), description: 'The namespaces the Placement applies to.' },
      { name: 'locationWorkspace', type: STRING, description: 'The absolute path of the workspace holding the Locations, e.g. root:compute.' },
      { name: 'clusterSpread', type: ref(SCHEDULING_V1ALPHA1, 'ClusterSpread'), description: 'How many SyncTargets of the Location to use (atrium); one when absent.' },
    ],
  },
  {
    name: SCHEDULING_V1ALPHA1 + '.ClusterSpread',
    description: 'How many SyncTargets of the selected Location a Placement binds.',
    fields: [
      { name: 'mode', type: STRING, required: true, enum: ['One', 'Count', 'All'], default: 'One', description: 'One SyncTarget, `count` of them, or every eligible one.' },
      { name: 'count', type: INT32, description: 'The number of SyncTargets when mode is Count.' },
    ],
  },
  {
    name: SCHEDULING_V1ALPHA1 + '.PlacementStatus',
    description: 'The observed state of a Placement.',
    fields: [
      { name: 'phase', type: STRING, enum: ['Pending', 'Bound', 'Unbound'], default: 'Pending', description: 'Pending (no Location yet), Unbound (Location chosen, no namespace bound) or Bound.' },
      { name: 'selectedLocation', type: ref(SCHEDULING_V1ALPHA1, 'LocationReference'), description: 'The Location the Placement uses.' },
      { name: 'conditions', type: list(CONDITION), description: 'Ready (a Location is usable) and Scheduled (SyncTargets were chosen), with the reasons when not.' },
    ],
  },
  {
    name: SCHEDULING_V1ALPHA1 + '.LocationReference',
    description: 'A Location by workspace path and name.',
    fields: [
      { name: 'path', type: STRING, required: true, description: 'The absolute path of the workspace holding the Location.' },
      { name: 'locationName', type: STRING, required: true, description: 'The name of the Location.' },
    ],
  },
];
