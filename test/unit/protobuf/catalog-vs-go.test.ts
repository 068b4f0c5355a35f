/**
 * Checks the built-in type catalog against the real Go types (k8s.io/api, apimachinery, apiextensions-apiserver
 * v0.32.4): testdata/go-struct-tags.json is written by the fixture generator (testdata/gen) from the struct tags of
 * every k8s.io struct reachable from the kinds atrium serves built in.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { builtinCatalog, builtinProtobufHints, fieldHintKey } from '../../../src/apimachinery/schema/builtin/index.js';
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
          for (const name of goTypes[goField.type]?.map((f) => f.json) ?? []) goJsonNames.add(name);
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
});
