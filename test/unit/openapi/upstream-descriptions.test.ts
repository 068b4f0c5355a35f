/**
 * Descriptions read from kubernetes-types (1.30.0) against Kubernetes 1.32.4's own swagger.json (the Go module cache's
 * k8s.io/kubernetes api/openapi-spec, read at test time), and the built-in catalog's OpenAPI schemas against both.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { builtinCatalog } from '../../../src/apimachinery/schema/builtin/index.js';
import { schemasFromCatalog } from '../../../src/apiserver/openapi/schema-from-catalog.js';
import {
  commonFieldDescription,
  parseTypesFile,
  upstreamDescriptions,
  upstreamFieldDescription,
  upstreamTypeDescription,
} from '../../../src/apiserver/openapi/upstream-descriptions.js';
import { crOpenAPISchemas } from '../../../src/apiextensions/serving/openapi.js';

type Obj = Record<string, any>;
const SWAGGER = join(process.env.GOPATH ?? join(homedir(), 'go'), 'pkg/mod/k8s.io/kubernetes@v1.32.4/api/openapi-spec/swagger.json');
const swagger: Record<string, Obj> | undefined = existsSync(SWAGGER) ? JSON.parse(readFileSync(SWAGGER, 'utf8')).definitions : undefined;
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

test('parseTypesFile: one-line and block comments, paragraphs, quoted and readonly properties, nested literals', () => {
  const parsed = parseTypesFile(
    [
      'import { X } from "../y";',
      '/** A is a thing. */',
      'export interface A {',
      '    /**',
      '     * first paragraph.',
      '     *',
      '     * \tindented code',
      '     */',
      '    readonly b?: number;',
      '    /** map. */',
      '    c?: {',
      '        [name: string]: string;',
      '    };',
      '    "x-y"?: boolean;',
      '    /** quoted. */',
      '    "x-z"?: boolean;',
      '}',
      '/** An alias. */',
      'export type T = string;',
    ].join('\n'),
  );
  assert.equal(parsed.get('A')?.description, 'A is a thing.');
  assert.deepEqual([...parsed.get('A')!.fields], [
    ['b', 'first paragraph.\n\n\tindented code'],
    ['c', 'map.'],
    ['x-z', 'quoted.'],
  ]);
  assert.equal(parsed.get('T')?.description, 'An alias.');
});

test('descriptions agree with Kubernetes 1.32 swagger.json except where 1.30 and 1.32 differ', { skip: swagger ? false : `no ${SWAGGER}` }, () => {
  const up = upstreamDescriptions();
  let same = 0;
  const differ: string[] = [];
  for (const [name, d] of up) {
    const s = swagger![name];
    if (!s) continue;
    if (d.description !== undefined) (d.description === s.description ? same++ : differ.push(name));
    for (const [f, text] of d.fields) {
      const p = s.properties?.[f];
      if (p) (p.description === text ? same++ : differ.push(`${name}.${f}`));
    }
  }
  // Measured 2026-11-27: 2,622 agree and 97 differ (texts changed between 1.30 and 1.32, e.g. LocalObjectReference.name).
  console.log(`kubernetes-types 1.30.0 vs 1.32.4 swagger.json: ${same} descriptions agree, ${differ.length} differ`);
  assert.ok(same > 2500, `only ${same} agree`);
  assert.ok(differ.length < same / 20, `${differ.length} differ: ${differ.slice(0, 20).join(', ')}`);
  // ObjectMeta, the spec the conformance suite checks, agrees in full.
  const om = swagger![OBJECT_META]!;
  assert.equal(upstreamTypeDescription(OBJECT_META), om.description);
  for (const [f, p] of Object.entries(om.properties as Obj)) assert.equal(upstreamFieldDescription(OBJECT_META, f), p.description, f);
});

test('the built-in OpenAPI schemas carry the published descriptions (v2 and v3), ours where none is published', () => {
  for (const version of ['v2', 'v3'] as const) {
    const schemas = schemasFromCatalog(builtinCatalog, version) as Obj;
    const om = schemas[OBJECT_META];
    assert.match(om.description, /^ObjectMeta is metadata that all persisted resources must have/);
    assert.match(om.properties.creationTimestamp.description, /^CreationTimestamp is a timestamp/);
    for (const [f, p] of Object.entries(om.properties as Obj)) {
      const expected = upstreamFieldDescription(OBJECT_META, f);
      if (expected !== undefined) assert.equal(p.description, expected, `${version} ObjectMeta.${f}`);
    }
    const spec = schemas['io.k8s.api.apps.v1.DeploymentSpec'];
    assert.equal(spec.description, upstreamTypeDescription('io.k8s.api.apps.v1.DeploymentSpec'));
    assert.equal(spec.properties.replicas.description, upstreamFieldDescription('io.k8s.api.apps.v1.DeploymentSpec', 'replicas'));
    if (swagger) {
      assert.equal(spec.properties.template.description, swagger['io.k8s.api.apps.v1.DeploymentSpec']!.properties.template.description);
      assert.equal(schemas[OBJECT_META].properties.uid.description, swagger[OBJECT_META]!.properties.uid.description);
    }
  }
});

test("a CRD's kind schema describes metadata, apiVersion and kind as upstream's builder does", () => {
  const { v2, v3 } = crOpenAPISchemas({ group: 'x.example.com', version: 'v1', kind: 'Foo', listKind: 'FooList', plural: 'foos', schema: { type: 'object' } });
  for (const doc of [v2, v3] as Obj[]) {
    const props = doc['com.example.x.v1.Foo'].properties;
    assert.match(props.metadata.description, /^Standard object's metadata/);
    assert.equal(props.metadata.description, commonFieldDescription('metadata', 'ObjectMeta'));
    assert.match(doc['com.example.x.v1.FooList'].properties.items.description, /^List of foos\. /);
    if (swagger) {
      const cm = swagger['io.k8s.api.core.v1.ConfigMap']!.properties;
      assert.equal(props.metadata.description, cm.metadata.description);
      assert.equal(props.apiVersion.description, cm.apiVersion.description);
      assert.equal(props.kind.description, cm.kind.description);
      assert.equal(doc['com.example.x.v1.FooList'].properties.metadata.description, swagger['io.k8s.api.core.v1.PodList']!.properties.metadata.description);
    }
  }
});
