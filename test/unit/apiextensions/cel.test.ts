import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldPath, errorString } from '../../../src/apimachinery/field-errors.js';
import type { JSONSchemaProps, ValidationRule } from '../../../src/apiextensions/schema/json-schema-props.js';
import { toStructural } from '../../../src/apiextensions/schema/structural.js';
import { CelValidator } from '../../../src/apiextensions/schema/cel/validator.js';
import { validateCRDSchema } from '../../../src/apiextensions/schema/validate-crd-schema.js';

/** A CR schema whose `spec` carries `rules`; spec has replicas, maxReplicas, name, items, labels, port. */
function specSchema(rules: ValidationRule[], extra: Record<string, JSONSchemaProps> = {}): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': rules,
        properties: {
          replicas: { type: 'integer' },
          maxReplicas: { type: 'integer' },
          ratio: { type: 'number' },
          name: { type: 'string', maxLength: 64 },
          items: { type: 'array', maxItems: 10, items: { type: 'integer' } },
          words: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 32 } },
          labels: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 64 } },
          port: { 'x-kubernetes-int-or-string': true },
          cpu: { type: 'string', maxLength: 16 },
          endpoint: { type: 'string', maxLength: 256 },
          ...extra,
        },
      },
    },
  };
}

function run(rules: ValidationRule[], spec: unknown, oldSpec?: unknown): string[] {
  const v = new CelValidator(toStructural(specSchema(rules)));
  const old = oldSpec === undefined ? undefined : { spec: oldSpec };
  return v.validate({ spec }, old, FieldPath.root()).errors.map(errorString);
}

interface Case {
  name: string;
  rules: ValidationRule[];
  spec: unknown;
  old?: unknown;
  want: string[];
}

const cases: Case[] = [
  { name: 'self comparison passes', rules: [{ rule: 'self.replicas <= self.maxReplicas' }], spec: { replicas: 1, maxReplicas: 3 }, want: [] },
  {
    name: 'failure uses failed rule',
    rules: [{ rule: 'self.replicas <= self.maxReplicas' }],
    spec: { replicas: 5, maxReplicas: 3 },
    want: ['spec: Invalid value: "object": failed rule: self.replicas <= self.maxReplicas'],
  },
  {
    name: 'message',
    rules: [{ rule: 'self.replicas <= self.maxReplicas', message: 'replicas must not exceed maxReplicas' }],
    spec: { replicas: 5, maxReplicas: 3 },
    want: ['spec: Invalid value: "object": replicas must not exceed maxReplicas'],
  },
  {
    name: 'messageExpression',
    rules: [{ rule: 'self.replicas <= self.maxReplicas', message: 'static', messageExpression: "'replicas ' + string(self.replicas) + ' > ' + string(self.maxReplicas)" }],
    spec: { replicas: 5, maxReplicas: 3 },
    want: ['spec: Invalid value: "object": replicas 5 > 3'],
  },
  {
    name: 'messageExpression failing falls back to message',
    rules: [{ rule: 'false', message: 'fallback', messageExpression: 'self.nothere' }],
    spec: {},
    want: ['spec: Invalid value: "object": fallback'],
  },
  {
    name: 'reason Forbidden',
    rules: [{ rule: '!has(self.name)', message: 'name is forbidden', reason: 'FieldValueForbidden' }],
    spec: { name: 'x' },
    want: ['spec: Forbidden: name is forbidden'],
  },
  { name: 'reason Required', rules: [{ rule: 'has(self.name)', message: 'name is required', reason: 'FieldValueRequired' }], spec: {}, want: ['spec: Required value: name is required'] },
  { name: 'reason Duplicate', rules: [{ rule: 'false', reason: 'FieldValueDuplicate' }], spec: {}, want: ['spec: Duplicate value: "object"'] },
  { name: 'fieldPath', rules: [{ rule: 'self.replicas >= 0', fieldPath: '.replicas' }], spec: { replicas: -1 }, want: ['spec.replicas: Invalid value: "object": failed rule: self.replicas >= 0'] },
  {
    name: 'fieldPath with map key',
    rules: [{ rule: "self.labels['app'] != ''", fieldPath: ".labels['app']" }],
    spec: { labels: { app: '' } },
    want: ["spec.labels[app]: Invalid value: \"object\": failed rule: self.labels['app'] != ''"],
  },
  { name: 'integers are ints', rules: [{ rule: 'self.items.map(i, i * 2).sum() == 6' }], spec: { items: [1, 2] }, want: [] },
  { name: 'numbers are doubles', rules: [{ rule: 'self.ratio > 0.4' }], spec: { ratio: 0.5 }, want: [] },
  { name: 'int-or-string int', rules: [{ rule: 'type(self.port) == int' }], spec: { port: 80 }, want: [] },
  { name: 'int-or-string string', rules: [{ rule: 'type(self.port) == string' }], spec: { port: 'http' }, want: [] },
  { name: 'optional field access', rules: [{ rule: "self.?name.orValue('d') == 'd'" }], spec: {}, want: [] },
  { name: 'isSorted', rules: [{ rule: 'self.items.isSorted()' }], spec: { items: [3, 1] }, want: ['spec: Invalid value: "object": failed rule: self.items.isSorted()'] },
  { name: 'min max', rules: [{ rule: 'self.items.min() == 1 && self.items.max() == 3' }], spec: { items: [3, 1, 2] }, want: [] },
  { name: 'list indexOf', rules: [{ rule: 'self.words.indexOf("b") == 1 && self.words.lastIndexOf("a") == 2' }], spec: { words: ['a', 'b', 'a'] }, want: [] },
  { name: 'string extensions', rules: [{ rule: "self.name.replace('-', '_').upperAscii() == 'A_B' && self.name.split('-').join('') == 'ab'" }], spec: { name: 'a-b' }, want: [] },
  { name: 'regex find', rules: [{ rule: "self.name.find('[0-9]+') == '42' && self.name.findAll('[a-z]').size() == 2" }], spec: { name: 'ab42' }, want: [] },
  { name: 'quantity', rules: [{ rule: "quantity(self.cpu).isLessThan(quantity('2'))" }], spec: { cpu: '500m' }, want: [] },
  { name: 'quantity binary suffix', rules: [{ rule: "quantity(self.cpu).compareTo(quantity('1Gi')) == 0" }], spec: { cpu: '1024Mi' }, want: [] },
  { name: 'url', rules: [{ rule: "isURL(self.endpoint) && url(self.endpoint).getHostname() == 'example.com' && url(self.endpoint).getScheme() == 'https'" }], spec: { endpoint: 'https://example.com:8443/x' }, want: [] },
  { name: 'cidr', rules: [{ rule: "cidr('10.0.0.0/8').containsIP(self.endpoint) && ip(self.endpoint).family() == 4" }], spec: { endpoint: '10.1.2.3' }, want: [] },
  { name: 'root meta selectable', rules: [], spec: {}, want: [] },
  {
    name: 'runtime error',
    rules: [{ rule: 'self.items[5] == 1' }],
    spec: { items: [1] },
    want: ['spec: Invalid value: "object": no such key: index out of bounds, index 5 >= size 1 evaluating rule: self.items[5] == 1'],
  },
  { name: 'transition rule skipped on create', rules: [{ rule: 'self.name == oldSelf.name', message: 'name is immutable' }], spec: { name: 'a' }, want: [] },
  {
    name: 'transition rule on update',
    rules: [{ rule: 'self.name == oldSelf.name', message: 'name is immutable' }],
    spec: { name: 'b' },
    old: { name: 'a' },
    want: ['spec: Invalid value: "object": name is immutable'],
  },
  {
    name: 'optionalOldSelf on create',
    rules: [{ rule: '!oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas', optionalOldSelf: true, message: 'no scale down' }],
    spec: { replicas: 1 },
    want: [],
  },
  {
    name: 'optionalOldSelf on update',
    rules: [{ rule: '!oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas', optionalOldSelf: true, message: 'no scale down' }],
    spec: { replicas: 1 },
    old: { replicas: 2 },
    want: ['spec: Invalid value: "object": no scale down'],
  },
];

for (const c of cases) {
  test(`CEL: ${c.name}`, () => assert.deepEqual(run(c.rules, c.spec, c.old), c.want));
}

test('CEL: rules on scalar fields report their type and run per list item', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          hosts: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 20, 'x-kubernetes-validations': [{ rule: "self.endsWith('.com')" }] } },
        },
      },
    },
  };
  const v = new CelValidator(toStructural(schema));
  const errs = v.validate({ spec: { hosts: ['a.com', 'b.org'] } }, undefined).errors.map(errorString);
  assert.deepEqual(errs, ['spec.hosts[1]: Invalid value: "string": failed rule: self.endsWith(\'.com\')']);
});

test('CEL: transition rules correlate list-type map items by key', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          ports: {
            type: 'array',
            maxItems: 5,
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: {
              type: 'object',
              required: ['name'],
              'x-kubernetes-validations': [{ rule: 'self.port == oldSelf.port', message: 'port is immutable' }],
              properties: { name: { type: 'string', maxLength: 10 }, port: { type: 'integer' } },
            },
          },
        },
      },
    },
  };
  const v = new CelValidator(toStructural(schema));
  const old = { spec: { ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] } };
  const obj = { spec: { ports: [{ name: 'b', port: 2 }, { name: 'a', port: 9 }, { name: 'c', port: 3 }] } };
  assert.deepEqual(v.validate(obj, old).errors.map(errorString), ['spec.ports[1]: Invalid value: "object": port is immutable']);
});

test('CEL: root rules see metadata', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('x-')", message: 'bad name' }],
    properties: { spec: { type: 'object' } },
  };
  const v = new CelValidator(toStructural(schema));
  assert.deepEqual(v.validate({ metadata: { name: 'x-1' }, spec: {} }, undefined).errors, []);
  assert.deepEqual(v.validate({ metadata: { name: 'y' }, spec: {} }, undefined).errors.map(errorString), ['Invalid value: "object": bad name']);
});

test('CEL: a call over the per-call cost limit stops evaluation', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.l.all(a, self.l.all(b, self.l.all(c, a + b + c >= 0)))' }, { rule: 'false' }],
        properties: { l: { type: 'array', items: { type: 'integer' } } },
      },
    },
  };
  const v = new CelValidator(toStructural(schema));
  const l = Array.from({ length: 200 }, (_, i) => i);
  const res = v.validate({ spec: { l } }, undefined);
  assert.equal(res.remainingBudget, -1);
  assert.deepEqual(res.errors.map(errorString), [
    "spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.l.all(a, self.l.all(b, self.l.all(c, a + b + c >= 0)))",
  ]);
  // A small list is cheap enough.
  assert.deepEqual(v.validate({ spec: { l: [1, 2] } }, undefined).errors.map(errorString), ['spec: Invalid value: "object": failed rule: false']);
});

const at = FieldPath.root('spec').child('validation').child('openAPIV3Schema');
const P = 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]';

interface CompileCase {
  name: string;
  rules: ValidationRule[];
  extra?: Record<string, JSONSchemaProps>;
  want: string[];
}

const compileCases: CompileCase[] = [
  { name: 'valid rule', rules: [{ rule: 'self.replicas >= 0' }], want: [] },
  {
    name: 'syntax error',
    rules: [{ rule: 'self.replicas >=' }],
    want: [`${P}.rule: Invalid value: "object": compilation failed: ERROR: <input>:1:17: Unexpected token: EOF\n | self.replicas >=\n | ................^`],
  },
  // Input no token starts with is ANTLR's token recognition error in cel-go, with the text the lexer read (kube-apiserver
  // v1.32.4 answers these; it then also reports `extraneous input '42' expecting <EOF>`, which cel-js does not find).
  {
    name: 'a character that starts no token',
    rules: [{ rule: 'self = 42' }, { rule: 'self.replicas == 1 #' }, { rule: 'self.replicas == 1 &' }],
    want: [
      `${P}.rule: Invalid value: "object": compilation failed: ERROR: <input>:1:6: Syntax error: token recognition error at: '= '\n | self = 42\n | .....^`,
      `${P.replace('[0]', '[1]')}.rule: Invalid value: "object": compilation failed: ERROR: <input>:1:20: Syntax error: token recognition error at: '#'\n | self.replicas == 1 #\n | ...................^`,
      `${P.replace('[0]', '[2]')}.rule: Invalid value: "object": compilation failed: ERROR: <input>:1:20: Syntax error: token recognition error at: '&'\n | self.replicas == 1 &\n | ...................^`,
    ],
  },
  {
    name: 'a string the input ends in',
    rules: [{ rule: "self.name == 'x" }],
    want: [`${P}.rule: Invalid value: "object": compilation failed: ERROR: <input>:1:14: Syntax error: token recognition error at: \''x'\n | self.name == 'x\n | .............^`],
  },
  {
    name: 'undefined field',
    rules: [{ rule: 'self.nope == 1' }],
    want: [`${P}.rule: Invalid value: "object": compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^`],
  },
  // self is typed from the schema, so a string-valued rule is refused as cel-go refuses it.
  { name: 'not a bool', rules: [{ rule: 'self.name' }], want: [`${P}.rule: Invalid value: "object": cel expression must evaluate to a bool`] },
  { name: 'string result', rules: [{ rule: "'abc'" }], want: [`${P}.rule: Invalid value: "object": cel expression must evaluate to a bool`] },
  { name: 'messageExpression not a string', rules: [{ rule: 'true', messageExpression: '1' }], want: [`${P}.messageExpression: Invalid value: "object": messageExpression must evaluate to a string`] },
  {
    name: 'oldSelf on an uncorrelatable list item',
    rules: [],
    extra: { list: { type: 'array', maxItems: 3, items: { type: 'string', maxLength: 3, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } } },
    want: [
      'spec.validation.openAPIV3Schema.properties[spec].properties[list].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[list]',
    ],
  },
  { name: 'optionalOldSelf without oldSelf', rules: [{ rule: 'true', optionalOldSelf: true }], want: [`${P}.optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`] },
  { name: 'invalid fieldPath', rules: [{ rule: 'true', fieldPath: '.nope' }], want: [`${P}.fieldPath: Invalid value: ".nope": must be a valid path`] },
  {
    name: 'rule too expensive',
    rules: [],
    extra: {
      unbounded: {
        type: 'array',
        items: { type: 'string' },
        'x-kubernetes-validations': [{ rule: 'self.all(a, self.all(b, a == b))' }],
      },
    },
    want: [
      'spec.validation.openAPIV3Schema.properties[spec].properties[unbounded].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
      'spec.validation.openAPIV3Schema.properties[spec].properties[unbounded].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
      'spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    ],
  },
  {
    name: 'bounded nested loop is cheap enough',
    rules: [],
    extra: {
      bounded: {
        type: 'array',
        maxItems: 20,
        items: { type: 'string', maxLength: 10 },
        'x-kubernetes-validations': [{ rule: 'self.all(a, self.exists_one(b, a == b))' }],
      },
    },
    want: [],
  },
];

for (const c of compileCases) {
  test(`CEL at CRD validation: ${c.name}`, () => {
    assert.deepEqual(validateCRDSchema(specSchema(c.rules, c.extra), at).map(errorString), c.want);
  });
}
