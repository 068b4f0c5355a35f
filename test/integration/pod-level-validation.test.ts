/**
 * The pod-level fields of a pod spec (dnsPolicy, nodeSelector, tolerations, affinity, topology spread, the pod
 * securityContext, dnsConfig, gates, hostAliases, os, ...) are validated as kube-apiserver 1.32's ValidatePodSpec
 * validates them after the containers (pod-level-validation.ts), in a simulated cluster. The expected messages are
 * kube-apiserver v1.32.4's own answers to the same dry-run POSTs (recorded from the binary the `kube` benchmark
 * builds, started with the ServiceAccount admission plugin off), so a difference in wording, order or what is caught
 * fails here. Cases kube-apiserver rejects in admission first (an unknown priorityClassName or runtimeClassName, or a
 * preemptionPolicy, on a Pod) are left out: those paths are checked on templates instead.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useValidationCluster, validationCases, type ValidationCase } from '../helpers/validation-cases.js';

const server = useValidationCluster('pod-level-validation');

const cases: ValidationCase[] = [
  {
    name: "a Pod with bad dnsPolicy, nodeSelector, serviceAccountName, nodeName, activeDeadlineSeconds, hostname, subdomain and toleration: each reported, nodeName in its place",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"dnsPolicy":"Bogus","nodeSelector":{"bad key!":"v"},"serviceAccountName":"Bad_SA","activeDeadlineSeconds":0,"hostname":"Bad","subdomain":"x.y","tolerations":[{"operator":"Equal"}],"nodeName":"Bad_Node"}},
    message: "Pod \"p\" is invalid: [spec.dnsPolicy: Unsupported value: \"Bogus\": supported values: \"ClusterFirstWithHostNet\", \"ClusterFirst\", \"Default\", \"None\", spec.nodeSelector: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.serviceAccountName: Invalid value: \"Bad_SA\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.nodeName: Invalid value: \"Bad_Node\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive, spec.hostname: Invalid value: \"Bad\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.subdomain: Invalid value: \"x.y\": must not contain dots, spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"]",
  },
  {
    name: "the same mistakes in a Deployment template, with priorityClassName checked, and activeDeadlineSeconds forbidden for a ReplicaSet template last",
    path: "/apis/apps/v1/namespaces/default/deployments",
    body: {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"x"}],"dnsPolicy":"Bogus","nodeSelector":{"bad key!":"v"},"serviceAccountName":"Bad_SA","activeDeadlineSeconds":0,"hostname":"Bad","subdomain":"x.y","tolerations":[{"operator":"Equal"}],"priorityClassName":"Bad_PC","nodeName":"Bad_Node"}}}},
    message: "Deployment.apps \"d\" is invalid: [spec.template.spec.dnsPolicy: Unsupported value: \"Bogus\": supported values: \"ClusterFirstWithHostNet\", \"ClusterFirst\", \"Default\", \"None\", spec.template.spec.nodeSelector: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.template.spec.serviceAccountName: Invalid value: \"Bad_SA\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.template.spec.nodeName: Invalid value: \"Bad_Node\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.template.spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive, spec.template.spec.hostname: Invalid value: \"Bad\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.template.spec.subdomain: Invalid value: \"x.y\": must not contain dots, spec.template.spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\", spec.template.spec.priorityClassName: Invalid value: \"Bad_PC\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported]",
  },
  {
    name: "tolerations: key, operator, value, effect and tolerationSeconds rules",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"tolerations":[{"key":"bad key!","operator":"Exists"},{"operator":"Equal","value":"x"},{"key":"k","operator":"Exists","value":"v"},{"key":"k","operator":"Bogus"},{"key":"k","value":"bad value!"},{"key":"k","operator":"Exists","effect":"NoSchedule","tolerationSeconds":30},{"key":"k","operator":"Exists","effect":"Bogus"},{"key":"","operator":""}]}},
    message: "Pod \"p\" is invalid: [spec.tolerations[0].key: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.tolerations[1].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\", spec.tolerations[2].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists', spec.tolerations[3].operator: Unsupported value: \"Bogus\": supported values: \"Equal\", \"Exists\", spec.tolerations[4].operator: Invalid value: \"bad value!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), spec.tolerations[5].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set, spec.tolerations[6].effect: Unsupported value: \"Bogus\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\", spec.tolerations[7].operator: Invalid value: \"\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"]",
  },
  {
    name: "activeDeadlineSeconds above the int32 range",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"activeDeadlineSeconds":3000000000}},
    message: "Pod \"p\" is invalid: spec.activeDeadlineSeconds: Invalid value: 3000000000: must be between 1 and 2147483647, inclusive",
  },
  {
    name: "an empty dnsPolicy is defaulted to ClusterFirst, not Required",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"dnsPolicy":""}},
  },
  {
    name: "a required node affinity without terms",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}}}},
    message: "Pod \"p\" is invalid: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term",
  },
  {
    name: "required node affinity: operators, values by operator, keys, and matchFields on metadata.name only",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"In"},{"key":"b","operator":"Exists","values":["x"]},{"key":"c","operator":"Gt","values":["1","2"]},{"key":"bad key!","operator":"Bogus","values":["bad value!"]},{"key":"d","operator":"Lt"}],"matchFields":[{"key":"metadata.name","operator":"In","values":["a","b"]},{"key":"metadata.labels","operator":"Exists"},{"key":"metadata.name","operator":"NotIn","values":["Bad_Name"]}]}]}}}}},
    message: "Pod \"p\" is invalid: [spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn', spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist', spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[2].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt', spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[3].operator: Invalid value: \"Bogus\": not a valid selector operator, spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[3].key: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[4].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt', spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector, spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[1].operator: Invalid value: \"Exists\": not a valid selector operator, spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[1].key: Invalid value: \"metadata.labels\": not a valid field selector key, spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[2].values[0]: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]",
  },
  {
    name: "preferred node affinity: weights 1-100, keys checked, values not",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":0,"preference":{"matchExpressions":[{"key":"a","operator":"In","values":["bad value!"]}]}},{"weight":101,"preference":{}},{"preference":{"matchExpressions":[{"key":"","operator":"In","values":["x"]}]}}]}}}},
    message: "Pod \"p\" is invalid: [spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100, spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[1].weight: Invalid value: 101: must be in the range 1-100, spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[2].weight: Invalid value: 0: must be in the range 1-100, spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[2].preference.matchExpressions[0].key: Invalid value: \"\": name part must be non-empty, spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[2].preference.matchExpressions[0].key: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]",
  },
  {
    name: "pod affinity terms: selectors, namespaces, namespaceSelector, topologyKey required, weights",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"a":"bad value!"},"matchExpressions":[{"key":"k","operator":"In"}]},"topologyKey":""},{"topologyKey":"bad key!","namespaces":["Bad_NS"],"namespaceSelector":{"matchExpressions":[{"key":"x","operator":"Bogus"}]}}],"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":0,"podAffinityTerm":{"topologyKey":"zone"}},{"weight":200,"podAffinityTerm":{"labelSelector":{"matchLabels":{"a":"b"}}}}]}}}},
    message: "Pod \"p\" is invalid: [spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchLabels: Invalid value: \"bad value!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn', spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty, spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"\": name part must be non-empty, spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].namespaceSelector.matchExpressions[0].operator: Invalid value: \"Bogus\": not a valid selector operator, spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].namespace: Invalid value: \"Bad_NS\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].topologyKey: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100, spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[1].weight: Invalid value: 200: must be in the range 1-100, spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[1].podAffinityTerm.topologyKey: Required value: can not be empty, spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[1].podAffinityTerm.topologyKey: Invalid value: \"\": name part must be non-empty, spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[1].podAffinityTerm.topologyKey: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]",
  },
  {
    name: "pod anti-affinity: a term without topologyKey and a negative weight",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"x"}}}],"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":-1,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"x"}},"topologyKey":"kubernetes.io/hostname"}}]}}}},
    message: "Pod \"p\" is invalid: [spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty, spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"\": name part must be non-empty, spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: -1: must be in the range 1-100]",
  },
  {
    name: "pod affinity matchLabelKeys and mismatchLabelKeys",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"x"}},"topologyKey":"zone","matchLabelKeys":["app","bad key!","pod-template-hash"],"mismatchLabelKeys":["pod-template-hash"]},{"topologyKey":"zone","matchLabelKeys":["a"]}]}}}},
    message: "Pod \"p\" is invalid: [spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys[1]: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys[2]: Invalid value: \"pod-template-hash\": exists in both matchLabelKeys and mismatchLabelKeys, spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set]",
  },
  {
    name: "topology spread constraints: maxSkew, topologyKey, whenUnsatisfiable, duplicates, minDomains, node policies, matchLabelKeys, selector",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"topologySpreadConstraints":[{"maxSkew":0,"topologyKey":"","whenUnsatisfiable":"Bogus"},{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","minDomains":0},{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway","minDomains":2,"nodeAffinityPolicy":"Bogus","nodeTaintsPolicy":"Nope"},{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"a":"bad value!"}},"matchLabelKeys":["a","bad key!"]},{"maxSkew":1,"topologyKey":"host","whenUnsatisfiable":"DoNotSchedule","matchLabelKeys":["x"]}]}},
    message: "Pod \"p\" is invalid: [spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero, spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty, spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"Bogus\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\", spec.topologySpreadConstraints[1].{topologyKey, whenUnsatisfiable}: Duplicate value: \"{zone, DoNotSchedule}\", spec.topologySpreadConstraints[1].minDomains: Invalid value: 0: must be greater than zero, spec.topologySpreadConstraints[2].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway, spec.topologySpreadConstraints[2].nodeAffinityPolicy: Unsupported value: \"Bogus\": supported values: \"Honor\", \"Ignore\", spec.topologySpreadConstraints[2].nodeTaintsPolicy: Unsupported value: \"Nope\": supported values: \"Honor\", \"Ignore\", spec.topologySpreadConstraints[3].matchLabelKeys[0]: Invalid value: \"a\": exists in both matchLabelKeys and labelSelector, spec.topologySpreadConstraints[3].matchLabelKeys[1]: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.topologySpreadConstraints[3].labelSelector.matchLabels: Invalid value: \"bad value!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), spec.topologySpreadConstraints[4].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set]",
  },
  {
    name: "an empty topology spread constraint",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"topologySpreadConstraints":[{}]}},
    message: "Pod \"p\" is invalid: [spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero, spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty, spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"]",
  },
  {
    name: "empty pod affinity objects are fine, an empty required node selector is not",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{}},"podAffinity":{},"podAntiAffinity":{}}}},
    message: "Pod \"p\" is invalid: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term",
  },
  {
    name: "pod securityContext: user and group ids in range",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"fsGroup":-1,"runAsUser":-5,"runAsGroup":3000000000,"supplementalGroups":[1,-2]}}},
    message: "Pod \"p\" is invalid: [spec.securityContext.fsGroup: Invalid value: -1: must be between 0 and 2147483647, inclusive, spec.securityContext.runAsUser: Invalid value: -5: must be between 0 and 2147483647, inclusive, spec.securityContext.runAsGroup: Invalid value: 3000000000: must be between 0 and 2147483647, inclusive, spec.securityContext.supplementalGroups[1]: Invalid value: -2: must be between 0 and 2147483647, inclusive]",
  },
  {
    name: "shareProcessNamespace with hostPID",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"shareProcessNamespace":true,"hostPID":true}},
    message: "Pod \"p\" is invalid: spec.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled",
  },
  {
    name: "sysctls: required, well-formed, unique",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"sysctls":[{"name":""},{"name":"Bad.Name","value":"1"},{"name":"kernel.shm_rmid_forced","value":"1"},{"name":"kernel.shm_rmid_forced","value":"0"}]}}},
    message: "Pod \"p\" is invalid: [spec.securityContext.sysctls[0].name: Required value, spec.securityContext.sysctls[1].name: Invalid value: \"Bad.Name\": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$, spec.securityContext.sysctls[3].name: Duplicate value: \"kernel.shm_rmid_forced\"]",
  },
  {
    name: "namespaced sysctls in a namespace shared with the host",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"hostNetwork":true,"hostIPC":true,"securityContext":{"sysctls":[{"name":"net.core.somaxconn","value":"1"},{"name":"kernel.msgmax","value":"1"},{"name":"net/ipv4/ip_forward","value":"1"},{"name":"fs.mqueue.msg_max","value":"1"}]}}},
    message: "Pod \"p\" is invalid: [spec.securityContext.sysctls[0].name: Invalid value: \"net.core.somaxconn\": may not be specified when 'hostNetwork' is true, spec.securityContext.sysctls[1].name: Invalid value: \"kernel.msgmax\": may not be specified when 'hostIPC' is true, spec.securityContext.sysctls[2].name: Invalid value: \"net/ipv4/ip_forward\": may not be specified when 'hostNetwork' is true, spec.securityContext.sysctls[3].name: Invalid value: \"fs.mqueue.msg_max\": may not be specified when 'hostIPC' is true]",
  },
  {
    name: "fsGroupChangePolicy",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"fsGroupChangePolicy":"Sometimes"}}},
    message: "Pod \"p\" is invalid: spec.securityContext.fsGroupChangePolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnRootMismatch\"",
  },
  {
    name: "a Localhost seccomp profile without its path",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"seccompProfile":{"type":"Localhost"}}}},
    message: "Pod \"p\" is invalid: spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost",
  },
  {
    name: "a seccomp localhostProfile that is absolute and climbs up",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"seccompProfile":{"type":"Localhost","localhostProfile":"/abs/../x"}}}},
    message: "Pod \"p\" is invalid: [spec.securityContext.seccompProfile.localhostProfile: Invalid value: \"/abs/../x\": must be a relative path, spec.securityContext.seccompProfile.localhostProfile: Invalid value: \"/abs/../x\": must not contain '..']",
  },
  {
    name: "a seccomp profile without a type",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"seccompProfile":{}}}},
    message: "Pod \"p\" is invalid: spec.securityContext.seccompProfile.type: Required value: type is required when seccompProfile is set",
  },
  {
    name: "an unknown seccomp profile type",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"seccompProfile":{"type":"Bogus"}}}},
    message: "Pod \"p\" is invalid: spec.securityContext.seccompProfile.type: Unsupported value: \"Bogus\": supported values: \"Localhost\", \"RuntimeDefault\", \"Unconfined\"",
  },
  {
    name: "a Localhost AppArmor profile without its name",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"appArmorProfile":{"type":"Localhost"}}}},
    message: "Pod \"p\" is invalid: spec.securityContext.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is Localhost",
  },
  {
    name: "an AppArmor localhostProfile padded with spaces",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"appArmorProfile":{"type":"Localhost","localhostProfile":" x "}}}},
    message: "Pod \"p\" is invalid: spec.securityContext.appArmorProfile.localhostProfile: Invalid value: \" x \": must not be padded with whitespace",
  },
  {
    name: "an AppArmor localhostProfile with type Unconfined",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"appArmorProfile":{"type":"Unconfined","localhostProfile":"x"}}}},
    message: "Pod \"p\" is invalid: spec.securityContext.appArmorProfile.localhostProfile: Invalid value: \"x\": can only be set when AppArmor type is Localhost",
  },
  {
    name: "an AppArmor profile without a type",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"appArmorProfile":{}}}},
    message: "Pod \"p\" is invalid: spec.securityContext.appArmorProfile.type: Required value: type is required when appArmorProfile is set",
  },
  {
    name: "an unknown AppArmor profile type",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"appArmorProfile":{"type":"Bogus"}}}},
    message: "Pod \"p\" is invalid: spec.securityContext.appArmorProfile.type: Unsupported value: \"Bogus\": supported values: \"Localhost\", \"RuntimeDefault\", \"Unconfined\"",
  },
  {
    name: "hostNetwork: a Pod host port that differs from its container port (an unset one is defaulted to it)",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","ports":[{"containerPort":80},{"containerPort":81,"hostPort":82}]}],"hostNetwork":true}},
    message: "Pod \"p\" is invalid: spec.containers[0].ports[1].hostPort: Invalid value: 82: must match `containerPort` when `hostNetwork` is true",
  },
  {
    name: "hostNetwork in a template: an unset host port is fine, a different one is not",
    path: "/apis/apps/v1/namespaces/default/deployments",
    body: {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"hostNetwork":true,"containers":[{"name":"c","image":"x","ports":[{"containerPort":80},{"containerPort":81,"hostPort":82}]}]}}}},
    message: "Deployment.apps \"d\" is invalid: spec.template.spec.containers[0].ports[1].hostPort: Invalid value: 82: must match `containerPort` when `hostNetwork` is true",
  },
  {
    name: "dnsPolicy None without dnsConfig",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"dnsPolicy":"None"}},
    message: "Pod \"p\" is invalid: spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None",
  },
  {
    name: "dnsPolicy None without a nameserver",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"dnsPolicy":"None","dnsConfig":{"searches":["a"]}}},
    message: "Pod \"p\" is invalid: spec.dnsConfig.nameservers: Required value: must provide at least one DNS nameserver when `dnsPolicy` is None",
  },
  {
    name: "dnsConfig: too many nameservers, a bad IP, a bad search domain, an option without a name",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"dnsConfig":{"nameservers":["1.1.1.1","2.2.2.2","3.3.3.3","bad"],"searches":["ok.local.","Bad_Search"],"options":[{"name":"ndots","value":"2"},{"value":"x"}]}}},
    message: "Pod \"p\" is invalid: [spec.dnsConfig.nameservers: Invalid value: []string{\"1.1.1.1\", \"2.2.2.2\", \"3.3.3.3\", \"bad\"}: must not have more than 3 nameservers, spec.dnsConfig.nameservers[3]: Invalid value: \"bad\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), spec.dnsConfig.searches[1]: Invalid value: \"Bad_Search\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.dnsConfig.options[1]: Required value: must not be empty]",
  },
  {
    name: "readiness gates: condition types are qualified names",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"readinessGates":[{"conditionType":"bad key!"},{"conditionType":""}]}},
    message: "Pod \"p\" is invalid: [spec.readinessGates[0].conditionType: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.readinessGates[1].conditionType: Invalid value: \"\": name part must be non-empty, spec.readinessGates[1].conditionType: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]",
  },
  {
    name: "scheduling gates: duplicates and bad names",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"schedulingGates":[{"name":"example.com/gate"},{"name":"example.com/gate"},{"name":"bad gate"}]}},
    message: "Pod \"p\" is invalid: [spec.schedulingGates[1]: Duplicate value: \"example.com/gate\", spec.schedulingGates[2]: Invalid value: \"bad gate\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]",
  },
  {
    name: "host aliases: IPs and host names",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"hostAliases":[{"ip":"bad","hostnames":["ok.local","Bad_Host"]},{"hostnames":["x"]}]}},
    message: "Pod \"p\" is invalid: [spec.hostAliases[0].ip: Invalid value: \"bad\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), spec.hostAliases[0].hostnames[1]: Invalid value: \"Bad_Host\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.hostAliases[1].ip: Invalid value: \"\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)]",
  },
  {
    name: "an unknown preemptionPolicy in a template",
    path: "/apis/apps/v1/namespaces/default/deployments",
    body: {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"preemptionPolicy":"Bogus","containers":[{"name":"c","image":"x"}]}}}},
    message: "Deployment.apps \"d\" is invalid: spec.template.spec.preemptionPolicy: Unsupported value: \"Bogus\": supported values: \"PreemptLowerPriority\", \"Never\"",
  },
  {
    name: "an empty preemptionPolicy in a template",
    path: "/apis/apps/v1/namespaces/default/deployments",
    body: {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"preemptionPolicy":"","containers":[{"name":"c","image":"x"}]}}}},
    message: "Deployment.apps \"d\" is invalid: spec.template.spec.preemptionPolicy: Required value",
  },
  {
    name: "an os without a name",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"os":{}}},
    message: "Pod \"p\" is invalid: spec.os.name: Required value: cannot be empty",
  },
  {
    name: "an unknown os",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"os":{"name":"plan9"}}},
    message: "Pod \"p\" is invalid: spec.os: Unsupported value: \"plan9\": supported values: \"linux\", \"windows\"",
  },
  {
    name: "a linux pod with windows options",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","securityContext":{"windowsOptions":{"runAsUserName":"x"}}}],"os":{"name":"linux"},"securityContext":{"windowsOptions":{"runAsUserName":"x"}}}},
    message: "Pod \"p\" is invalid: [spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod, spec.containers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod]",
  },
  {
    name: "a windows pod with Linux-only fields",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","securityContext":{"privileged":false,"runAsUser":1,"capabilities":{}}}],"os":{"name":"windows"},"hostPID":true,"shareProcessNamespace":false,"securityContext":{"runAsUser":1,"fsGroup":2,"seccompProfile":{"type":"RuntimeDefault"},"supplementalGroups":[1]}}},
    message: "Pod \"p\" is invalid: [spec.hostPID: Forbidden: cannot be set for a windows pod, spec.securityContext.seccompProfile: Forbidden: cannot be set for a windows pod, spec.securityContext.fsGroup: Forbidden: cannot be set for a windows pod, spec.shareProcessNamespace: Forbidden: cannot be set for a windows pod, spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod, spec.securityContext.supplementalGroups: Forbidden: cannot be set for a windows pod, spec.containers[0].securityContext.capabilities: Forbidden: cannot be set for a windows pod, spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod, spec.containers[0].securityContext.runAsUser: Forbidden: cannot be set for a windows pod]",
  },
  {
    name: "a bad runtimeClassName in a template",
    path: "/apis/apps/v1/namespaces/default/deployments",
    body: {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"runtimeClassName":"Bad_RC","containers":[{"name":"c","image":"x"}]}}}},
    message: "Deployment.apps \"d\" is invalid: spec.template.spec.runtimeClassName: Invalid value: \"Bad_RC\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  },
  {
    name: "pod windowsOptions: gMSA credential spec name and content, a user name with two backslashes",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"windowsOptions":{"gmsaCredentialSpecName":"Bad_Name","gmsaCredentialSpec":"","runAsUserName":"a\\b\\c"}}}},
    message: "Pod \"p\" is invalid: [spec.securityContext.windowsOptions.gmsaCredentialSpecName: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.securityContext.windowsOptions.gmsaCredentialSpec: Invalid value: \"\": gmsaCredentialSpec cannot be an empty string, spec.securityContext.windowsOptions.runAsUserName: Invalid value: \"a\\\\b\\\\c\": runAsUserName cannot contain more than one backslash]",
  },
  {
    name: "a runAsUserName whose domain is neither NetBIOS nor DNS and whose user is only dots",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"windowsOptions":{"runAsUserName":"bad*domain\\..."}}}},
    message: "Pod \"p\" is invalid: [spec.securityContext.windowsOptions.runAsUserName: Invalid value: \"bad*domain\\\\...\": runAsUserName's Domain doesn't match the NetBios nor the DNS format, spec.securityContext.windowsOptions.runAsUserName: Invalid value: \"bad*domain\\\\...\": runAsUserName's User cannot contain only periods or spaces]",
  },
  {
    name: "a runAsUserName with an empty user",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"windowsOptions":{"runAsUserName":"DOMAIN\\"}}}},
    message: "Pod \"p\" is invalid: spec.securityContext.windowsOptions.runAsUserName: Invalid value: \"DOMAIN\\\\\": runAsUserName's User cannot be empty",
  },
  {
    name: "a runAsUserName with a forbidden character",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"windowsOptions":{"runAsUserName":"us@er"}}}},
    message: "Pod \"p\" is invalid: spec.securityContext.windowsOptions.runAsUserName: Invalid value: \"us@er\": runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[]",
  },
  {
    name: "a runAsUserName with a control character",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"windowsOptions":{"runAsUserName":"a\tb"}}}},
    message: "Pod \"p\" is invalid: spec.securityContext.windowsOptions.runAsUserName: Invalid value: \"a\\tb\": runAsUserName cannot contain control characters",
  },
  {
    name: "valid Windows user name and gMSA options are accepted",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"windowsOptions":{"runAsUserName":"NT AUTHORITY\\NETWORK SERVICE","gmsaCredentialSpecName":"webapp1","gmsaCredentialSpec":"{}"}}}},
  },
  {
    name: "host-process pods: pod and container settings differ, not all containers host-process, no host network",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"windowsOptions":{"hostProcess":true}},"initContainers":[{"name":"i","image":"x","securityContext":{"windowsOptions":{"hostProcess":false}}}]}},
    message: "Pod \"p\" is invalid: [spec.initContainers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true, spec: Invalid value: \"\": If pod contains any hostProcess containers then all containers must be HostProcess containers, spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers]",
  },
  {
    name: "a Windows host-process pod on the host network is accepted",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"hostNetwork":true,"os":{"name":"windows"},"securityContext":{"windowsOptions":{"hostProcess":true,"runAsUserName":"NT AUTHORITY\\SYSTEM"}}}},
  },
  {
    name: "a new Pod's matchLabelKeys become selector expressions from its labels first, so a key its selector already names is rejected",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"x"}],"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"x"}},"topologyKey":"zone","matchLabelKeys":["app"]}}]}}}},
    message: "Pod \"p\" is invalid: spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm[0]: Invalid value: \"app\": exists in both matchLabelKeys and labelSelector",
  },
  {
    name: "the same term in a template is not merged, so accepted",
    path: "/apis/apps/v1/namespaces/default/deployments",
    body: {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"x"}],"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"x"}},"topologyKey":"zone","matchLabelKeys":["app"]}}]}}}}}},
  },
  {
    name: "a Pod deletion cost that is not a number: reported before the spec",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{"controller.kubernetes.io/pod-deletion-cost":"abc"}},"spec":{"containers":[{"name":"c","image":"x"}],"dnsPolicy":"Bogus"}},
    message: "Pod \"p\" is invalid: [metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: \"abc\": must be a 32bit integer, spec.dnsPolicy: Unsupported value: \"Bogus\": supported values: \"ClusterFirstWithHostNet\", \"ClusterFirst\", \"Default\", \"None\"]",
  },
  {
    name: "a Pod deletion cost with a plus sign",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{"controller.kubernetes.io/pod-deletion-cost":"+10"}},"spec":{"containers":[{"name":"c","image":"x"}]}},
    message: "Pod \"p\" is invalid: metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: \"+10\": must be a 32bit integer",
  },
  {
    name: "a Pod deletion cost with leading zeros",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{"controller.kubernetes.io/pod-deletion-cost":"008"}},"spec":{"containers":[{"name":"c","image":"x"}]}},
    message: "Pod \"p\" is invalid: metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: \"008\": must be a 32bit integer",
  },
  {
    name: "a negative Pod deletion cost with leading zeros parses, so is accepted",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{"controller.kubernetes.io/pod-deletion-cost":"-007"}},"spec":{"containers":[{"name":"c","image":"x"}]}},
  },
  {
    name: "a Pod deletion cost beyond int32",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{"controller.kubernetes.io/pod-deletion-cost":"2147483648"}},"spec":{"containers":[{"name":"c","image":"x"}]}},
    message: "Pod \"p\" is invalid: metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: \"2147483648\": must be a 32bit integer",
  },
  {
    name: "a mirror pod annotation without a node, between the metadata and the spec errors",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"Bad Label":"x"},"annotations":{"kubernetes.io/config.mirror":"abc"}},"spec":{"containers":[{"name":"c","image":"x"}],"dnsPolicy":"Bogus"}},
    message: "Pod \"p\" is invalid: [metadata.labels: Invalid value: \"Bad Label\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), metadata.annotations[kubernetes.io/config.mirror]: Invalid value: \"abc\": must set spec.nodeName if mirror pod annotation is set, spec.dnsPolicy: Unsupported value: \"Bogus\": supported values: \"ClusterFirstWithHostNet\", \"ClusterFirst\", \"Default\", \"None\"]",
  },
  {
    name: "a Deployment template: labels, annotations, pod annotations, spec, then ephemeral containers",
    path: "/apis/apps/v1/namespaces/default/deployments",
    body: {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b","bad key!":"x"},"annotations":{"Bad Ann!":"x","controller.kubernetes.io/pod-deletion-cost":"abc"}},"spec":{"containers":[{"name":"c","image":"x"}],"dnsPolicy":"Bogus","ephemeralContainers":[{"name":"e","image":"x"}]}}}},
    message: "Deployment.apps \"d\" is invalid: [spec.template.labels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.template.annotations: Invalid value: \"Bad Ann!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: \"abc\": must be a 32bit integer, spec.template.spec.dnsPolicy: Unsupported value: \"Bogus\": supported values: \"ClusterFirstWithHostNet\", \"ClusterFirst\", \"Default\", \"None\", spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template]",
  },
  {
    name: "a DaemonSet template with mirror and deletion cost annotations and ephemeral containers",
    path: "/apis/apps/v1/namespaces/default/daemonsets",
    body: {"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"ds"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"},"annotations":{"controller.kubernetes.io/pod-deletion-cost":"abc","kubernetes.io/config.mirror":"m"}},"spec":{"containers":[{"name":"c","image":"x"}],"dnsPolicy":"Bogus","ephemeralContainers":[{"name":"e","image":"x"}]}}}},
    message: "DaemonSet.apps \"ds\" is invalid: [spec.template.annotations[kubernetes.io/config.mirror]: Invalid value: \"m\": must set spec.nodeName if mirror pod annotation is set, spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: \"abc\": must be a 32bit integer, spec.template.spec.dnsPolicy: Unsupported value: \"Bogus\": supported values: \"ClusterFirstWithHostNet\", \"ClusterFirst\", \"Default\", \"None\", spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template]",
  },
  {
    name: "a Job template with a bad deletion cost and ephemeral containers",
    path: "/apis/batch/v1/namespaces/default/jobs",
    body: {"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"template":{"metadata":{"annotations":{"controller.kubernetes.io/pod-deletion-cost":"abc"}},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"x"}],"ephemeralContainers":[{"name":"e","image":"x"}]}}}},
    message: "Job.batch \"j\" is invalid: [spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: \"abc\": must be a 32bit integer, spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template]",
  },
  {
    name: "a PodTemplate with a bad deletion cost and ephemeral containers",
    path: "/api/v1/namespaces/default/podtemplates",
    body: {"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"pt"},"template":{"metadata":{"annotations":{"controller.kubernetes.io/pod-deletion-cost":"abc"}},"spec":{"containers":[{"name":"c","image":"x"}],"ephemeralContainers":[{"name":"e","image":"x"}]}}},
    message: "PodTemplate \"pt\" is invalid: [template.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: \"abc\": must be a 32bit integer, template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template]",
  },
  {
    name: "a ReplicationController template with a bad deletion cost and ephemeral containers",
    path: "/api/v1/namespaces/default/replicationcontrollers",
    body: {"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"rc"},"spec":{"selector":{"a":"b"},"template":{"metadata":{"labels":{"a":"b"},"annotations":{"controller.kubernetes.io/pod-deletion-cost":"abc"}},"spec":{"containers":[{"name":"c","image":"x"}],"ephemeralContainers":[{"name":"e","image":"x"}]}}}},
    message: "ReplicationController \"rc\" is invalid: [spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: \"abc\": must be a 32bit integer, spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template]",
  },
  {
    name: "supplementalGroupsPolicy is behind a disabled gate in 1.32: dropped, not checked",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"securityContext":{"supplementalGroupsPolicy":"Bogus"}}},
  },
  {
    name: "a negative overhead, printed canonically",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"overhead":{"cpu":"-0.5","memory":"10Mi"}}},
    message: "Pod \"p\" is invalid: spec.overhead.limits[cpu]: Invalid value: \"-500m\": must be greater than or equal to 0",
  },
  {
    name: "a new Pod with a node while scheduling gates remain",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"schedulingGates":[{"name":"g"}],"nodeName":"n1"}},
    message: "Pod \"p\" is invalid: spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared",
  },
  {
    name: "a new Pod with ephemeral containers",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"ephemeralContainers":[{"name":"e","image":"x"}]}},
    message: "Pod \"p\" is invalid: spec.ephemeralContainers: Forbidden: cannot be set on create",
  },
  {
    name: "a Deployment as Helm charts write it (affinity, anti-affinity, topology spread, tolerations, securityContext, dnsConfig, hostAliases) is accepted",
    path: "/apis/apps/v1/namespaces/default/deployments",
    body: {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":3,"selector":{"matchLabels":{"app.kubernetes.io/name":"web","app.kubernetes.io/instance":"rel"}},"template":{"metadata":{"labels":{"app.kubernetes.io/name":"web","app.kubernetes.io/instance":"rel"}},"spec":{"serviceAccountName":"rel-web","priorityClassName":"high-priority","securityContext":{"runAsNonRoot":true,"runAsUser":1000,"runAsGroup":1000,"fsGroup":2000,"fsGroupChangePolicy":"OnRootMismatch","supplementalGroups":[3000],"seccompProfile":{"type":"RuntimeDefault"},"sysctls":[{"name":"net.ipv4.ip_unprivileged_port_start","value":"0"}]},"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/os","operator":"In","values":["linux"]},{"key":"kubernetes.io/arch","operator":"NotIn","values":["arm"]}]}]},"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,"preference":{"matchExpressions":[{"key":"node-role.kubernetes.io/worker","operator":"Exists"}]}}]},"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app.kubernetes.io/name":"web","app.kubernetes.io/instance":"rel"}},"topologyKey":"kubernetes.io/hostname"}}],"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchExpressions":[{"key":"app.kubernetes.io/name","operator":"In","values":["web"]}]},"topologyKey":"topology.kubernetes.io/zone","namespaces":["default"]}]},"podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":50,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"cache"}},"namespaceSelector":{},"topologyKey":"kubernetes.io/hostname"}}]}},"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{"matchLabels":{"app.kubernetes.io/name":"web"}}},{"maxSkew":2,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"DoNotSchedule","minDomains":2,"nodeAffinityPolicy":"Honor","nodeTaintsPolicy":"Ignore","labelSelector":{"matchLabels":{"app.kubernetes.io/name":"web"}},"matchLabelKeys":["pod-template-hash"]}],"tolerations":[{"key":"node-role.kubernetes.io/control-plane","operator":"Exists","effect":"NoSchedule"},{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"dedicated","operator":"Equal","value":"web","effect":"NoSchedule"},{"key":"gpu","value":"true"},{"operator":"Exists"}],"nodeSelector":{"kubernetes.io/os":"linux","node.kubernetes.io/instance-type":""},"imagePullSecrets":[{"name":"regcred"}],"dnsPolicy":"ClusterFirstWithHostNet","dnsConfig":{"options":[{"name":"ndots","value":"2"}]},"hostAliases":[{"ip":"127.0.0.1","hostnames":["foo.local","bar.local"]}],"readinessGates":[{"conditionType":"www.example.com/feature-1"}],"hostname":"web","subdomain":"web-headless","enableServiceLinks":false,"terminationGracePeriodSeconds":60,"containers":[{"name":"web","image":"nginx:1.27","ports":[{"name":"http","containerPort":8080}]}]}}}},
  },
  {
    name: "a Pod with dnsPolicy None and its dnsConfig, os linux, a scheduling gate, hostNetwork and Localhost seccomp is accepted",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","ports":[{"containerPort":8080}]}],"dnsPolicy":"None","dnsConfig":{"nameservers":["1.1.1.1","2001:4860:4860::8888"],"searches":["svc.cluster.local.","example.com"],"options":[{"name":"ndots","value":"5"},{"name":"edns0"}]},"os":{"name":"linux"},"schedulingGates":[{"name":"example.com/wait"}],"activeDeadlineSeconds":600,"preemptionPolicy":"PreemptLowerPriority","hostNetwork":true,"securityContext":{"appArmorProfile":{"type":"RuntimeDefault"},"seccompProfile":{"type":"Localhost","localhostProfile":"profiles/audit.json"},"seLinuxOptions":{"level":"s0:c123,c456"}}}},
  },
  {
    name: "a StatefulSet with pod anti-affinity, tolerations and a securityContext is accepted",
    path: "/apis/apps/v1/namespaces/default/statefulsets",
    body: {"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db"},"spec":{"serviceName":"db","selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},"spec":{"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"db"}},"topologyKey":"kubernetes.io/hostname"}]}},"tolerations":[{"key":"db","operator":"Equal","value":"true","effect":"NoSchedule"}],"securityContext":{"fsGroup":999,"runAsUser":999},"containers":[{"name":"db","image":"postgres:16"}]}}}},
  },
  {
    name: "a DaemonSet template with a bad toleration and dnsPolicy",
    path: "/apis/apps/v1/namespaces/default/daemonsets",
    body: {"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"ds"},"spec":{"selector":{"matchLabels":{"app":"ds"}},"template":{"metadata":{"labels":{"app":"ds"}},"spec":{"tolerations":[{"effect":"NoSchedule"}],"dnsPolicy":"Bogus","containers":[{"name":"c","image":"x"}]}}}},
    message: "DaemonSet.apps \"ds\" is invalid: [spec.template.spec.dnsPolicy: Unsupported value: \"Bogus\": supported values: \"ClusterFirstWithHostNet\", \"ClusterFirst\", \"Default\", \"None\", spec.template.spec.tolerations[0].operator: Invalid value: \"\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"]",
  },
  {
    name: "a Job template with minDomains 0 and activeDeadlineSeconds 0",
    path: "/apis/batch/v1/namespaces/default/jobs",
    body: {"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"template":{"spec":{"restartPolicy":"Never","topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","minDomains":0}],"activeDeadlineSeconds":0,"containers":[{"name":"c","image":"x"}]}}}},
    message: "Job.batch \"j\" is invalid: [spec.template.spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: must be greater than zero, spec.template.spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive]",
  },
  {
    name: "a CronJob template with a bad nodeSelector value",
    path: "/apis/batch/v1/namespaces/default/cronjobs",
    body: {"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"cj"},"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure","nodeSelector":{"role":"batch worker"},"containers":[{"name":"c","image":"x"}]}}}}}},
    message: "CronJob.batch \"cj\" is invalid: spec.jobTemplate.spec.template.spec.nodeSelector: Invalid value: \"batch worker\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  },
  {
    name: "a PodTemplate with a bad dnsPolicy",
    path: "/api/v1/namespaces/default/podtemplates",
    body: {"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"pt"},"template":{"spec":{"dnsPolicy":"Bogus","containers":[{"name":"c","image":"x"}]}}},
    message: "PodTemplate \"pt\" is invalid: template.spec.dnsPolicy: Unsupported value: \"Bogus\": supported values: \"ClusterFirstWithHostNet\", \"ClusterFirst\", \"Default\", \"None\"",
  },
  {
    name: "a ReplicationController template with a bad dnsPolicy",
    path: "/api/v1/namespaces/default/replicationcontrollers",
    body: {"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"rc"},"spec":{"selector":{"a":"b"},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"dnsPolicy":"Bogus","containers":[{"name":"c","image":"x"}]}}}},
    message: "ReplicationController \"rc\" is invalid: spec.template.spec.dnsPolicy: Unsupported value: \"Bogus\": supported values: \"ClusterFirstWithHostNet\", \"ClusterFirst\", \"Default\", \"None\"",
  },
];

validationCases(cases, server);

test('a hostNetwork Pod has its container ports defaulted as host ports, as upstream defaults them', async () => {
  const r = await server().request('POST', '/api/v1/namespaces/default/pods?dryRun=All', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'hn' },
    spec: { hostNetwork: true, containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 8080 }] }] },
  });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.json.spec.containers[0].ports[0].hostPort, 8080);
});

test("a new Pod's pod affinity matchLabelKeys and mismatchLabelKeys are merged into the term's selector from its labels, as kube-apiserver stores them", async () => {
  const r = await server().request('POST', '/api/v1/namespaces/default/pods?dryRun=All', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'mlk', labels: { app: 'x', team: 't' } },
    spec: {
      containers: [{ name: 'c', image: 'x' }],
      affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { tier: 'web' } }, topologyKey: 'zone', matchLabelKeys: ['app', 'missing'], mismatchLabelKeys: ['team'] }] } },
    },
  });
  assert.equal(r.status, 201, r.text);
  // kube-apiserver v1.32.4's answer to the same dry-run POST.
  assert.deepEqual(r.json.spec.affinity, {
    podAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        {
          labelSelector: { matchLabels: { tier: 'web' }, matchExpressions: [{ key: 'app', operator: 'In', values: ['x'] }, { key: 'team', operator: 'NotIn', values: ['t'] }] },
          topologyKey: 'zone',
          matchLabelKeys: ['app', 'missing'],
          mismatchLabelKeys: ['team'],
        },
      ],
    },
  });
});

/**
 * Pod updates: activeDeadlineSeconds only set or lowered, tolerations only added (existing ones only changing their
 * tolerationSeconds), scheduling gates only removed — kube-apiserver v1.32.4's answers to dry-run PUTs of the same
 * changes to the same Pod (its DefaultTolerationSeconds admission adds two tolerations there, which none of these
 * changes touch).
 */
interface Spec {
  schedulingGates?: { name: string }[];
  tolerations: { key: string; operator?: string; value?: string; tolerationSeconds?: number }[];
  activeDeadlineSeconds?: number;
}
const updates: { name: string; change: (s: Spec) => void; message?: string }[] = [
  { name: "remove one gate", change: (s) => { s.schedulingGates = [{ name: 'g2' }]; }, message: undefined },
  { name: "remove all gates", change: (s) => { delete s.schedulingGates; }, message: undefined },
  { name: "add a gate", change: (s) => { s.schedulingGates!.push({ name: 'g3' }); }, message: "Pod \"u\" is invalid: spec.schedulingGates[2].name: Forbidden: only deletion is allowed, but found new scheduling gate 'g3'" },
  { name: "add a toleration", change: (s) => { s.tolerations.push({ key: 'c', operator: 'Exists' }); }, message: undefined },
  { name: "change tolerationSeconds", change: (s) => { s.tolerations[0]!.tolerationSeconds = 20; }, message: undefined },
  { name: "modify a toleration", change: (s) => { s.tolerations[1]!.value = 'w'; }, message: "Pod \"u\" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds" },
  { name: "remove a toleration", change: (s) => { s.tolerations = s.tolerations.filter((t) => t.key !== 'b'); }, message: "Pod \"u\" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds" },
  { name: "lower activeDeadlineSeconds", change: (s) => { s.activeDeadlineSeconds = 50; }, message: undefined },
  { name: "raise activeDeadlineSeconds", change: (s) => { s.activeDeadlineSeconds = 200; }, message: "Pod \"u\" is invalid: spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value" },
  { name: "unset activeDeadlineSeconds", change: (s) => { delete s.activeDeadlineSeconds; }, message: "Pod \"u\" is invalid: spec.activeDeadlineSeconds: Invalid value: \"null\": must not update from a positive integer to nil value" },
  { name: "activeDeadlineSeconds 0", change: (s) => { s.activeDeadlineSeconds = 0; }, message: "Pod \"u\" is invalid: spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive" },
  { name: "activeDeadlineSeconds -1", change: (s) => { s.activeDeadlineSeconds = -1; }, message: "Pod \"u\" is invalid: [spec.activeDeadlineSeconds: Invalid value: -1: must be between 1 and 2147483647, inclusive, spec.activeDeadlineSeconds: Invalid value: -1: must be between 0 and 2147483647, inclusive]" },
  { name: "modify toleration and add gate", change: (s) => { s.tolerations[1]!.value = 'w'; s.schedulingGates!.push({ name: 'g3' }); }, message: "Pod \"u\" is invalid: [spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds, spec.schedulingGates[2].name: Forbidden: only deletion is allowed, but found new scheduling gate 'g3']" },
];

test('pod updates: the rules for activeDeadlineSeconds, tolerations and scheduling gates', async () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'u' },
    spec: {
      containers: [{ name: 'c', image: 'x' }],
      activeDeadlineSeconds: 100,
      tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }, { key: 'b', operator: 'Equal', value: 'v' }],
      schedulingGates: [{ name: 'g1' }, { name: 'g2' }],
    },
  };
  assert.equal((await server().request('POST', '/api/v1/namespaces/default/pods', pod)).status, 201);
  for (const u of updates) {
    // The current Pod each time (the scheduler or kubelet may have written it), changed and sent without a resourceVersion.
    const current = (await server().request('GET', '/api/v1/namespaces/default/pods/u')).json;
    delete current.metadata.resourceVersion;
    u.change(current.spec);
    const r = await server().request('PUT', '/api/v1/namespaces/default/pods/u?dryRun=All', current);
    if (u.message === undefined) assert.equal(r.status, 200, `${u.name}: ${r.text}`);
    else {
      assert.equal(r.status, 422, `${u.name}: ${r.text}`);
      assert.equal(r.json.message, u.message, u.name);
    }
  }
});
