/**
 * `atrium pcluster` runs what a real cluster runs for storage and service plumbing, seen with the real kubectl: the
 * CLI starts a cluster with `--storage-capacity 10Gi --load-balancer-cidr 172.18.240.0/28`, kubectl applies an app
 * (a claim, a Deployment mounting it, a ClusterIP and a LoadBalancer Service, an Ingress), `kubectl wait` sees the
 * claim Bound, and `kubectl get` shows the volume, the endpoints and slices of the ready pods, the EXTERNAL-IP and the
 * ingress ADDRESS; a claim beyond the capacity stays Pending with its ProvisioningFailed event in `kubectl describe`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pluginBinDir, runKubectl } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { Proc } from '../helpers/processes.js';
import { kubectlJson, kubectlOk, rowWhere, tableRows } from './support/kubectl-run.js';

let pcluster: Proc;
let rootDir: string;
const k = { kubectl: (args: string[], opts?: { input?: string }) => runKubectl(join(rootDir, 'admin.kubeconfig'), args, opts) };

const app = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - name: http
          containerPort: 8080
        volumeMounts:
        - name: data
          mountPath: /usr/share/nginx/html
      volumes:
      - name: data
        persistentVolumeClaim:
          claimName: data
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - name: http
    port: 80
    targetPort: http
---
apiVersion: v1
kind: Service
metadata:
  name: web-public
spec:
  type: LoadBalancer
  selector: {app: web}
  ports:
  - port: 80
    targetPort: 8080
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
spec:
  rules:
  - host: web.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: web
            port:
              number: 80
`;

before(async () => {
  rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-e2e-storage-'));
  const kubeconfig = join(rootDir, 'admin.kubeconfig');
  pcluster = new Proc(
    'pcluster shop',
    () => [join(pluginBinDir, 'atrium'), 'pcluster', '--name', 'shop', '--root-dir', rootDir, '--nodes', '2', '--ready-delay', '300ms', '--storage-capacity', '10Gi', '--load-balancer-cidr', '172.18.240.0/28'],
    (out) => out.includes('is serving at') && existsSync(kubeconfig),
  );
  await pcluster.start(20_000);
});

after(async () => {
  await pcluster?.kill('SIGTERM');
  rmSync(rootDir, { recursive: true, force: true });
});

describe('atrium pcluster storage and networking with kubectl', () => {
  it('lists the default StorageClass and IngressClass', async () => {
    const sc = tableRows(await kubectlOk(k, ['get', 'storageclass']));
    assert.deepEqual(sc[0], ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE']);
    assert.deepEqual(sc[1]!.slice(0, 6), ['standard', '(default)', 'atrium.io/simulated', 'Delete', 'WaitForFirstConsumer', 'false']);
    const ic = tableRows(await kubectlOk(k, ['get', 'ingressclass']));
    assert.deepEqual(ic[1]!.slice(0, 3), ['atrium', 'atrium.io/ingress-nginx-sim', '<none>']);
  });

  it('applies an app whose claim binds once its pods exist, and rolls it out', async () => {
    const out = await kubectlOk(k, ['apply', '-f', '-'], { input: app });
    for (const line of ['persistentvolumeclaim/data created', 'deployment.apps/web created', 'service/web created', 'service/web-public created', 'ingress.networking.k8s.io/web created']) {
      assert.ok(out.includes(line), `${line}\n${out}`);
    }
    assert.match(await kubectlOk(k, ['wait', '--for=jsonpath={.status.phase}=Bound', 'pvc/data', '--timeout=60s']), /persistentvolumeclaim\/data condition met/);
    assert.match(await kubectlOk(k, ['rollout', 'status', 'deployment/web', '--timeout=60s']), /deployment "web" successfully rolled out/);

    const pvc = await kubectlJson(k, ['get', 'pvc', 'data', '-o', 'json']);
    const pvName = `pvc-${pvc.metadata.uid}`;
    const pvcRow = tableRows(await kubectlOk(k, ['get', 'pvc']))[1]!;
    assert.deepEqual(pvcRow.slice(0, 6), ['data', 'Bound', pvName, '1Gi', 'RWO', 'standard']);
    const pvRows = tableRows(await kubectlOk(k, ['get', 'pv']));
    assert.deepEqual(pvRows[0]!.slice(0, 7), ['NAME', 'CAPACITY', 'ACCESS', 'MODES', 'RECLAIM', 'POLICY', 'STATUS']);
    assert.deepEqual(rowWhere(pvRows, pvName).slice(1, 7), ['1Gi', 'RWO', 'Delete', 'Bound', 'default/data', 'standard']);

    // The volume is pinned to the node of the first pod, so both replicas run there.
    const node = pvc.metadata.annotations['volume.kubernetes.io/selected-node'];
    const pods = (await kubectlJson(k, ['get', 'pods', '-l', 'app=web', '-o', 'json'])).items;
    assert.deepEqual(pods.map((p: any) => p.spec.nodeName), [node, node]);
    const describe = await kubectlOk(k, ['describe', 'pvc', 'data']);
    assert.match(describe, /Status:\s+Bound/);
    assert.match(describe, /Used By:\s+web-/);
    assert.match(describe, /Normal\s+ProvisioningSucceeded\s+.*atrium\.io\/simulated\s+Successfully provisioned volume pvc-/);
  });

  it('lists the ready pods in the Service’s endpoints and endpointslices', async () => {
    const ips = (await kubectlJson(k, ['get', 'pods', '-l', 'app=web', '-o', 'json'])).items.map((p: any) => p.status.podIP).sort();
    assert.equal(ips.length, 2);
    const ep = await eventually('endpoints with both pods', async () => {
      const row = rowWhere(tableRows(await kubectlOk(k, ['get', 'endpoints'])), 'web');
      return row[1] === ips.map((ip: string) => `${ip}:8080`).join(',') ? row : undefined;
    }, 30_000, 200);
    assert.equal(ep[0], 'web');
    const slices = tableRows(await kubectlOk(k, ['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']));
    assert.deepEqual(slices[0], ['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS', 'AGE']);
    assert.equal(slices.length, 2);
    assert.match(slices[1]![0]!, /^web-[a-z0-9]{5}$/);
    assert.deepEqual(slices[1]!.slice(1, 4), ['IPv4', '8080', ips.join(',')]);
    const slice = (await kubectlJson(k, ['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'json'])).items[0];
    assert.equal(slice.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
    assert.ok(slice.endpoints.every((e: any) => e.conditions.ready === true && e.targetRef.kind === 'Pod' && e.nodeName));
  });

  it('shows the LoadBalancer’s EXTERNAL-IP and the Ingress ADDRESS from the simulated pool', async () => {
    const svc = await eventually('EXTERNAL-IP', async () => {
      const row = rowWhere(tableRows(await kubectlOk(k, ['get', 'svc'])), 'web-public');
      return row[3] !== '<pending>' ? row : undefined;
    }, 30_000, 200);
    assert.deepEqual(svc.slice(1, 4), ['LoadBalancer', svc[2], '172.18.240.2']);
    assert.match(svc[4]!, /^80:3\d{4}\/TCP$/);
    assert.equal(rowWhere(tableRows(await kubectlOk(k, ['get', 'svc'])), 'web')[3], '<none>');
    const ing = await eventually('ADDRESS', async () => {
      const rows = tableRows(await kubectlOk(k, ['get', 'ingress']));
      return rows[1]?.[3] === '172.18.240.1' ? rows : undefined;
    }, 30_000, 200);
    assert.deepEqual(ing[0], ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']);
    assert.deepEqual(ing[1]!.slice(0, 5), ['web', 'atrium', 'web.example.com', '172.18.240.1', '80']);
  });

  it('keeps a claim beyond the storage capacity Pending with a ProvisioningFailed event', async () => {
    const manifest = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: big
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 50Gi
---
apiVersion: v1
kind: Pod
metadata:
  name: big-user
spec:
  containers:
  - name: c
    image: busybox:1.36
  volumes:
  - name: d
    persistentVolumeClaim:
      claimName: big
`;
    await kubectlOk(k, ['apply', '-f', '-'], { input: manifest });
    const message = 'failed to provision volume with StorageClass "standard": insufficient storage in the simulated cluster: requested 50Gi, 9Gi of 10Gi left';
    const describe = await eventually('ProvisioningFailed in describe', async () => {
      const out = await kubectlOk(k, ['describe', 'pvc', 'big']);
      return out.includes('ProvisioningFailed') ? out : undefined;
    }, 30_000, 200);
    assert.match(describe, /Status:\s+Pending/);
    assert.match(describe, /Warning\s+ProvisioningFailed\s+.*atrium\.io\/simulated\s+failed to provision volume/);
    assert.ok(describe.replace(/\s+/g, ' ').includes(message), describe);
    const events = await kubectlOk(k, ['get', 'events']);
    assert.ok(events.split('\n').some((l) => /Warning\s+ProvisioningFailed\s+persistentvolumeclaim\/big/.test(l)), events);
    assert.deepEqual(tableRows(await kubectlOk(k, ['get', 'pvc', 'big']))[1]!.slice(0, 2), ['big', 'Pending']);
    assert.deepEqual(tableRows(await kubectlOk(k, ['get', 'pod', 'big-user']))[1]!.slice(0, 3), ['big-user', '0/1', 'Pending']);
    await kubectlOk(k, ['delete', 'pod', 'big-user']);
    await kubectlOk(k, ['delete', 'pvc', 'big']);
  });

  it('deleting the app deletes the volume with its claim (reclaim policy Delete)', async () => {
    const pvName = (await kubectlJson(k, ['get', 'pvc', 'data', '-o', 'json'])).spec.volumeName;
    await kubectlOk(k, ['delete', '-f', '-'], { input: app });
    await eventually('volume gone', async () => ((await kubectlJson(k, ['get', 'pv', '-o', 'json'])).items.some((pv: any) => pv.metadata.name === pvName) ? undefined : true), 30_000, 200);
    assert.match(await kubectlOk(k, ['get', 'pvc']), /^$|No resources found/);
  });
});
