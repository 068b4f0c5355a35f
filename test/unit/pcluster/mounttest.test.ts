import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import type { ObjectLookup } from '../../../src/pcluster/runtime/container-env.js';
import { goFileMode, mounttestFlags, mounttestLoop, mounttestLoopStep, runMounttest } from '../../../src/pcluster/runtime/mounttest.js';
import { volumeView } from '../../../src/pcluster/runtime/volume-view.js';

const objects: Record<string, KubeObject> = {
  'configmaps/cfg': { metadata: { name: 'cfg' }, data: { 'data-1': 'value-1', 'data-2': 'value-2' } },
  'secrets/sec': { metadata: { name: 'sec' }, data: { 'data-1': Buffer.from('secret-1').toString('base64') } },
  'nodes/n1': { metadata: { name: 'n1' }, status: { allocatable: { cpu: '4', memory: '8Gi' } } },
};
const lookup: ObjectLookup = async (resource, _ns, name) => objects[`${resource}/${name}`];

const agnhost = 'registry.k8s.io/e2e-test-images/agnhost:2.53';
const podWith = (volumes: unknown[], mounts: unknown[], extra: Record<string, unknown> = {}, sc: Record<string, unknown> = {}): { pod: KubeObject; container: Record<string, unknown> } => {
  const container = { name: 'c', image: agnhost, volumeMounts: mounts, resources: { limits: { cpu: '1250m' } }, ...extra };
  return { pod: { metadata: { name: 'p', namespace: 'ns', uid: 'u-1', labels: { b: '2', a: '1' } }, spec: { nodeName: 'n1', volumes, containers: [container], securityContext: sc } }, container };
};

describe('mounttest over the simulated volumes', () => {
  it('reads the mounttest flags of an agnhost container, and only those', () => {
    assert.deepEqual(mounttestFlags({ image: agnhost, args: ['mounttest', '--file_content=/etc/x', '--file_mode', '/etc/x'] }), { file_content: '/etc/x', file_mode: '/etc/x' });
    assert.deepEqual(mounttestFlags({ image: agnhost, command: ['/agnhost'], args: ['mounttest', '--fs_type=/v'] }), { fs_type: '/v' });
    assert.equal(mounttestFlags({ image: 'busybox', args: ['mounttest', '--fs_type=/v'] }), undefined);
    assert.equal(mounttestFlags({ image: agnhost, args: ['netexec'] }), undefined);
    assert.deepEqual(mounttestFlags({ image: agnhost, args: ['mounttest', '--break_on_expected_content=false', '--retry_time=120', '--file_content_in_loop=/v/f'] }), { break_on_expected_content: 'false', retry_time: '120', file_content_in_loop: '/v/f' });
    assert.equal(mounttestFlags({ image: agnhost, args: ['mounttest', '--unknown=1'] }), undefined);
  });

  it('formats modes as Go os.FileMode does', () => {
    assert.equal(goFileMode({ dir: false, perm: 0o644 }), '-rw-r--r--');
    assert.equal(goFileMode({ dir: true, perm: 0o777, setgid: true }), 'dgrwxrwxrwx');
    assert.equal(goFileMode({ dir: true, perm: 0o777 }, true), '-rwxrwxrwx');
    assert.equal(goFileMode({ dir: false, perm: 0o400 }), '-r--------');
  });

  it('configMap and secret volumes: a file per key or item, defaultMode and item modes, tmpfs for secrets', async () => {
    const { pod, container } = podWith(
      [{ name: 'cm', configMap: { name: 'cfg', items: [{ key: 'data-2', path: 'path/to/data-2', mode: 0o400 }] } }, { name: 's', secret: { secretName: 'sec', defaultMode: 0o440 } }],
      [{ name: 'cm', mountPath: '/etc/cm' }, { name: 's', mountPath: '/etc/s/' }],
      {},
      { fsGroup: 1001 },
    );
    const view = await volumeView(pod, container, lookup);
    const r = runMounttest({ fs_type: '/etc/s', file_content: '/etc/cm/path/to/data-2', file_mode: '/etc/cm/path/to/data-2', file_owner: '/etc/s/data-1' }, view);
    assert.deepEqual(r.lines, [
      'mount type of "/etc/s": tmpfs',
      'mode of file "/etc/cm/path/to/data-2": -r--------',
      'owner UID of "/etc/s/data-1": 0',
      'owner GID of "/etc/s/data-1": 1001',
      'content of file "/etc/cm/path/to/data-2": value-2',
    ]);
    assert.equal(r.exitCode, 0);
    assert.equal(view.stat('/etc/cm/data-1'), undefined, 'items pick the keys');
    assert.equal(runMounttest({ file_perm: '/etc/s/data-1', file_content: '/etc/s/data-1' }, view).lines.join('|'), 'perms of file "/etc/s/data-1": -r--r-----|content of file "/etc/s/data-1": secret-1');
  });

  it('downwardAPI volumes: name, labels as key="value" lines, a container limit', async () => {
    const { pod, container } = podWith(
      [{ name: 'd', downwardAPI: { items: [{ path: 'podname', fieldRef: { fieldPath: 'metadata.name' } }, { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }, { path: 'cpu_limit', resourceFieldRef: { containerName: 'c', resource: 'limits.cpu', divisor: '1m' } }, { path: 'memory_limit', resourceFieldRef: { containerName: 'c', resource: 'limits.memory' } }] } }],
      [{ name: 'd', mountPath: '/etc/podinfo' }],
    );
    const view = await volumeView(pod, container, lookup);
    assert.equal(view.stat('/etc/podinfo/podname')?.content, 'p');
    assert.equal(view.stat('/etc/podinfo/labels')?.content, 'a="1"\nb="2"');
    assert.equal(view.stat('/etc/podinfo/cpu_limit')?.content, '1250');
    assert.equal(view.stat('/etc/podinfo/memory_limit')?.content, String(8 * 2 ** 30), "no limit: the node's allocatable");
  });

  it('emptyDir: new files with their perms and owner, tmpfs only for medium Memory, read-only mounts refuse writes', async () => {
    const { pod, container } = podWith(
      [{ name: 'v', emptyDir: { medium: 'Memory' } }, { name: 'w', emptyDir: {} }],
      [{ name: 'v', mountPath: '/test-volume' }, { name: 'w', mountPath: '/ro', readOnly: true }],
      { securityContext: { runAsUser: 1001 } },
      { fsGroup: 123 },
    );
    const view = await volumeView(pod, container, lookup);
    const r = runMounttest({ fs_type: '/test-volume', new_file_0660: '/test-volume/test-file', file_perm: '/test-volume/test-file', file_owner: '/test-volume/test-file' }, view);
    assert.deepEqual(r.lines, [
      'mount type of "/test-volume": tmpfs',
      'content of file "/test-volume/test-file": mount-tester new file',
      '',
      'perms of file "/test-volume/test-file": -rw-rw----',
      'owner UID of "/test-volume/test-file": 1001',
      'owner GID of "/test-volume/test-file": 123',
    ]);
    assert.deepEqual(runMounttest({ file_perm: '/test-volume', file_mode: '/test-volume' }, view).lines, ['mode of file "/test-volume": dgrwxrwxrwx', 'perms of file "/test-volume": -rwxrwxrwx']);
    assert.match(runMounttest({ fs_type: '/ro' }, view).lines[0]!, /^mount type of "\/ro": \d+$/);
    const ro = runMounttest({ new_file_0644: '/ro/f' }, view);
    assert.deepEqual([ro.lines, ro.exitCode], [['error writing new file "/ro/f": open /ro/f: read-only file system'], 1]);
    const gone = runMounttest({ file_content: '/nowhere/x' }, view);
    assert.deepEqual([gone.lines, gone.exitCode], [['error reading file content for "/nowhere/x": open /nowhere/x: no such file or directory'], 1]);
  });

  it('--file_content_in_loop: each pass reads the file anew; it ends on mount-tester\'s content unless told not to', async () => {
    const loop = mounttestLoop({ file_content_in_loop: '/etc/cm/data-1', retry_time: '120', break_on_expected_content: 'false' })!;
    assert.deepEqual(loop, { path: '/etc/cm/data-1', retrySeconds: 120, breakOnExpected: false });
    assert.equal(mounttestLoop({ file_content_in_loop: '/x' })!.retrySeconds, 180);
    const { pod, container } = podWith([{ name: 'cm', configMap: { name: 'cfg', optional: true } }], [{ name: 'cm', mountPath: '/etc/cm' }]);
    assert.deepEqual(mounttestLoopStep(loop, await volumeView(pod, container, lookup)), { lines: ['content of file "/etc/cm/data-1": value-1'], done: false });
    const gone = { ...pod, metadata: { ...pod.metadata, namespace: 'elsewhere' } };
    const missing: ObjectLookup = async () => undefined;
    assert.deepEqual(mounttestLoopStep(loop, await volumeView(gone, container, missing)), { lines: ['Error reading file /etc/cm/data-1: open /etc/cm/data-1: no such file or directory, retrying'], done: false });
    const expecting = mounttestLoop({ file_content_in_loop: '/etc/cm/data-1' })!;
    assert.deepEqual(mounttestLoopStep(expecting, await volumeView(pod, container, lookup)).lines, ['content of file "/etc/cm/data-1": value-1', 'Unexpected content. Expected: mount-tester new file', '. Retrying']);
  });
});
