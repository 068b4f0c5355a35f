/**
 * CRDs for the CRD suites, modelled on what popular operators install: a cert-manager-like Certificate (CEL rules,
 * enums, durations, nested secret template), a Prometheus-operator-like ServiceMonitor (list-map endpoints,
 * int-or-string ports, label selectors), an Argo-like Rollout (embedded pod template, scale subresource, two
 * versions) and a small CronTab with printer columns and defaults. Written for atrium's tests, not copied.
 */

export function cronTabCRD(opts: { scope?: 'Namespaced' | 'Cluster'; group?: string } = {}): any {
  const group = opts.group ?? 'stable.example.com';
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
          image: { type: 'string' },
          replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
          paused: { type: 'boolean', default: false },
        },
        required: ['cronSpec'],
      },
      status: {
        type: 'object',
        properties: { replicas: { type: 'integer' }, labelSelector: { type: 'string' }, phase: { type: 'string' } },
      },
    },
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `crontabs.${group}` },
    spec: {
      group,
      scope: opts.scope ?? 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all', 'cron'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' } },
          additionalPrinterColumns: [
            { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec', description: 'The cron spec' },
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Image', type: 'string', jsonPath: '.spec.image', priority: 1 },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
        {
          name: 'v1beta1',
          served: true,
          storage: false,
          deprecated: true,
          schema: { openAPIV3Schema: schema },
          subresources: { status: {} },
        },
      ],
    },
  };
}

export function certificateCRD(): any {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'certificates.certs.example.io' },
    spec: {
      group: 'certs.example.io',
      scope: 'Namespaced',
      names: { plural: 'certificates', singular: 'certificate', kind: 'Certificate', listKind: 'CertificateList', shortNames: ['cert', 'certs'], categories: ['certs'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: 'Secret', type: 'string', jsonPath: '.spec.secretName' },
            { name: 'Issuer', type: 'string', jsonPath: '.spec.issuerRef.name', priority: 1 },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              properties: {
                spec: {
                  type: 'object',
                  required: ['secretName', 'issuerRef'],
                  'x-kubernetes-validations': [
                    { rule: 'has(self.commonName) || (has(self.dnsNames) && size(self.dnsNames) > 0)', message: 'at least one of commonName or dnsNames must be set' },
                    { rule: "!has(self.duration) || !has(self.renewBefore) || duration(self.duration) > duration(self.renewBefore)", message: 'renewBefore must be shorter than duration', fieldPath: '.renewBefore' },
                  ],
                  properties: {
                    commonName: { type: 'string', maxLength: 64 },
                    dnsNames: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 253 }, 'x-kubernetes-list-type': 'set' },
                    duration: { type: 'string', maxLength: 32 },
                    renewBefore: { type: 'string', maxLength: 32 },
                    secretName: { type: 'string', minLength: 1, maxLength: 253 },
                    secretTemplate: {
                      type: 'object',
                      properties: {
                        annotations: { type: 'object', additionalProperties: { type: 'string' } },
                        labels: { type: 'object', additionalProperties: { type: 'string' } },
                      },
                    },
                    privateKey: {
                      type: 'object',
                      properties: {
                        algorithm: { type: 'string', enum: ['RSA', 'ECDSA', 'Ed25519'], default: 'RSA' },
                        size: { type: 'integer', format: 'int32' },
                        rotationPolicy: { type: 'string', enum: ['Never', 'Always'] },
                      },
                      'x-kubernetes-validations': [{ rule: "self.algorithm != 'Ed25519' || !has(self.size)", message: 'size must not be set for Ed25519', reason: 'FieldValueForbidden' }],
                    },
                    usages: { type: 'array', items: { type: 'string', enum: ['digital signature', 'key encipherment', 'server auth', 'client auth'] } },
                    issuerRef: {
                      type: 'object',
                      required: ['name'],
                      properties: { name: { type: 'string' }, kind: { type: 'string', default: 'Issuer' }, group: { type: 'string' } },
                      'x-kubernetes-map-type': 'atomic',
                    },
                  },
                },
                status: {
                  type: 'object',
                  properties: {
                    conditions: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['type'],
                      items: {
                        type: 'object',
                        required: ['type', 'status'],
                        properties: {
                          type: { type: 'string' },
                          status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
                          reason: { type: 'string' },
                          message: { type: 'string' },
                          lastTransitionTime: { type: 'string', format: 'date-time' },
                        },
                      },
                    },
                    notAfter: { type: 'string', format: 'date-time' },
                    revision: { type: 'integer' },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

export function serviceMonitorCRD(): any {
  const selector = {
    type: 'object',
    properties: {
      matchLabels: { type: 'object', additionalProperties: { type: 'string' } },
      matchExpressions: {
        type: 'array',
        items: {
          type: 'object',
          required: ['key', 'operator'],
          properties: { key: { type: 'string' }, operator: { type: 'string' }, values: { type: 'array', items: { type: 'string' } } },
        },
      },
    },
    'x-kubernetes-map-type': 'atomic',
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'servicemonitors.monitoring.example.io' },
    spec: {
      group: 'monitoring.example.io',
      scope: 'Namespaced',
      names: { plural: 'servicemonitors', singular: 'servicemonitor', kind: 'ServiceMonitor', listKind: 'ServiceMonitorList', shortNames: ['smon'], categories: ['prometheus-operator'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              properties: {
                spec: {
                  type: 'object',
                  required: ['selector'],
                  properties: {
                    jobLabel: { type: 'string' },
                    selector,
                    namespaceSelector: { type: 'object', properties: { any: { type: 'boolean' }, matchNames: { type: 'array', items: { type: 'string' } } } },
                    endpoints: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['port'],
                      items: {
                        type: 'object',
                        required: ['port'],
                        properties: {
                          port: { type: 'string' },
                          targetPort: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                          path: { type: 'string', default: '/metrics' },
                          interval: { type: 'string', pattern: '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$' },
                          scheme: { type: 'string', enum: ['http', 'https'] },
                          relabelings: {
                            type: 'array',
                            items: {
                              type: 'object',
                              properties: {
                                action: { type: 'string', default: 'replace', enum: ['replace', 'keep', 'drop', 'labelmap', 'labeldrop', 'labelkeep'] },
                                sourceLabels: { type: 'array', items: { type: 'string' } },
                                targetLabel: { type: 'string' },
                                regex: { type: 'string' },
                              },
                            },
                          },
                          tlsConfig: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                        },
                      },
                    },
                    sampleLimit: { type: 'integer', format: 'int64', minimum: 0 },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

export function rolloutCRD(): any {
  const podTemplate = {
    type: 'object',
    'x-kubernetes-embedded-resource': false,
    properties: {
      metadata: { type: 'object', properties: { labels: { type: 'object', additionalProperties: { type: 'string' } }, annotations: { type: 'object', additionalProperties: { type: 'string' } } } },
      spec: {
        type: 'object',
        required: ['containers'],
        properties: {
          containers: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: {
              type: 'object',
              required: ['name'],
              properties: {
                name: { type: 'string' },
                image: { type: 'string' },
                args: { type: 'array', items: { type: 'string' } },
                ports: {
                  type: 'array',
                  items: { type: 'object', required: ['containerPort'], properties: { containerPort: { type: 'integer', format: 'int32' }, protocol: { type: 'string', default: 'TCP' } } },
                },
                resources: {
                  type: 'object',
                  properties: {
                    limits: { type: 'object', additionalProperties: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } },
                    requests: { type: 'object', additionalProperties: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
  const v1alpha1 = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer', format: 'int32', default: 1 },
          selector: { type: 'object', properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } } },
          template: podTemplate,
          workloadRef: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
          strategy: {
            type: 'object',
            properties: {
              canary: {
                type: 'object',
                properties: {
                  maxSurge: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                  steps: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: { setWeight: { type: 'integer', format: 'int32', minimum: 0, maximum: 100 }, pause: { type: 'object', properties: { duration: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } } },
                    },
                  },
                },
              },
            },
          },
        },
      },
      status: {
        type: 'object',
        properties: { replicas: { type: 'integer', format: 'int32' }, selector: { type: 'string' }, phase: { type: 'string' } },
      },
    },
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'rollouts.rollouts.example.io' },
    spec: {
      group: 'rollouts.example.io',
      scope: 'Namespaced',
      names: { plural: 'rollouts', singular: 'rollout', kind: 'Rollout', listKind: 'RolloutList', shortNames: ['ro'] },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: v1alpha1 },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
          additionalPrinterColumns: [
            { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Current', type: 'integer', jsonPath: '.status.replicas' },
            { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
        {
          name: 'v1beta1',
          served: false,
          storage: false,
          schema: { openAPIV3Schema: v1alpha1 },
          subresources: { status: {} },
        },
      ],
    },
  };
}
