/**
 * Checks the built-in type catalog against the real Go types (k8s.io/api, apimachinery, apiextensions-apiserver
 * v0.32.4): testdata/go-struct-tags.json is written by the fixture generator (testdata/gen) from the struct tags of
 * every k8s.io struct reachable from the kinds atrium serves built in.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { builtinCatalog, builtinProtobufHints, fieldHintKey } from '../../../src/apimachinery/schema/builtin/index.js';
import { GO_UNSET_VALUES } from '../../../src/apimachinery/schema/builtin/go-unset-values.js';
import { TESTDATA_DIR } from './fixture-support.js';

interface GoField {
  json: string;
  proto?: number;
  omitempty?: boolean;
  pointer?: boolean;
  inline?: boolean;
  type: string;
}

const goTypes = JSON.parse(readFileSync(`${TESTDATA_DIR}go-struct-tags.json`, 'utf8')) as Record<string, GoField[]>;

/** The JSON names an inlined Go struct contributes, through the structs it inlines in turn. */
function inlinedJsonNames(typeName: string): string[] {
  return (goTypes[typeName] ?? []).flatMap((f) => (f.inline ? inlinedJsonNames(f.type) : [f.json]));
}
const SCALARS = new Set(['string', 'bool', 'int32', 'int64', 'float64']);

/** Go types the catalog describes field by field (well-known wrappers such as metav1.Time are scalars there). */
const compared = Object.keys(goTypes).filter((name) => (builtinCatalog.get(name)?.fields.length ?? 0) > 0);

describe('catalog vs. the Go struct tags of k8s.io v0.32.4', () => {
  it('covers the served kinds and what they reach', () => {
    for (const name of ['io.k8s.api.apps.v1.DeploymentSpec', 'io.k8s.api.core.v1.PodSpec', 'io.k8s.api.core.v1.Container', 'io.k8s.api.core.v1.ServicePort', 'io.k8s.api.core.v1.NodeStatus']) {
      assert.ok(compared.includes(name), name);
    }
    assert.ok(compared.length > 150, `only ${compared.length} types compared`);
  });

  for (const typeName of compared) {
    it(typeName.replace(/^io\.k8s\./, ''), () => {
      const descriptor = builtinCatalog.get(typeName)!;
      const embeds = builtinProtobufHints.embeddedMessages?.get(typeName) ?? [];
      const problems: string[] = [];
      const goJsonNames = new Set<string>();
      for (const goField of goTypes[typeName]!) {
        if (goField.inline) {
          if (goField.proto === undefined) {
            // metav1.TypeMeta: apiVersion and kind, which travel in the protobuf envelope.
            for (const name of goTypes[goField.type]?.map((f) => f.json) ?? []) goJsonNames.add(name);
            continue;
          }
          if (!embeds.some((e) => e.proto === goField.proto && e.type === goField.type)) {
            problems.push(`embedded ${goField.type} (protobuf ${goField.proto}) is not declared`);
          }
          for (const name of inlinedJsonNames(goField.type)) goJsonNames.add(name);
          continue;
        }
        goJsonNames.add(goField.json);
        const field = descriptor.fields.find((f) => f.name === goField.json);
        if (!field) {
          problems.push(`${goField.json}: missing`);
          continue;
        }
        if (field.proto !== goField.proto) problems.push(`${goField.json}: protobuf ${String(field.proto)}, Go says ${String(goField.proto)}`);
        if (SCALARS.has(goField.type)) {
          const goKeepsZero = Boolean(goField.pointer) || !goField.omitempty;
          const catalogKeepsZero = builtinProtobufHints.emitZero.has(fieldHintKey(typeName, goField.json));
          if (goKeepsZero !== catalogKeepsZero) problems.push(`${goField.json}: emitZero ${catalogKeepsZero}, Go keeps zero ${goKeepsZero}`);
        }
        // A list or map Go writes even when empty (no omitempty) survives the typed round trip (omit-empty.ts).
        if (goField.type.startsWith('[]') || goField.type.startsWith('map[')) {
          const goKeepsEmpty = !goField.omitempty;
          const catalogKeepsEmpty = builtinProtobufHints.emitZero.has(fieldHintKey(typeName, goField.json));
          if (goKeepsEmpty !== catalogKeepsEmpty) problems.push(`${goField.json}: emitZero ${catalogKeepsEmpty}, Go keeps it empty ${goKeepsEmpty}`);
        }
      }
      for (const embed of embeds) {
        if (!goTypes[typeName]!.some((f) => f.inline && f.proto === embed.proto)) problems.push(`declares embed ${embed.type} that Go lacks`);
      }
      for (const field of descriptor.fields) if (!goJsonNames.has(field.name)) problems.push(`${field.name}: not in the Go type`);
      assert.deepEqual(problems, []);
    });
  }

  // What Go's JSON encoding writes for an unset field (go-unset-values.ts, which the typed round trip fills in).
  it('the values Go writes for unset fields, for every compared type', () => {
    const byValue: Record<string, unknown> = {
      'io.k8s.apimachinery.pkg.apis.meta.v1.Time': null,
      'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': null,
      'io.k8s.apimachinery.pkg.runtime.RawExtension': null,
      'io.k8s.apimachinery.pkg.api.resource.Quantity': '0',
      'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 0,
      'io.k8s.apimachinery.pkg.apis.meta.v1.Duration': '0s',
    };
    // A nil []byte (the generator's `bytes`) is written as null, like a nil slice.
    const zero: Record<string, unknown> = { string: '', bool: false, int32: 0, int64: 0, float64: 0, bytes: null };
    const problems: string[] = [];
    for (const typeName of compared) {
      const descriptor = builtinCatalog.get(typeName)!;
      const isKind = descriptor.fields.some((f) => f.name === 'apiVersion');
      const expected: Record<string, unknown> = {};
      const visit = (fields: GoField[]) => {
        for (const f of fields) {
          if (f.inline) {
            visit(goTypes[f.type] ?? []);
            continue;
          }
          if (!descriptor.fields.some((d) => d.name === f.json)) continue;
          // A kind's own metadata is always set on a stored object; a list's is not stored.
          if (f.json === 'metadata' && (isKind || f.type.endsWith('.ListMeta'))) continue;
          if (f.pointer) {
            if (!f.omitempty) expected[f.json] = null;
          } else if (f.type in byValue) expected[f.json] = byValue[f.type];
          else if (goTypes[f.type]) expected[f.json] = {};
          else if (!f.omitempty) expected[f.json] = f.type.startsWith('[]') || f.type.startsWith('map[') ? null : zero[f.type];
        }
      };
      visit(goTypes[typeName]!);
      const actual = GO_UNSET_VALUES[typeName] ?? {};
      for (const name of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
        if (JSON.stringify(expected[name]) !== JSON.stringify(actual[name])) {
          problems.push(`${typeName}#${name}: table ${JSON.stringify(actual[name])}, Go writes ${JSON.stringify(expected[name])}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });
});
