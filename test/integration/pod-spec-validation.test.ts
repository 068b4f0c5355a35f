/**
 * Pod volumes, container ports and volume mounts are validated as kube-apiserver 1.32 validates them
 * (pod-spec-validation.ts), in a simulated cluster (which serves the workload types as every workspace with compute does). The expected messages are
 * kube-apiserver v1.32.4's own answers to the same requests (dry-run POSTs; recorded from the binary the `kube`
 * benchmark builds), so a difference in wording, order or what is caught fails here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useValidationCluster, validationCases, type ValidationCase } from '../helpers/validation-cases.js';

const server = useValidationCluster('pod-spec-validation');

const cases: ValidationCase[] = [
  {
    name: "a CronJob whose configMap volume has defaultMode 755 (YAML 0755 read as decimal): invalid, and its mount is Not found",
    path: "/apis/batch/v1/namespaces/default/cronjobs",
    body: {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "postgres-backup"}, "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure", "volumes": [{"name": "data", "emptyDir": {}}, {"name": "scripts", "configMap": {"name": "s", "defaultMode": 755}}], "containers": [{"name": "c", "image": "busybox", "volumeMounts": [{"name": "data", "mountPath": "/data"}, {"name": "scripts", "mountPath": "/scripts"}]}]}}}}}},
    message: "CronJob.batch \"postgres-backup\" is invalid: [spec.jobTemplate.spec.template.spec.volumes[1].configMap.defaultMode: Invalid value: 755: must be a number between 0 and 0777 (octal), both inclusive, spec.jobTemplate.spec.template.spec.containers[0].volumeMounts[1].name: Not found: \"scripts\"]",
  },
  {
    name: "a Pod with every kind of volume and mount mistake: each reported, in upstream's order",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "v"}, "spec": {"volumes": [{"name": "a", "emptyDir": {}}, {"name": "a", "emptyDir": {}}, {"name": "b"}, {"name": "c", "emptyDir": {}, "configMap": {"name": "x"}}, {"name": "Bad_Name", "emptyDir": {}}, {"name": "s", "secret": {"items": [{"key": "", "path": "/abs", "mode": 512}, {"key": "k", "path": "../up"}, {"key": "k", "path": "..x"}]}}, {"name": "p", "persistentVolumeClaim": {}}, {"name": "h", "hostPath": {}}, {"name": "cm", "configMap": {}}, {"emptyDir": {}}], "containers": [{"name": "c", "image": "x", "volumeMounts": [{"name": "a", "mountPath": "/a"}, {"name": "nope", "mountPath": "/a"}, {"name": "", "mountPath": ""}, {"name": "b", "mountPath": "/b"}]}], "initContainers": [{"name": "i", "image": "x", "volumeMounts": [{"name": "c", "mountPath": "/c"}]}]}},
    message: "Pod \"v\" is invalid: [spec.volumes[1].name: Duplicate value: \"a\", spec.volumes[3].configMap: Forbidden: may not specify more than 1 volume type, spec.volumes[4].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.volumes[5].secret.secretName: Required value, spec.volumes[5].secret.items[0].key: Required value, spec.volumes[5].secret.items[0].path: Invalid value: \"/abs\": must be a relative path, spec.volumes[5].secret.items[0].mode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive, spec.volumes[5].secret.items[1].path: Invalid value: \"../up\": must not contain '..', spec.volumes[5].secret.items[2].path: Invalid value: \"..x\": must not start with '..', spec.volumes[6].persistentVolumeClaim.claimName: Required value, spec.volumes[7].hostPath.path: Required value, spec.volumes[8].configMap.name: Required value, spec.volumes[9].name: Required value, spec.containers[0].volumeMounts[1].name: Not found: \"nope\", spec.containers[0].volumeMounts[1].mountPath: Invalid value: \"/a\": must be unique, spec.containers[0].volumeMounts[2].name: Required value, spec.containers[0].volumeMounts[2].name: Not found: \"\", spec.containers[0].volumeMounts[2].mountPath: Required value, spec.initContainers[0].volumeMounts[0].name: Not found: \"c\"]",
  },
  {
    name: "valid volumes and mounts (a volume without a source becomes an emptyDir) are accepted",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "ok"}, "spec": {"volumes": [{"name": "a", "emptyDir": {}}, {"name": "s", "secret": {"secretName": "x", "defaultMode": 511, "items": [{"key": "k", "path": "dir/f", "mode": 0}]}}, {"name": "pr", "projected": {"sources": []}}, {"name": "d", "downwardAPI": {"items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}}], "containers": [{"name": "c", "image": "x", "volumeMounts": [{"name": "a", "mountPath": "/a"}, {"name": "s", "mountPath": "/s"}, {"name": "pr", "mountPath": "/p"}, {"name": "d", "mountPath": "/d"}]}]}},
  },
  {
    name: "container ports: names, duplicates, numbers, host ports and protocols, before the mounts",
    path: "/api/v1/namespaces/default/pods",
    body: {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "x", "ports": [{"name": "http", "containerPort": 80}, {"name": "http", "containerPort": 81}, {"name": "Way-Too-Long-Port-Name", "containerPort": 0}, {"name": "a--b", "containerPort": 70000, "hostPort": 70000}, {"name": "-x1", "containerPort": 82, "protocol": "HTTP"}, {"name": "123", "containerPort": 83}, {"containerPort": 84, "protocol": "udp"}], "volumeMounts": [{"name": "missing", "mountPath": "/m"}]}]}},
    message: "Pod \"p\" is invalid: [spec.containers[0].ports[1].name: Duplicate value: \"http\", spec.containers[0].ports[2].name: Invalid value: \"Way-Too-Long-Port-Name\": must be no more than 15 characters, spec.containers[0].ports[2].name: Invalid value: \"Way-Too-Long-Port-Name\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-), spec.containers[0].ports[2].containerPort: Required value, spec.containers[0].ports[3].name: Invalid value: \"a--b\": must not contain consecutive hyphens, spec.containers[0].ports[3].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.containers[0].ports[3].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.containers[0].ports[4].name: Invalid value: \"-x1\": must not begin or end with a hyphen, spec.containers[0].ports[4].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\", spec.containers[0].ports[5].name: Invalid value: \"123\": must contain at least one letter (a-z), spec.containers[0].ports[6].protocol: Unsupported value: \"udp\": supported values: \"SCTP\", \"TCP\", \"UDP\", spec.containers[0].volumeMounts[0].name: Not found: \"missing\"]",
  },
  {
    name: "valid container ports (a port without a protocol defaults to TCP) are accepted",
    path: "/apis/apps/v1/namespaces/default/deployments",
    body: {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "x", "ports": [{"name": "http-metrics", "containerPort": 8080}, {"containerPort": 53, "protocol": "UDP"}, {"containerPort": 9, "protocol": "SCTP", "hostPort": 9}]}]}}}},
  },
];

validationCases(cases, server);

test('a volume without a source is stored as an emptyDir, as upstream defaults it', async () => {
  const r = await server().request('POST', '/api/v1/namespaces/default/pods?dryRun=All', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'defaulted' },
    spec: { volumes: [{ name: 'scratch' }], containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'scratch', mountPath: '/s' }] }] },
  });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(r.json.spec.volumes, [{ name: 'scratch', emptyDir: {} }]);
});
