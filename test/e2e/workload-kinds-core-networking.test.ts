/**
 * The storage, service-plumbing and networking kinds of a simulated cluster with the real kubectl: `kubectl apply`
 * of one of each (a Helm-style manifest), `kubectl get` printing kube-apiserver 1.32's columns for every kind,
 * re-applying a change, `kubectl scale rc`, `kubectl explain ingress.spec.rules` and kubectl's view of a 422. The
 * cluster's controllers run meanwhile (test/e2e/pcluster-storage-networking.test.ts is about what they do).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type TestServer } from '../helpers/harness.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';
import { freshAge, kubectlFails, kubectlJson, kubectlOk, rowWhere, tableRows } from './support/kubectl-run.js';

let ts: TestServer;

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-kinds-core-net-e2e-'));
  const cluster = await startPcluster({ name: 'kinds', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 1, readyDelayMs: 100 });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
});

after(async () => {
  await ts?.stop();
});

const manifest = `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: ebs.csi.aws.com
parameters:
  type: gp3
allowVolumeExpansion: true
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: shop-pv
spec:
  capacity:
    storage: 10Gi
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  storageClassName: fast
  csi:
    driver: ebs.csi.aws.com
    volumeHandle: vol-0abc
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: shop-data
  labels:
    app.kubernetes.io/name: shop
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  resources:
    requests:
      storage: 8Gi
---
apiVersion: v1
kind: ReplicationController
metadata:
  name: legacy
spec:
  replicas: 1
  selector:
    app: legacy
  template:
    metadata:
      labels:
        app: legacy
    spec:
      containers:
      - name: web
        image: nginx:1.27
---
apiVersion: v1
kind: Endpoints
metadata:
  name: billing-db
subsets:
- addresses:
  - ip: 10.0.0.10
  - ip: 10.0.0.11
  ports:
  - name: pg
    port: 5432
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: billing-db-1
  labels:
    kubernetes.io/service-name: billing-db
addressType: IPv4
ports:
- name: pg
  port: 5432
endpoints:
- addresses: [10.0.0.10]
  conditions:
    ready: true
- addresses: [10.0.0.11]
---
apiVersion: v1
kind: PodTemplate
metadata:
  name: worker
template:
  metadata:
    labels:
      role: worker
  spec:
    containers:
    - name: work
      image: busybox:1.36
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
spec:
  controller: k8s.io/ingress-nginx
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
spec:
  ingressClassName: nginx
  tls:
  - hosts: [shop.example.com]
    secretName: shop-tls
  rules:
  - host: shop.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: web
            port:
              number: 80
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: db-ingress
spec:
  podSelector:
    matchLabels:
      app: db
  ingress:
  - from:
    - podSelector:
        matchLabels:
          app: web
    ports:
    - port: 5432
`;

describe('the storage, service-plumbing and networking kinds with kubectl', () => {
  it('kubectl apply creates one of each', async () => {
    const out = await kubectlOk(ts, ['apply', '-f', '-'], { input: manifest });
    for (const line of [
      'storageclass.storage.k8s.io/fast created',
      'persistentvolume/shop-pv created',
      'persistentvolumeclaim/shop-data created',
      'replicationcontroller/legacy created',
      'endpoints/billing-db created',
      'endpointslice.discovery.k8s.io/billing-db-1 created',
      'podtemplate/worker created',
      'ingressclass.networking.k8s.io/nginx created',
      'ingress.networking.k8s.io/shop created',
      'networkpolicy.networking.k8s.io/db-ingress created',
    ]) {
      assert.ok(out.includes(line), `${line}\n${out}`);
    }
    // Applying the same manifest again changes nothing.
    const again = await kubectlOk(ts, ['apply', '-f', '-'], { input: manifest });
    assert.match(again, /persistentvolumeclaim\/shop-data unchanged/);
    assert.match(again, /ingress\.networking\.k8s\.io\/shop unchanged/);
  });

  it('kubectl get prints the kube-apiserver columns for every kind', async () => {
    const sections = (await kubectlOk(ts, ['get', 'pvc,pv,rc,ep,ing,netpol,sc,endpointslices,podtemplates,ingressclasses']))
      .split(/\n\s*\n/)
      .map((s) => tableRows(s));
    const section = (header: string) => {
      const found = sections.find((rows) => rows[0]!.join(' ') === header);
      assert.ok(found, `no section with header ${header}:\n${sections.map((s) => s[0]!.join(' ')).join('\n')}`);
      return found.slice(1);
    };
    const pvc = rowWhere(section('NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE'), 'persistentvolumeclaim/shop-data');
    assert.deepEqual(pvc.slice(1, 4), ['Pending', 'fast', '<unset>']);
    const pv = rowWhere(section('NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE'), 'persistentvolume/shop-pv');
    // The cluster's volume controller marks an unclaimed volume Available (the claim's class binds WaitForFirstConsumer).
    assert.deepEqual(pv.slice(1, 7), ['10Gi', 'RWO,ROX', 'Retain', 'Available', 'fast', '<unset>']);
    assert.match(pv[7]!, freshAge);
    const rc = rowWhere(section('NAME DESIRED CURRENT READY AGE'), 'replicationcontroller/legacy');
    // The replication controller is running its pod (current and ready count up as it starts).
    assert.equal(rc[1], '1');
    assert.match(`${rc[2]} ${rc[3]}`, /^[01] [01]$/);
    const ep = rowWhere(section('NAME ENDPOINTS AGE'), 'endpoints/billing-db');
    assert.equal(ep[1], '10.0.0.10:5432,10.0.0.11:5432');
    const ing = rowWhere(section('NAME CLASS HOSTS ADDRESS PORTS AGE'), 'ingress.networking.k8s.io/shop');
    assert.deepEqual(ing.slice(1, 5), ['nginx', 'shop.example.com', '80,', '443']);
    const netpol = rowWhere(section('NAME POD-SELECTOR AGE'), 'networkpolicy.networking.k8s.io/db-ingress');
    assert.equal(netpol[1], 'app=db');
    const sc = rowWhere(section('NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE'), 'storageclass.storage.k8s.io/fast');
    assert.deepEqual(sc.slice(1, 6), ['(default)', 'ebs.csi.aws.com', 'Delete', 'WaitForFirstConsumer', 'true']);
    const slice = rowWhere(section('NAME ADDRESSTYPE PORTS ENDPOINTS AGE'), 'endpointslice.discovery.k8s.io/billing-db-1');
    assert.deepEqual(slice.slice(1, 4), ['IPv4', '5432', '10.0.0.10,10.0.0.11']);
    const template = rowWhere(section('NAME CONTAINERS IMAGES POD LABELS'), 'podtemplate/worker');
    assert.deepEqual(template.slice(1), ['work', 'busybox:1.36', 'role=worker']);
    const ic = rowWhere(section('NAME CONTROLLER PARAMETERS AGE'), 'ingressclass.networking.k8s.io/nginx');
    assert.deepEqual(ic.slice(1, 3), ['k8s.io/ingress-nginx', '<none>']);
  });

  it('kubectl get -o wide adds the wide columns', async () => {
    const pvc = tableRows(await kubectlOk(ts, ['get', 'pvc', 'shop-data', '-o', 'wide']));
    assert.deepEqual(pvc[0], ['NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS', 'MODES', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'AGE', 'VOLUMEMODE']);
    assert.equal(pvc[1]!.at(-1), 'Filesystem');
    const rc = tableRows(await kubectlOk(ts, ['get', 'rc', 'legacy', '-o', 'wide']));
    assert.deepEqual(rc[0], ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.deepEqual(rc[1]!.slice(5), ['web', 'nginx:1.27', 'app=legacy']);
  });

  it('kubectl scale rc/legacy --replicas=2 scales through /scale', async () => {
    const out = await kubectlOk(ts, ['scale', 'rc/legacy', '--replicas=2']);
    assert.match(out, /replicationcontroller\/legacy scaled/);
    const rc = await kubectlJson(ts, ['get', 'rc', 'legacy']);
    assert.equal(rc.spec.replicas, 2);
    assert.equal(rc.metadata.generation, 2);
    const rows = tableRows(await kubectlOk(ts, ['get', 'rc', 'legacy']));
    assert.equal(rows[1]![1], '2');
  });

  it('kubectl apply of a changed manifest patches the objects (strategic merge of last-applied)', async () => {
    const changed = manifest.replace('number: 80', 'number: 8080').replace("app: web\n    ports:\n    - port: 5432", 'app: web\n    ports:\n    - port: 5433');
    const out = await kubectlOk(ts, ['apply', '-f', '-'], { input: changed });
    assert.match(out, /persistentvolumeclaim\/shop-data unchanged/);
    assert.match(out, /ingress\.networking\.k8s\.io\/shop configured/);
    assert.match(out, /networkpolicy\.networking\.k8s\.io\/db-ingress configured/);
    const ing = await kubectlJson(ts, ['get', 'ingress', 'shop']);
    assert.equal(ing.spec.rules[0].http.paths[0].backend.service.port.number, 8080);
    assert.equal(ing.metadata.generation, 2);
    const np = await kubectlJson(ts, ['get', 'netpol', 'db-ingress']);
    assert.deepEqual(np.spec.ingress[0].ports, [{ protocol: 'TCP', port: 5433 }]);
    assert.deepEqual(np.spec.policyTypes, ['Ingress']);
  });

  it('kubectl explain reads the Ingress schema', async () => {
    const out = await kubectlOk(ts, ['explain', 'ingress.spec.rules']);
    assert.match(out, /GROUP:\s+networking\.k8s\.io/);
    assert.match(out, /KIND:\s+Ingress/);
    assert.match(out, /FIELD: rules <\[\]IngressRule>/);
    assert.match(out, /host\s+<string>/);
    assert.match(out, /http\s+<HTTPIngressRuleValue>/);
    const paths = await kubectlOk(ts, ['explain', 'ingress.spec.rules.http.paths']);
    assert.match(paths, /pathType\s+<string> -required-/);
    const pvc = await kubectlOk(ts, ['explain', 'pvc.spec.resources']);
    assert.match(pvc, /requests\s+<map\[string\]Quantity>/);
  });

  it('kubectl reports the 422 of an immutable claim spec and a bad ingress', async () => {
    const r = await kubectlFails(ts, ['patch', 'pvc', 'shop-data', '--type=merge', '-p', '{"spec":{"accessModes":["ReadWriteMany"]}}']);
    assert.match(r.stderr, /The PersistentVolumeClaim "shop-data" is invalid: spec: Forbidden: spec is immutable after creation except resources\.requests and volumeAttributesClassName for bound claims/);
    const badIngress = 'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: bad\nspec:\n  rules:\n  - host: shop.example.com\n    http:\n      paths:\n      - path: /\n        backend:\n          service:\n            name: web\n            port:\n              number: 80\n';
    const bad = await kubectlFails(ts, ['create', '-f', '-'], 1, { input: badIngress });
    assert.match(bad.stderr, /The Ingress "bad" is invalid: spec\.rules\[0\]\.http\.paths\[0\]\.pathType: Required value: pathType must be specified/);
  });
});
