/**
 * The authoring form of a built-in type descriptor. It is a TypeDescriptor whose fields may carry protobuf facts
 * that the shared catalog format (../types.ts) has no place for; `compileBuiltinTypes` strips them into
 * `ProtobufFieldHints` so the catalog itself holds plain FieldDescriptors.
 *
 * Embedded structs: Go structs sometimes embed another struct that JSON inlines (`json:",inline"`) but protobuf keeps
 * as one nested message field (core/v1 Volume embeds VolumeSource as field 2, Probe embeds ProbeHandler as field 1,
 * EphemeralContainer embeds EphemeralContainerCommon as field 1, ConfigMapKeySelector embeds LocalObjectReference as
 * field 1, ...). A spec writes such an embed as an `embedded(proto, type)` entry in its field list. Compiling
 * replaces the entry, in place, with the embedded type's JSON fields (without protobuf numbers: at the parent's level
 * they have none), so the parent's descriptor lists every JSON field for OpenAPI, patches, apply and unknown-field
 * checks, while the hints record the nested message for the protobuf decoder and encoder. The embedded type stays
 * in the catalog as its own type, with its own protobuf numbers and hints.
 */
import type { FieldDescriptor, TypeDescriptor } from '../types.js';

export interface BuiltinFieldSpec extends FieldDescriptor {
  /**
   * The JSON form carries this field even at its zero value ("" / 0 / false for a scalar, an empty list or map): the
   * Go field is a pointer or its json tag lacks omitempty. Protobuf cannot tell "absent" from "zero" for such
   * scalars, so a decoder must keep a zero value it read instead of dropping it (e.g.
   * DeleteOptions.gracePeriodSeconds=0, orphanDependents=false). A list or map without it is omitempty: the typed
   * round trip drops it when empty (../omit-empty.ts); one with it (Role.rules, PolicyRule.verbs) stays.
   */
  emitZero?: boolean;
  /**
   * The protobuf field is not a plain `repeated` field but a message wrapping one (`message X { repeated T items = 1; }`),
   * as go-to-protobuf generates for named Go slice types such as metav1.Verbs.
   */
  protoWrappedList?: boolean;
}

/**
 * An embedded Go struct whose fields JSON inlines into the parent but protobuf nests as message field `proto`
 * (see the module comment). Written with `embedded()`.
 */
export interface BuiltinEmbeddedSpec {
  /** The catalog name of the embedded type, e.g. io.k8s.api.core.v1.VolumeSource. */
  embedded: string;
  /** The embedded message's field number in the parent's generated.proto message. */
  proto: number;
}

export interface BuiltinTypeSpec extends Omit<TypeDescriptor, 'fields'> {
  fields: readonly (BuiltinFieldSpec | BuiltinEmbeddedSpec)[];
}

/**
 * A field-list entry for an embedded struct: protobuf field `proto` of the parent is a message of type `typeName`
 * whose fields appear inline, at this position, in the parent's JSON.
 */
export function embedded(proto: number, typeName: string): BuiltinEmbeddedSpec {
  return { embedded: typeName, proto };
}

/** A message embedded in a parent message whose fields JSON inlines (see the module comment). */
export interface EmbeddedMessage {
  /** The field number of the embedded message in the parent message. */
  readonly proto: number;
  /** The catalog type name of the embedded message. */
  readonly type: string;
}

/** Protobuf facts beyond the catalog format, keyed by `fieldHintKey(typeName, jsonName)` unless said otherwise. */
export interface ProtobufFieldHints {
  /** Fields whose zero value (or empty list or map) must be kept when present on the wire (see BuiltinFieldSpec.emitZero). */
  readonly emitZero: ReadonlySet<string>;
  /** Fields encoded as a wrapper message around a repeated field 1 (see BuiltinFieldSpec.protoWrappedList). */
  readonly wrappedList: ReadonlySet<string>;
  /**
   * By parent type name: the embedded messages whose fields JSON inlines into the parent. Those JSON fields are
   * listed on the parent's descriptor without a protobuf number. Optional so hand-built hints need not carry it.
   */
  readonly embeddedMessages?: ReadonlyMap<string, readonly EmbeddedMessage[]>;
}

/** The key of a field in ProtobufFieldHints: `<type name>#<json name>`. */
export function fieldHintKey(typeName: string, fieldName: string): string {
  return `${typeName}#${fieldName}`;
}

function isEmbedded(entry: BuiltinFieldSpec | BuiltinEmbeddedSpec): entry is BuiltinEmbeddedSpec {
  return 'embedded' in entry;
}

/**
 * Turns authoring specs into plain TypeDescriptors plus the protobuf hints they carried, expanding every
 * `embedded()` entry into the embedded type's JSON fields (recursively, should an embedded type embed another).
 * Throws if two specs share a name (which would silently shadow a type), if an embedded type is not among `specs`,
 * or if embeds form a cycle.
 */
export function compileBuiltinTypes(specs: readonly BuiltinTypeSpec[]): {
  descriptors: Map<string, TypeDescriptor>;
  hints: ProtobufFieldHints;
} {
  const specsByName = new Map<string, BuiltinTypeSpec>();
  for (const spec of specs) {
    if (specsByName.has(spec.name)) throw new Error(`duplicate built-in type descriptor ${spec.name}`);
    specsByName.set(spec.name, spec);
  }
  const emitZero = new Set<string>();
  const wrappedList = new Set<string>();
  const embeddedMessages = new Map<string, EmbeddedMessage[]>();

  // The JSON fields a spec contributes at its own level; embeds contribute their fields with no protobuf number.
  const jsonFields = (spec: BuiltinTypeSpec, expanding: readonly string[]): FieldDescriptor[] =>
    spec.fields.flatMap((entry): FieldDescriptor[] => {
      if (isEmbedded(entry)) {
        const inner = specsByName.get(entry.embedded);
        if (!inner) throw new Error(`${spec.name} embeds ${entry.embedded}, which is not a built-in type`);
        if (expanding.includes(inner.name)) throw new Error(`embedded types form a cycle: ${[...expanding, inner.name].join(' -> ')}`);
        return jsonFields(inner, [...expanding, inner.name]).map(({ proto: _inParentHasNone, ...field }) => field);
      }
      const { emitZero: _keepsZero, protoWrappedList: _wrapped, ...plain } = entry;
      return [plain];
    });

  // The emitZero hints of an embed's fields, also under the parent's name: the JSON walks (omit-empty.ts) see them
  // at the parent's level (EphemeralContainer#name), the protobuf codec under the embedded type's own.
  const embeddedEmitZero = (spec: BuiltinTypeSpec, parent: string): void => {
    for (const entry of spec.fields) {
      if (isEmbedded(entry)) {
        const inner = specsByName.get(entry.embedded);
        if (inner) embeddedEmitZero(inner, parent);
      } else if (entry.emitZero) emitZero.add(fieldHintKey(parent, entry.name));
    }
  };

  const descriptors = new Map<string, TypeDescriptor>();
  for (const spec of specs) {
    for (const entry of spec.fields) {
      if (isEmbedded(entry)) {
        let list = embeddedMessages.get(spec.name);
        if (!list) embeddedMessages.set(spec.name, (list = []));
        list.push({ proto: entry.proto, type: entry.embedded });
        const inner = specsByName.get(entry.embedded);
        if (inner) embeddedEmitZero(inner, spec.name);
        continue;
      }
      if (entry.emitZero) emitZero.add(fieldHintKey(spec.name, entry.name));
      if (entry.protoWrappedList) wrappedList.add(fieldHintKey(spec.name, entry.name));
    }
    descriptors.set(spec.name, { ...spec, fields: jsonFields(spec, [spec.name]) });
  }
  return { descriptors, hints: { emitZero, wrappedList, embeddedMessages } };
}
