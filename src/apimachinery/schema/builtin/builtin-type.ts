/**
 * The authoring form of a built-in type descriptor. It is a TypeDescriptor whose fields may carry two extra
 * protobuf facts that the shared catalog format (../types.ts) has no place for; `compileBuiltinTypes` strips
 * them into `ProtobufFieldHints` so the catalog itself holds plain FieldDescriptors.
 */
import type { FieldDescriptor, TypeDescriptor } from '../types.js';

export interface BuiltinFieldSpec extends FieldDescriptor {
  /**
   * The JSON form carries this scalar even at its zero value ("" / 0 / false): the Go field is a pointer or its
   * json tag lacks omitempty. Protobuf cannot tell "absent" from "zero" for such fields, so a decoder must keep a
   * zero value it read instead of dropping it (e.g. DeleteOptions.gracePeriodSeconds=0, orphanDependents=false).
   */
  emitZero?: boolean;
  /**
   * The protobuf field is not a plain `repeated` field but a message wrapping one (`message X { repeated T items = 1; }`),
   * as go-to-protobuf generates for named Go slice types such as metav1.Verbs.
   */
  protoWrappedList?: boolean;
}

export interface BuiltinTypeSpec extends Omit<TypeDescriptor, 'fields'> {
  fields: readonly BuiltinFieldSpec[];
}

/** Protobuf facts beyond the catalog format, keyed by `fieldHintKey(typeName, jsonName)`. */
export interface ProtobufFieldHints {
  /** Fields whose zero value must be kept when present on the wire (see BuiltinFieldSpec.emitZero). */
  readonly emitZero: ReadonlySet<string>;
  /** Fields encoded as a wrapper message around a repeated field 1 (see BuiltinFieldSpec.protoWrappedList). */
  readonly wrappedList: ReadonlySet<string>;
}

/** The key of a field in ProtobufFieldHints: `<type name>#<json name>`. */
export function fieldHintKey(typeName: string, fieldName: string): string {
  return `${typeName}#${fieldName}`;
}

/**
 * Turns authoring specs into plain TypeDescriptors plus the protobuf hints they carried.
 * Throws if two specs share a name, which would silently shadow a type.
 */
export function compileBuiltinTypes(specs: readonly BuiltinTypeSpec[]): {
  descriptors: Map<string, TypeDescriptor>;
  hints: ProtobufFieldHints;
} {
  const descriptors = new Map<string, TypeDescriptor>();
  const emitZero = new Set<string>();
  const wrappedList = new Set<string>();
  for (const spec of specs) {
    if (descriptors.has(spec.name)) throw new Error(`duplicate built-in type descriptor ${spec.name}`);
    const fields = spec.fields.map((field): FieldDescriptor => {
      const { emitZero: keepsZero, protoWrappedList, ...plain } = field;
      if (keepsZero) emitZero.add(fieldHintKey(spec.name, field.name));
      if (protoWrappedList) wrappedList.add(fieldHintKey(spec.name, field.name));
      return plain;
    });
    descriptors.set(spec.name, { ...spec, fields });
  }
  return { descriptors, hints: { emitZero, wrappedList } };
}
