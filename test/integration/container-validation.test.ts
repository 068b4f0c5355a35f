/**
 * Containers and init containers are validated as kube-apiserver 1.32 validates them (container-validation.ts and its
 * env, probe, securityContext and resources parts), in a simulated cluster. The expected messages are kube-apiserver
 * v1.32.4's own answers to the same requests (dry-run POSTs to the binary the `kube` benchmark builds), so a
 * difference in wording, order or what is caught fails here. Two kinds of message print a Go struct with pointer
 * addresses, which differ on every request; those are compared with the addresses masked.
 */
import { useValidationCluster, validationCases, type ValidationCase } from '../helpers/validation-cases.js';

const server = useValidationCluster('container-validation');

/** Go pointers print as addresses that change per request. */
const maskAddresses = (message: string): string => message.replace(/\(0x[0-9a-f]+\)/g, '(0x…)');

const cases: ValidationCase[] = [
  {
    name: "env names: required, then 1.32's relaxed rule (printable ASCII but '='; a space or a leading digit is fine)",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","env":[{"name":""},{"name":"1a=b"},{"name":"with space ok"},{"name":"ü"},{"name":"tab\there"},{"name":"GOOD_1","value":"v"}]}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].env[0].name: Required value, spec.containers[0].env[1].name: Invalid value: \"1a=b\": a valid environment variable name must consist only of printable ASCII characters other than '=', spec.containers[0].env[3].name: Invalid value: \"ü\": a valid environment variable name must consist only of printable ASCII characters other than '=', spec.containers[0].env[4].name: Invalid value: \"tab\\there\": a valid environment variable name must consist only of printable ASCII characters other than '=']",
  },
  {
    name: "env valueFrom: exactly one source, and no value beside it",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","env":[{"name":"a","valueFrom":{}},{"name":"b","value":"v","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},{"name":"c","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"},"secretKeyRef":{"name":"s","key":"k"}}},{"name":"d","value":"v","valueFrom":{}},{"name":"e","value":"v","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"},"configMapKeyRef":{"name":"s","key":"k"}}}]}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].env[0].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`, spec.containers[0].env[1].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty, spec.containers[0].env[2].valueFrom: Invalid value: \"\": may not have more than one field specified at a time, spec.containers[0].env[3].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`, spec.containers[0].env[4].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty]",
  },
  {
    name: "env fieldRef: the paths env may read, apiVersion v1, subscripts only on labels and annotations",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","env":[{"name":"a","valueFrom":{"fieldRef":{}}},{"name":"b","valueFrom":{"fieldRef":{"apiVersion":"v2","fieldPath":"metadata.name"}}},{"name":"c","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"status.phase"}}},{"name":"d","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels"}}},{"name":"e","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName['x']"}}},{"name":"f","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['a b']"}}},{"name":"g","valueFrom":{"fieldRef":{"fieldPath":"metadata.annotations['Foo/Bar']"}}},{"name":"h","valueFrom":{"fieldRef":{"fieldPath":"spec.host"}}},{"name":"i","valueFrom":{"fieldRef":{"fieldPath":"nonsense"}}},{"name":"j","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['app.kubernetes.io/name']"}}},{"name":"k","valueFrom":{"fieldRef":{"fieldPath":"metadata.annotations['-x']"}}},{"name":"l","valueFrom":{"fieldRef":{"fieldPath":"['x']"}}}]}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Required value, spec.containers[0].env[1].valueFrom.fieldRef.fieldPath: Invalid value: \"metadata.name\": error converting fieldPath: unsupported pod version: v2, spec.containers[0].env[2].valueFrom.fieldRef.fieldPath: Unsupported value: \"status.phase\": supported values: \"metadata.name\", \"metadata.namespace\", \"metadata.uid\", \"spec.nodeName\", \"spec.serviceAccountName\", \"status.hostIP\", \"status.hostIPs\", \"status.podIP\", \"status.podIPs\", spec.containers[0].env[3].valueFrom.fieldRef.fieldPath: Unsupported value: \"metadata.labels\": supported values: \"metadata.name\", \"metadata.namespace\", \"metadata.uid\", \"spec.nodeName\", \"spec.serviceAccountName\", \"status.hostIP\", \"status.hostIPs\", \"status.podIP\", \"status.podIPs\", spec.containers[0].env[4].valueFrom.fieldRef.fieldPath: Invalid value: \"spec.nodeName['x']\": error converting fieldPath: field label does not support subscript: spec.nodeName['x'], spec.containers[0].env[5].valueFrom.fieldRef: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.containers[0].env[8].valueFrom.fieldRef.fieldPath: Invalid value: \"nonsense\": error converting fieldPath: field label not supported: nonsense, spec.containers[0].env[10].valueFrom.fieldRef: Invalid value: \"-x\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.containers[0].env[11].valueFrom.fieldRef.fieldPath: Invalid value: \"['x']\": error converting fieldPath: field label not supported: ['x']]",
  },
  {
    name: "env resourceFieldRef: a container resource (hugepages by prefix), and a divisor the resource's unit allows",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","env":[{"name":"a","valueFrom":{"resourceFieldRef":{}}},{"name":"b","valueFrom":{"resourceFieldRef":{"resource":"limits.gpu"}}},{"name":"c","valueFrom":{"resourceFieldRef":{"resource":"requests.hugepages-2Mi"}}},{"name":"d","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu","divisor":"2"}}},{"name":"e","valueFrom":{"resourceFieldRef":{"resource":"limits.memory","divisor":"1Mi"}}},{"name":"f","valueFrom":{"resourceFieldRef":{"resource":"limits.memory","divisor":"3Mi"}}},{"name":"g","valueFrom":{"resourceFieldRef":{"resource":"requests.ephemeral-storage","divisor":"1m"}}},{"name":"h","valueFrom":{"resourceFieldRef":{"resource":"limits.hugepages-1Gi","divisor":"5"}}},{"name":"i","valueFrom":{"resourceFieldRef":{"resource":"requests.cpu","divisor":"1m","containerName":"nope"}}},{"name":"j","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu","divisor":"1000m"}}},{"name":"k","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu","divisor":"0"}}},{"name":"l","valueFrom":{"resourceFieldRef":{"resource":"","divisor":"7"}}}]}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].env[0].valueFrom.resourceFieldRef.resource: Required value, spec.containers[0].env[1].valueFrom.resourceFieldRef.resource: Unsupported value: \"limits.gpu\": supported values: \"limits.cpu\", \"limits.ephemeral-storage\", \"limits.memory\", \"requests.cpu\", \"requests.ephemeral-storage\", \"requests.memory\", spec.containers[0].env[3].valueFrom.resourceFieldRef.divisor: Invalid value: \"limits.cpu\": only divisor's values 1m and 1 are supported with the cpu resource, spec.containers[0].env[5].valueFrom.resourceFieldRef.divisor: Invalid value: \"limits.memory\": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource, spec.containers[0].env[6].valueFrom.resourceFieldRef.divisor: Invalid value: \"requests.ephemeral-storage\": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource, spec.containers[0].env[7].valueFrom.resourceFieldRef.divisor: Invalid value: \"limits.hugepages-1Gi\": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the hugepages resource, spec.containers[0].env[11].valueFrom.resourceFieldRef.resource: Required value]",
  },
  {
    name: "env configMapKeyRef and secretKeyRef: a valid name (even when empty) and a required, valid key",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","env":[{"name":"a","valueFrom":{"configMapKeyRef":{}}},{"name":"b","valueFrom":{"secretKeyRef":{}}},{"name":"c","valueFrom":{"configMapKeyRef":{"name":"Bad_Name","key":"bad key"}}},{"name":"d","valueFrom":{"secretKeyRef":{"name":"ok","key":".."}}},{"name":"e","valueFrom":{"secretKeyRef":{"name":"ok","key":"k","optional":true}}}]}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].env[0].valueFrom.configMapKeyRef.name: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.containers[0].env[0].valueFrom.configMapKeyRef.key: Required value, spec.containers[0].env[1].valueFrom.secretKeyRef.name: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.containers[0].env[1].valueFrom.secretKeyRef.key: Required value, spec.containers[0].env[2].valueFrom.configMapKeyRef.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.containers[0].env[2].valueFrom.configMapKeyRef.key: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+'), spec.containers[0].env[3].valueFrom.secretKeyRef.key: Invalid value: \"..\": must not be '..']",
  },
  {
    name: "envFrom: prefix, names, and exactly one source (those errors name the list)",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","envFrom":[{},{"prefix":"P=","configMapRef":{"name":"x"}},{"configMapRef":{}},{"secretRef":{"name":"Bad_Name"}},{"configMapRef":{"name":"a"},"secretRef":{"name":"b"}},{"prefix":"OK_","secretRef":{"name":"s"}},{"configMapRef":{"name":"x-"}}]}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].envFrom: Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`, spec.containers[0].envFrom[1].prefix: Invalid value: \"P=\": a valid environment variable name must consist only of printable ASCII characters other than '=', spec.containers[0].envFrom[2].configMapRef.name: Required value, spec.containers[0].envFrom[3].secretRef.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.containers[0].envFrom: Invalid value: \"\": may not have more than one field specified at a time]",
  },
  {
    name: "imagePullPolicy and terminationMessagePolicy must be known values",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","imagePullPolicy":"always","terminationMessagePolicy":"Log"}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].terminationMessagePolicy: Unsupported value: \"Log\": supported values: \"File\", \"FallbackToLogsOnError\", spec.containers[0].imagePullPolicy: Unsupported value: \"always\": supported values: \"Always\", \"IfNotPresent\", \"Never\"]",
  },
  {
    name: "a missing image is reported alone (its pull policy is defaulted)",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}},
    message: "Pod \"p\" is invalid: spec.containers[0].image: Required value",
  },
  {
    name: "a blank image in a Pod is not Required but padded",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":" "}]}},
    message: "Pod \"p\" is invalid: spec.containers[0].image: Invalid value: \" \": must not have leading or trailing whitespace",
  },
  {
    name: "a padded image in a Deployment template is accepted, as upstream keeps templates lenient",
    path: "/apis/apps/v1/namespaces/default/deployments",
    body: {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":" x"}]}}}},
  },
  {
    name: "an init container's padded image in a Pod",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"initContainers":[{"name":"i","image":"x\t"}]}},
    message: "Pod \"p\" is invalid: spec.initContainers[0].image: Invalid value: \"x\\t\": must not have leading or trailing whitespace",
  },
  {
    name: "container names are unique across containers and init containers",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"},{"name":"c","image":"x"}],"initContainers":[{"name":"c","image":"x"},{"name":"i","image":"x"},{"name":"i","image":"x"},{"name":"","image":"x"},{"name":"","image":"x"}]}},
    message: "Pod \"p\" is invalid: [spec.containers[1].name: Duplicate value: \"c\", spec.initContainers[0].name: Duplicate value: \"c\", spec.initContainers[2].name: Duplicate value: \"i\", spec.initContainers[3].name: Required value, spec.initContainers[4].name: Required value]",
  },
  {
    name: "two unnamed containers: each Required, the second also a Duplicate",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"","image":"x"},{"name":"","image":"x"}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].name: Required value, spec.containers[1].name: Required value, spec.containers[1].name: Duplicate value: \"\"]",
  },
  {
    name: "every per-container check at once, in upstream's order",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"Bad","terminationMessagePolicy":"x","ports":[{"containerPort":0}],"env":[{"name":""}],"envFrom":[{}],"volumeMounts":[{"name":"v","mountPath":"/"}],"imagePullPolicy":"x","resources":{"limits":{"cpu":"-1"}},"securityContext":{"runAsUser":-1},"restartPolicy":"Always","livenessProbe":{},"lifecycle":{"preStop":{}},"readinessProbe":{},"startupProbe":{}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].name: Invalid value: \"Bad\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.containers[0].image: Required value, spec.containers[0].terminationMessagePolicy: Unsupported value: \"x\": supported values: \"File\", \"FallbackToLogsOnError\", spec.containers[0].ports[0].containerPort: Required value, spec.containers[0].env[0].name: Required value, spec.containers[0].envFrom: Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`, spec.containers[0].volumeMounts[0].name: Not found: \"v\", spec.containers[0].imagePullPolicy: Unsupported value: \"x\": supported values: \"Always\", \"IfNotPresent\", \"Never\", spec.containers[0].resources.limits[cpu]: Invalid value: \"-1\": must be greater than or equal to 0, spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": must be greater than or equal to 0, spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive, spec.containers[0].lifecycle.preStop: Required value: must specify a handler type, spec.containers[0].livenessProbe: Required value: must specify a handler type, spec.containers[0].readinessProbe: Required value: must specify a handler type, spec.containers[0].startupProbe: Required value: must specify a handler type, spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers]",
  },
  {
    name: "probe handlers: one type only; exec command, httpGet port, scheme and header names",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","livenessProbe":{"exec":{},"httpGet":{"port":80},"tcpSocket":{"port":1},"grpc":{"port":2}},"readinessProbe":{"httpGet":{"port":"Bad_Port","scheme":"http","httpHeaders":[{"name":"X Bad","value":"v"},{"name":"","value":""}]}},"startupProbe":{"tcpSocket":{"port":0}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].livenessProbe.exec.command: Required value, spec.containers[0].livenessProbe.httpGet: Forbidden: may not specify more than 1 handler type, spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type, spec.containers[0].livenessProbe.grpc: Forbidden: may not specify more than 1 handler type, spec.containers[0].readinessProbe.httpGet.port: Invalid value: \"Bad_Port\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-), spec.containers[0].readinessProbe.httpGet.scheme: Unsupported value: \"http\": supported values: \"HTTP\", \"HTTPS\", spec.containers[0].readinessProbe.httpGet.httpHeaders: Invalid value: \"X Bad\": a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+'), spec.containers[0].readinessProbe.httpGet.httpHeaders: Invalid value: \"\": a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+'), spec.containers[0].startupProbe.tcpSocket.port: Invalid value: 0: must be between 1 and 65535, inclusive]",
  },
  {
    name: "a handler without a port: port 0 is out of range",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","livenessProbe":{"httpGet":{}},"readinessProbe":{"tcpSocket":{}},"startupProbe":{"grpc":{}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].livenessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive, spec.containers[0].readinessProbe.tcpSocket.port: Invalid value: 0: must be between 1 and 65535, inclusive, spec.containers[0].startupProbe.grpc.port: Invalid value: 0: must be between 1 and 65535, inclusive]",
  },
  {
    name: "probe timings and thresholds: non-negative; successThreshold 1 for liveness and startup; readiness may not set terminationGracePeriodSeconds",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","livenessProbe":{"exec":{"command":["true"]},"initialDelaySeconds":-1,"timeoutSeconds":-2,"periodSeconds":-3,"successThreshold":2,"failureThreshold":-4,"terminationGracePeriodSeconds":0},"readinessProbe":{"exec":{"command":["true"]},"successThreshold":-1,"terminationGracePeriodSeconds":5},"startupProbe":{"exec":{"command":["true"]},"successThreshold":3,"terminationGracePeriodSeconds":-1}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].livenessProbe.initialDelaySeconds: Invalid value: -1: must be greater than or equal to 0, spec.containers[0].livenessProbe.timeoutSeconds: Invalid value: -2: must be greater than or equal to 0, spec.containers[0].livenessProbe.periodSeconds: Invalid value: -3: must be greater than or equal to 0, spec.containers[0].livenessProbe.failureThreshold: Invalid value: -4: must be greater than or equal to 0, spec.containers[0].livenessProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0, spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1, spec.containers[0].readinessProbe.successThreshold: Invalid value: -1: must be greater than or equal to 0, spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes, spec.containers[0].startupProbe.terminationGracePeriodSeconds: Invalid value: -1: must be greater than 0, spec.containers[0].startupProbe.successThreshold: Invalid value: 3: must be 1]",
  },
  {
    name: "probe timings of 0 are defaulted, so successThreshold 0 on a liveness probe is accepted",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","livenessProbe":{"exec":{"command":["true"]},"timeoutSeconds":0,"periodSeconds":0,"successThreshold":0,"failureThreshold":0},"startupProbe":{"exec":{"command":["true"]},"successThreshold":0}}]}},
  },
  {
    name: "a probe cannot sleep: a probe with only a sleep action has no handler",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","livenessProbe":{"sleep":{"seconds":1}}}]}},
    message: "Pod \"p\" is invalid: spec.containers[0].livenessProbe: Required value: must specify a handler type",
  },
  {
    name: "lifecycle hooks: one handler each; a sleep must be within the grace period",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","lifecycle":{"postStart":{"exec":{"command":[]},"sleep":{"seconds":1}},"preStop":{"sleep":{"seconds":0}}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].lifecycle.postStart.exec.command: Required value, spec.containers[0].lifecycle.postStart.sleep: Forbidden: may not specify more than 1 handler type, spec.containers[0].lifecycle.preStop.sleep: Invalid value: 0: must be greater than 0 and less than terminationGracePeriodSeconds (30). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.]",
  },
  {
    name: "a preStop sleep longer than the pod's terminationGracePeriodSeconds",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","lifecycle":{"preStop":{"sleep":{"seconds":31}}}}]}},
    message: "Pod \"p\" is invalid: spec.containers[0].lifecycle.preStop.sleep: Invalid value: 31: must be greater than 0 and less than terminationGracePeriodSeconds (30). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.",
  },
  {
    name: "a preStop sleep within a longer grace period is accepted",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","lifecycle":{"preStop":{"sleep":{"seconds":45}},"postStart":{"httpGet":{"port":8080}}}}],"terminationGracePeriodSeconds":60}},
  },
  {
    name: "a lifecycle hook cannot use gRPC: a hook with only grpc has no handler",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","lifecycle":{"postStart":{"grpc":{"port":1}}}}]}},
    message: "Pod \"p\" is invalid: spec.containers[0].lifecycle.postStart: Required value: must specify a handler type",
  },
  {
    name: "init containers without restartPolicy Always may not have hooks or probes",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"initContainers":[{"name":"i","image":"x","lifecycle":{"preStop":{"exec":{}}},"livenessProbe":{"exec":{}},"readinessProbe":{},"startupProbe":{}}]}},
    message: "Pod \"p\" is invalid: [spec.initContainers[0].lifecycle: Forbidden: may not be set for init containers without restartPolicy=Always, spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always, spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always, spec.initContainers[0].startupProbe: Forbidden: may not be set for init containers without restartPolicy=Always]",
  },
  {
    name: "sidecars (restartPolicy Always) get the regular containers' hook and probe checks",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"initContainers":[{"name":"i","image":"x","restartPolicy":"Always","lifecycle":{"preStop":{"exec":{}}},"livenessProbe":{"exec":{"command":["a"]},"successThreshold":2},"readinessProbe":{},"startupProbe":{"tcpSocket":{"port":"x"}}}]}},
    message: "Pod \"p\" is invalid: [spec.initContainers[0].lifecycle.preStop.exec.command: Required value, spec.initContainers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1, spec.initContainers[0].readinessProbe: Required value: must specify a handler type]",
  },
  {
    name: "restartPolicy: forbidden on containers, only Always on init containers",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","restartPolicy":"Never"}],"initContainers":[{"name":"i","image":"x","restartPolicy":"OnFailure"},{"name":"j","image":"x","restartPolicy":"Never","livenessProbe":{}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers, spec.initContainers[0].restartPolicy: Unsupported value: \"OnFailure\": supported values: \"Always\", spec.initContainers[1].restartPolicy: Unsupported value: \"Never\": supported values: \"Always\", spec.initContainers[1].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always]",
  },
  {
    name: "host port conflicts: across containers, within each init container (upstream names it initContainers[0])",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","ports":[{"containerPort":80,"hostPort":80},{"containerPort":81,"hostPort":80},{"containerPort":82,"hostPort":80,"protocol":"UDP"}]},{"name":"d","image":"x","ports":[{"containerPort":80,"hostPort":80,"hostIP":"1.2.3.4"},{"containerPort":80,"hostPort":80}]}],"initContainers":[{"name":"i","image":"x","ports":[{"containerPort":80,"hostPort":80}]},{"name":"j","image":"x","ports":[{"containerPort":80,"hostPort":9},{"containerPort":81,"hostPort":9}]}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].ports[1].hostPort: Duplicate value: \"TCP//80\", spec.containers[1].ports[1].hostPort: Duplicate value: \"TCP//80\", spec.initContainers[0].ports[1].hostPort: Duplicate value: \"TCP//9\"]",
  },
  {
    name: "resizePolicy is dropped by 1.32 (InPlacePodVerticalScaling off), so any value is accepted",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","resizePolicy":[{"resourceName":"gpu","restartPolicy":"x"}]}]}},
  },
  {
    name: "securityContext: runAsUser and runAsGroup in range; privileged allowed",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","securityContext":{"runAsUser":2147483648,"runAsGroup":-5,"privileged":true}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].securityContext.runAsUser: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive, spec.containers[0].securityContext.runAsGroup: Invalid value: -5: must be between 0 and 2147483647, inclusive]",
  },
  {
    name: "securityContext.procMount is dropped by 1.32 (ProcMountType off), so any value is accepted",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","securityContext":{"procMount":"Weird"}},{"name":"d","image":"x","securityContext":{"procMount":"Unmasked"}}]}},
  },
  {
    name: "securityContext.seccompProfile: type, and a localhost profile exactly for Localhost",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","securityContext":{"seccompProfile":{}}},{"name":"d","image":"x","securityContext":{"seccompProfile":{"type":"Nope"}}},{"name":"e","image":"x","securityContext":{"seccompProfile":{"type":"Localhost"}}},{"name":"f","image":"x","securityContext":{"seccompProfile":{"type":"Localhost","localhostProfile":"/abs/../x"}}},{"name":"g","image":"x","securityContext":{"seccompProfile":{"type":"RuntimeDefault","localhostProfile":"x"}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].securityContext.seccompProfile.type: Required value: type is required when seccompProfile is set, spec.containers[1].securityContext.seccompProfile.type: Unsupported value: \"Nope\": supported values: \"Localhost\", \"RuntimeDefault\", \"Unconfined\", spec.containers[2].securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost, spec.containers[3].securityContext.seccompProfile.localhostProfile: Invalid value: \"/abs/../x\": must be a relative path, spec.containers[3].securityContext.seccompProfile.localhostProfile: Invalid value: \"/abs/../x\": must not contain '..', spec.containers[4].securityContext.seccompProfile.localhostProfile: Invalid value: core.SeccompProfile{Type:\"RuntimeDefault\", LocalhostProfile:(*string)(0xe1164054700)}: can only be set when seccomp type is Localhost]",
  },
  {
    name: "allowPrivilegeEscalation false with privileged or CAP_SYS_ADMIN (upstream prints the whole struct)",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","securityContext":{"allowPrivilegeEscalation":false,"privileged":true,"capabilities":{"add":["CAP_SYS_ADMIN","NET_ADMIN"]}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].securityContext: Invalid value: core.SecurityContext{Capabilities:(*core.Capabilities)(0xe1164eb5890), Privileged:(*bool)(0xe1161aaad5e), SELinuxOptions:(*core.SELinuxOptions)(nil), WindowsOptions:(*core.WindowsSecurityContextOptions)(nil), RunAsUser:(*int64)(nil), RunAsGroup:(*int64)(nil), RunAsNonRoot:(*bool)(nil), ReadOnlyRootFilesystem:(*bool)(nil), AllowPrivilegeEscalation:(*bool)(0xe1161aaad5d), ProcMount:(*core.ProcMountType)(nil), SeccompProfile:(*core.SeccompProfile)(nil), AppArmorProfile:(*core.AppArmorProfile)(nil)}: cannot set `allowPrivilegeEscalation` to false and `privileged` to true, spec.containers[0].securityContext: Invalid value: core.SecurityContext{Capabilities:(*core.Capabilities)(0xe1164eb5890), Privileged:(*bool)(0xe1161aaad5e), SELinuxOptions:(*core.SELinuxOptions)(nil), WindowsOptions:(*core.WindowsSecurityContextOptions)(nil), RunAsUser:(*int64)(nil), RunAsGroup:(*int64)(nil), RunAsNonRoot:(*bool)(nil), ReadOnlyRootFilesystem:(*bool)(nil), AllowPrivilegeEscalation:(*bool)(0xe1161aaad5d), ProcMount:(*core.ProcMountType)(nil), SeccompProfile:(*core.SeccompProfile)(nil), AppArmorProfile:(*core.AppArmorProfile)(nil)}: cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN]",
  },
  {
    name: "securityContext.appArmorProfile: type, and an unpadded localhost profile exactly for Localhost",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","securityContext":{"appArmorProfile":{}}},{"name":"d","image":"x","securityContext":{"appArmorProfile":{"type":"Bad"}}},{"name":"e","image":"x","securityContext":{"appArmorProfile":{"type":"Localhost"}}},{"name":"f","image":"x","securityContext":{"appArmorProfile":{"type":"Localhost","localhostProfile":" x"}}},{"name":"g","image":"x","securityContext":{"appArmorProfile":{"type":"Localhost","localhostProfile":""}}},{"name":"h","image":"x","securityContext":{"appArmorProfile":{"type":"Unconfined","localhostProfile":"x"}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].securityContext.appArmorProfile.type: Required value: type is required when appArmorProfile is set, spec.containers[1].securityContext.appArmorProfile.type: Unsupported value: \"Bad\": supported values: \"Localhost\", \"RuntimeDefault\", \"Unconfined\", spec.containers[2].securityContext.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is Localhost, spec.containers[3].securityContext.appArmorProfile.localhostProfile: Invalid value: \" x\": must not be padded with whitespace, spec.containers[4].securityContext.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is Localhost, spec.containers[5].securityContext.appArmorProfile.localhostProfile: Invalid value: \"x\": can only be set when AppArmor type is Localhost]",
  },
  {
    name: "securityContext.windowsOptions: GMSA spec name and contents, runAsUserName",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","securityContext":{"windowsOptions":{"gmsaCredentialSpecName":"Bad_","gmsaCredentialSpec":"","runAsUserName":""}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpecName: Invalid value: \"Bad_\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpec: Invalid value: \"\": gmsaCredentialSpec cannot be an empty string, spec.containers[0].securityContext.windowsOptions.runAsUserName: Invalid value: \"\": runAsUserName cannot be an empty string]",
  },
  {
    name: "a hardened securityContext is accepted",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","securityContext":{"runAsUser":0,"runAsGroup":2147483647,"runAsNonRoot":true,"readOnlyRootFilesystem":true,"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"],"add":["NET_BIND_SERVICE"]},"seccompProfile":{"type":"Localhost","localhostProfile":"profiles/a.json"},"appArmorProfile":{"type":"Localhost","localhostProfile":"k8s-apparmor"}}}]}},
  },
  {
    name: "resources: names, requests within limits, extended resources equal",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"cpu":"1","memory":"1Gi","example.com/gpu":"1"},"requests":{"cpu":"2","memory":"2Gi","example.com/gpu":"2","Bad Name":"1"}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1, spec.containers[0].resources.requests: Invalid value: \"2Gi\": must be less than or equal to memory limit of 1Gi, spec.containers[0].resources.requests: Invalid value: \"2\": must be equal to example.com/gpu limit of 1, spec.containers[0].resources.requests[Bad Name]: Invalid value: Bad Name: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.containers[0].resources.requests[Bad Name]: Invalid value: Bad Name: must be a standard resource for containers]",
  },
  {
    name: "hugepages need cpu or memory beside them",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"hugepages-2Mi":"2Mi"}}}]}},
    message: "Pod \"p\" is invalid: spec.containers[0].resources: Forbidden: HugePages require cpu or memory",
  },
  {
    name: "an extended resource must be whole (upstream prints the Quantity struct)",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"example.com/gpu":"500m"}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].resources.limits[example.com/gpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"500m\", Format:\"DecimalSI\"}: must be an integer, spec.containers[0].resources.requests[example.com/gpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"500m\", Format:\"DecimalSI\"}: must be an integer]",
  },
  {
    name: "an extended resource request needs a limit",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","resources":{"requests":{"example.com/gpu":"1"}}}]}},
    message: "Pod \"p\" is invalid: spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources",
  },
  {
    name: "a plain resource name must be a standard one a container may use",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"foo":"1"}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].resources.limits[foo]: Invalid value: foo: must be a standard resource type or fully qualified, spec.containers[0].resources.limits[foo]: Invalid value: foo: must be a standard resource for containers, spec.containers[0].resources.requests[foo]: Invalid value: foo: must be a standard resource type or fully qualified, spec.containers[0].resources.requests[foo]: Invalid value: foo: must be a standard resource for containers]",
  },
  {
    name: "an extended resource name may not start with requests.",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"requests.example.com/x":"1"}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].resources.limits[requests.example.com/x]: Invalid value: requests.example.com/x: doesn't follow extended resource name standard, spec.containers[0].resources.requests[requests.example.com/x]: Invalid value: requests.example.com/x: doesn't follow extended resource name standard]",
  },
  {
    name: "hugepages come in whole pages",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"hugepages-2Mi":"3Mi","cpu":"1"}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi, spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi]",
  },
  {
    name: "a hugepages request equals its limit",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"hugepages-2Mi":"2Mi","memory":"1Gi"},"requests":{"hugepages-2Mi":"4Mi"}}}]}},
    message: "Pod \"p\" is invalid: spec.containers[0].resources.requests: Invalid value: \"4Mi\": must be equal to hugepages-2Mi limit of 2Mi",
  },
  {
    name: "a request above its limit",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"cpu":"500m"},"requests":{"cpu":"1"}}}]}},
    message: "Pod \"p\" is invalid: spec.containers[0].resources.requests: Invalid value: \"1\": must be less than or equal to cpu limit of 500m",
  },
  {
    name: "valid resources with extended resources and hugepages are accepted",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"cpu":"1","memory":"1Gi","nvidia.com/gpu":"1","hugepages-2Mi":"4Mi","ephemeral-storage":"1Gi"},"requests":{"cpu":"100m","memory":"512Mi","nvidia.com/gpu":"1","hugepages-2Mi":"4Mi"}}}]}},
  },
  {
    name: "volumeDevices: name, claim or ephemeral volumes only, no backsteps, no overlap with volumeMounts (both ways)",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","volumeDevices":[{"name":"v","devicePath":"/dev/x"},{"name":"","devicePath":""},{"name":"e","devicePath":"/a/../b"},{"name":"m","devicePath":"/m"}],"volumeMounts":[{"name":"m","mountPath":"/m"}]}],"volumes":[{"name":"e","emptyDir":{}},{"name":"m","emptyDir":{}},{"name":"v","persistentVolumeClaim":{"claimName":"c"}},{"name":"w","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].volumeMounts[0].name: Invalid value: \"m\": must not already exist in volumeDevices, spec.containers[0].volumeMounts[0].mountPath: Invalid value: \"/m\": must not already exist as a path in volumeDevices, spec.containers[0].volumeDevices[1].name: Required value, spec.containers[0].volumeDevices[1].name: Not found: \"\", spec.containers[0].volumeDevices[1].devicePath: Required value, spec.containers[0].volumeDevices[2].name: Invalid value: \"e\": can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode, spec.containers[0].volumeDevices[2].devicePath: Invalid value: \"/a/../b\": can not contain backsteps ('..'), spec.containers[0].volumeDevices[3].name: Invalid value: \"m\": can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode, spec.containers[0].volumeDevices[3].name: Invalid value: \"m\": must not already exist in volumeMounts, spec.containers[0].volumeDevices[3].devicePath: Invalid value: \"/m\": must not already exist as a path in volumeMounts]",
  },
  {
    name: "volumeDevices: names and device paths unique, the volume must exist",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","volumeDevices":[{"name":"v","devicePath":"/dev/x"},{"name":"v","devicePath":"/dev/x"},{"name":"w","devicePath":"/dev/y"},{"name":"nope","devicePath":"../rel"}]}],"volumes":[{"name":"e","emptyDir":{}},{"name":"m","emptyDir":{}},{"name":"v","persistentVolumeClaim":{"claimName":"c"}},{"name":"w","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].volumeDevices[1].name: Invalid value: \"v\": must be unique, spec.containers[0].volumeDevices[1].devicePath: Invalid value: \"/dev/x\": must be unique, spec.containers[0].volumeDevices[3].name: Not found: \"nope\", spec.containers[0].volumeDevices[3].devicePath: Invalid value: \"../rel\": can not contain backsteps ('..')]",
  },
  {
    name: "volumeMount options: subPath, subPathExpr, mountPropagation (Bidirectional needs privileged), recursiveReadOnly",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","volumeMounts":[{"name":"e","mountPath":"/a","subPath":"/abs/../x"},{"name":"e","mountPath":"/b","subPath":"x","subPathExpr":"$(POD)/../y"},{"name":"e","mountPath":"/c","mountPropagation":"Bidirectional"},{"name":"e","mountPath":"/d","mountPropagation":"Shared"},{"name":"e","mountPath":"/e","recursiveReadOnly":"Enabled"},{"name":"e","mountPath":"/f","readOnly":true,"recursiveReadOnly":"IfPossible","mountPropagation":"HostToContainer"},{"name":"e","mountPath":"/g","recursiveReadOnly":"Sometimes"},{"name":"e","mountPath":"/h","readOnly":true,"recursiveReadOnly":"Enabled","subPath":"ok/sub","subPathExpr":""}]}],"volumes":[{"name":"e","emptyDir":{}},{"name":"m","emptyDir":{}},{"name":"v","persistentVolumeClaim":{"claimName":"c"}},{"name":"w","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].volumeMounts.subPath: Invalid value: \"/abs/../x\": must be a relative path, spec.containers[0].volumeMounts.subPath: Invalid value: \"/abs/../x\": must not contain '..', spec.containers[0].volumeMounts[1].subPathExpr: Invalid value: \"$(POD)/../y\": subPathExpr and subPath are mutually exclusive, spec.containers[0].volumeMounts.subPathExpr: Invalid value: \"$(POD)/../y\": must not contain '..', spec.containers[0].volumeMounts.mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers, spec.containers[0].volumeMounts.mountPropagation: Unsupported value: \"Shared\": supported values: \"Bidirectional\", \"HostToContainer\", \"None\", spec.containers[0].volumeMounts.recursiveReadOnly: Forbidden: may only be specified when readOnly is true, spec.containers[0].volumeMounts.recursiveReadOnly: Forbidden: may only be specified when mountPropagation is None or not specified, spec.containers[0].volumeMounts.recursiveReadOnly: Unsupported value: \"Sometimes\": supported values: \"Disabled\", \"Enabled\", \"IfPossible\"]",
  },
  {
    name: "divisors are compared canonically (1024 is not 1Ki, 1000 is 1k)",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","env":[{"name":"a","valueFrom":null},{"name":"b","value":"","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}},{"name":"c","valueFrom":{"fieldRef":null,"secretKeyRef":{"name":"s","key":"k"}}},{"name":"d","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu","divisor":"1m"}}},{"name":"e","valueFrom":{"resourceFieldRef":{"resource":"limits.memory","divisor":"1024"}}},{"name":"f","valueFrom":{"resourceFieldRef":{"resource":"limits.memory","divisor":"1000"}}}]}]}},
    message: "Pod \"p\" is invalid: spec.containers[0].env[4].valueFrom.resourceFieldRef.divisor: Invalid value: \"limits.memory\": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource",
  },
  {
    name: "a null exec command is missing; an httpGet port given as the string \"8080\" is a port name without a letter",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","livenessProbe":{"exec":{"command":null}},"readinessProbe":{"httpGet":{"port":"8080","path":""}},"startupProbe":{"tcpSocket":{"port":"http","host":"x"}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].livenessProbe.exec.command: Required value, spec.containers[0].readinessProbe.httpGet.port: Invalid value: \"8080\": must contain at least one letter (a-z)]",
  },
  {
    name: "a sleep hook with terminationGracePeriodSeconds 0",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","lifecycle":{"preStop":{"sleep":{"seconds":1}}}}],"terminationGracePeriodSeconds":0}},
    message: "Pod \"p\" is invalid: spec.containers[0].lifecycle.preStop.sleep: Invalid value: 1: must be greater than 0 and less than terminationGracePeriodSeconds (0). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.",
  },
  {
    name: "a sidecar's sleep hook is held to the grace period too",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"initContainers":[{"name":"i","image":"x","restartPolicy":"Always","lifecycle":{"preStop":{"sleep":{"seconds":100}}}}]}},
    message: "Pod \"p\" is invalid: spec.initContainers[0].lifecycle.preStop.sleep: Invalid value: 100: must be greater than 0 and less than terminationGracePeriodSeconds (30). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.",
  },
  {
    name: "a Job template's init container may not have a probe",
    path: "/apis/batch/v1/namespaces/default/jobs",
    body: {"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"x"}],"initContainers":[{"name":"i","image":"x","readinessProbe":{"exec":{"command":["x"]}}}]}}}},
    message: "Job.batch \"j\" is invalid: spec.template.spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always",
  },
  {
    name: "a StatefulSet's template containers are not validated, as upstream does not validate them",
    path: "/apis/apps/v1/namespaces/default/statefulsets",
    body: {"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"s"},"spec":{"serviceName":"s","selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":" x ","env":[{"name":"A=B"}],"livenessProbe":{"exec":{"command":["x"]},"successThreshold":5}}]}}}},
  },
  {
    name: "CAP_SYS_ADMIN added twice with allowPrivilegeEscalation false: the two identical errors are reported once",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"add":["CAP_SYS_ADMIN","CAP_SYS_ADMIN"]},"runAsUser":5}}]}},
    message: "Pod \"p\" is invalid: spec.containers[0].securityContext: Invalid value: core.SecurityContext{Capabilities:(*core.Capabilities)(0xe1164f26360), Privileged:(*bool)(nil), SELinuxOptions:(*core.SELinuxOptions)(nil), WindowsOptions:(*core.WindowsSecurityContextOptions)(nil), RunAsUser:(*int64)(0xe11619b5e80), RunAsGroup:(*int64)(nil), RunAsNonRoot:(*bool)(nil), ReadOnlyRootFilesystem:(*bool)(nil), AllowPrivilegeEscalation:(*bool)(0xe11619b5dad), ProcMount:(*core.ProcMountType)(nil), SeccompProfile:(*core.SeccompProfile)(nil), AppArmorProfile:(*core.AppArmorProfile)(nil)}: cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN",
  },
  {
    name: "Windows runAsUserName: one backslash at most, a NetBIOS or DNS domain, a non-empty user without special characters",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","securityContext":{"windowsOptions":{"runAsUserName":"a\\b\\c"}}},{"name":"d","image":"x","securityContext":{"windowsOptions":{"runAsUserName":".bad\\..."}}},{"name":"e","image":"x","securityContext":{"windowsOptions":{"runAsUserName":"DOM\\us@er"}}},{"name":"f","image":"x","securityContext":{"windowsOptions":{"runAsUserName":"DOM\\"}}}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].securityContext.windowsOptions.runAsUserName: Invalid value: \"a\\\\b\\\\c\": runAsUserName cannot contain more than one backslash, spec.containers[1].securityContext.windowsOptions.runAsUserName: Invalid value: \".bad\\\\...\": runAsUserName's Domain doesn't match the NetBios nor the DNS format, spec.containers[1].securityContext.windowsOptions.runAsUserName: Invalid value: \".bad\\\\...\": runAsUserName's User cannot contain only periods or spaces, spec.containers[2].securityContext.windowsOptions.runAsUserName: Invalid value: \"DOM\\\\us@er\": runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[], spec.containers[3].securityContext.windowsOptions.runAsUserName: Invalid value: \"DOM\\\\\": runAsUserName's User cannot be empty]",
  },
  {
    name: "a DaemonSet template's containers are validated (a padded image passes in a template)",
    path: "/apis/apps/v1/namespaces/default/daemonsets",
    body: {"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":" x","env":[{"name":"a","valueFrom":{}}],"readinessProbe":{"exec":{"command":["x"]},"terminationGracePeriodSeconds":3}}]}}}},
    message: "DaemonSet.apps \"d\" is invalid: [spec.template.spec.containers[0].env[0].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`, spec.template.spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 3: must not be set for readinessProbes]",
  },
  {
    name: "a PodTemplate's containers are validated under template.spec",
    path: "/api/v1/namespaces/default/podtemplates",
    body: {"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"d"},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":" x","env":[{"name":"a","valueFrom":{}}],"readinessProbe":{"exec":{"command":["x"]},"terminationGracePeriodSeconds":3}}]}}},
    message: "PodTemplate \"d\" is invalid: [template.spec.containers[0].env[0].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`, template.spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 3: must not be set for readinessProbes]",
  },
  {
    name: "a CronJob's job template containers are validated",
    path: "/apis/batch/v1/namespaces/default/cronjobs",
    body: {"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"d"},"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure","containers":[{"name":"c","image":" x","env":[{"name":"a","valueFrom":{}}],"readinessProbe":{"exec":{"command":["x"]},"terminationGracePeriodSeconds":3}}]}}}}}},
    message: "CronJob.batch \"d\" is invalid: [spec.jobTemplate.spec.template.spec.containers[0].env[0].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`, spec.jobTemplate.spec.template.spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 3: must not be set for readinessProbes]",
  },
  {
    name: "Bidirectional propagation in a privileged container and block devices from a claim and an ephemeral volume are accepted",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","securityContext":{"privileged":true},"volumeMounts":[{"name":"e","mountPath":"/c","mountPropagation":"Bidirectional"},{"name":"m","mountPath":"/d","mountPropagation":"None","recursiveReadOnly":"Disabled"}],"volumeDevices":[{"name":"v","devicePath":"/dev/xvda"},{"name":"w","devicePath":"/dev/xvdb"}]}],"volumes":[{"name":"e","emptyDir":{}},{"name":"m","emptyDir":{}},{"name":"v","persistentVolumeClaim":{"claimName":"c"}},{"name":"w","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}}}]}},
  },
  {
    name: "a Helm-chart-style pod: env from fieldRef, secretKeyRef, configMapKeyRef and resourceFieldRef, envFrom, probes, hooks, securityContext, a sidecar",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"volumes":[{"name":"tmp","emptyDir":{}}],"initContainers":[{"name":"migrate","image":"ghcr.io/example/app:1.2.3","command":["app","migrate"],"env":[{"name":"DB_PASSWORD","valueFrom":{"secretKeyRef":{"name":"app-db","key":"password"}}}]},{"name":"proxy","image":"envoyproxy/envoy:v1.31.0","restartPolicy":"Always","readinessProbe":{"tcpSocket":{"port":15021}},"lifecycle":{"preStop":{"sleep":{"seconds":10}}},"securityContext":{"privileged":false,"runAsUser":1337}}],"containers":[{"name":"app","image":"ghcr.io/example/app:1.2.3","imagePullPolicy":"IfNotPresent","args":["--port=8080"],"ports":[{"name":"http","containerPort":8080,"protocol":"TCP"},{"name":"metrics","containerPort":9090}],"env":[{"name":"POD_NAME","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},{"name":"POD_NAMESPACE","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}},{"name":"POD_IP","valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}},{"name":"APP_VERSION","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['app.kubernetes.io/version']"}}},{"name":"DB_PASSWORD","valueFrom":{"secretKeyRef":{"name":"app-db","key":"password"}}},{"name":"LOG_LEVEL","valueFrom":{"configMapKeyRef":{"name":"app-config","key":"log.level","optional":true}}},{"name":"GOMAXPROCS","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu","divisor":"1"}}},{"name":"MEMORY_MB","valueFrom":{"resourceFieldRef":{"containerName":"app","resource":"requests.memory","divisor":"1Mi"}}},{"name":"JAVA_OPTS","value":"-Xmx512m"},{"name":"my.dotted-name","value":"x"},{"name":"1ST_RELAXED NAME","value":"allowed in 1.32"}],"envFrom":[{"configMapRef":{"name":"app-config"}},{"prefix":"SECRET_","secretRef":{"name":"app-secrets","optional":true}}],"livenessProbe":{"httpGet":{"path":"/healthz","port":"http","httpHeaders":[{"name":"X-Probe","value":"liveness"}]},"initialDelaySeconds":10,"periodSeconds":20,"timeoutSeconds":2,"failureThreshold":3},"readinessProbe":{"httpGet":{"path":"/ready","port":8080,"scheme":"HTTP"},"periodSeconds":5,"successThreshold":2},"startupProbe":{"tcpSocket":{"port":8080},"failureThreshold":30,"periodSeconds":10,"terminationGracePeriodSeconds":60},"lifecycle":{"preStop":{"exec":{"command":["/bin/sh","-c","sleep 5"]}},"postStart":{"httpGet":{"path":"/warm","port":8080}}},"resources":{"limits":{"cpu":"1","memory":"1Gi","nvidia.com/gpu":"1"},"requests":{"cpu":"250m","memory":"512Mi","nvidia.com/gpu":"1"}},"securityContext":{"runAsNonRoot":true,"runAsUser":10001,"runAsGroup":10001,"readOnlyRootFilesystem":true,"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"],"add":["NET_BIND_SERVICE"]},"seccompProfile":{"type":"RuntimeDefault"}},"volumeMounts":[{"name":"tmp","mountPath":"/tmp"}],"terminationMessagePolicy":"FallbackToLogsOnError"},{"name":"grpc","image":"x:1","livenessProbe":{"grpc":{"port":9000,"service":"health"}},"securityContext":{"privileged":true,"capabilities":{"add":["SYS_ADMIN"]},"appArmorProfile":{"type":"Unconfined"},"windowsOptions":{"runAsUserName":"DOMAIN\\user"}}}]}},
  },
  {
    name: "the same container in a Deployment template (with a padded image, which templates allow)",
    path: "/apis/apps/v1/namespaces/default/deployments",
    body: {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"volumes":[{"name":"tmp","emptyDir":{}}],"containers":[{"name":"app","image":" ghcr.io/example/app:1.2.3","imagePullPolicy":"IfNotPresent","args":["--port=8080"],"ports":[{"name":"http","containerPort":8080,"protocol":"TCP"},{"name":"metrics","containerPort":9090}],"env":[{"name":"POD_NAME","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},{"name":"POD_NAMESPACE","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}},{"name":"POD_IP","valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}},{"name":"APP_VERSION","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['app.kubernetes.io/version']"}}},{"name":"DB_PASSWORD","valueFrom":{"secretKeyRef":{"name":"app-db","key":"password"}}},{"name":"LOG_LEVEL","valueFrom":{"configMapKeyRef":{"name":"app-config","key":"log.level","optional":true}}},{"name":"GOMAXPROCS","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu","divisor":"1"}}},{"name":"MEMORY_MB","valueFrom":{"resourceFieldRef":{"containerName":"app","resource":"requests.memory","divisor":"1Mi"}}},{"name":"JAVA_OPTS","value":"-Xmx512m"},{"name":"my.dotted-name","value":"x"},{"name":"1ST_RELAXED NAME","value":"allowed in 1.32"}],"envFrom":[{"configMapRef":{"name":"app-config"}},{"prefix":"SECRET_","secretRef":{"name":"app-secrets","optional":true}}],"livenessProbe":{"httpGet":{"path":"/healthz","port":"http","httpHeaders":[{"name":"X-Probe","value":"liveness"}]},"initialDelaySeconds":10,"periodSeconds":20,"timeoutSeconds":2,"failureThreshold":3},"readinessProbe":{"httpGet":{"path":"/ready","port":8080,"scheme":"HTTP"},"periodSeconds":5,"successThreshold":2},"startupProbe":{"tcpSocket":{"port":8080},"failureThreshold":30,"periodSeconds":10,"terminationGracePeriodSeconds":60},"lifecycle":{"preStop":{"exec":{"command":["/bin/sh","-c","sleep 5"]}},"postStart":{"httpGet":{"path":"/warm","port":8080}}},"resources":{"limits":{"cpu":"1","memory":"1Gi","nvidia.com/gpu":"1"},"requests":{"cpu":"250m","memory":"512Mi","nvidia.com/gpu":"1"}},"securityContext":{"runAsNonRoot":true,"runAsUser":10001,"runAsGroup":10001,"readOnlyRootFilesystem":true,"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"],"add":["NET_BIND_SERVICE"]},"seccompProfile":{"type":"RuntimeDefault"}},"volumeMounts":[{"name":"tmp","mountPath":"/tmp"}],"terminationMessagePolicy":"FallbackToLogsOnError"}]}}}},
  },
];

validationCases(cases, server, maskAddresses);
