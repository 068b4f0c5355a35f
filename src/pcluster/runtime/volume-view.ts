/**
 * The files a simulated container sees under its volume mounts, worked out from the pod's spec and the objects its
 * volumes name, as the kubelet's volume plugins would lay them out: a configMap or secret volume holds a file per key
 * (or per item, at its path) with the volume's defaultMode (0644) or the item's mode; a downwardAPI volume a file per
 * item (metadata.name, namespace, uid, labels and annotations as `key="value"` lines, a container's limits and
 * requests); a projected volume the files of its sources; an emptyDir starts empty, world-writable (0777), setgid when
 * the pod has an fsGroup. Secret, downward API and projected volumes, and emptyDirs of medium Memory, are tmpfs.
 * Files a program writes into an emptyDir are kept by the caller (`written`). Ownership: files the kubelet writes
 * belong to root and, with an fsGroup, to that group; files a program writes to its user (runAsUser) and to the
 * fsGroup of a setgid directory. Nothing is read from disk: the view is a model for the simulated programs
 * (mounttest.ts).
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { type ObjectLookup, fieldRefValue, resourceFieldValue } from './container-env.js';

export interface SimFile {
  dir: boolean;
  /** Permission bits (0o644, ...). */
  perm: number;
  setgid?: boolean;
  content?: string;
  uid: number;
  gid: number;
  tmpfs: boolean;
}

export interface VolumeView {
  /** What is at `path` (absolute), or undefined when nothing is there. */
  stat(path: string): SimFile | undefined;
  /** Writes a new file (as a program running as the container's user); false where it cannot (no writable volume). */
  write(path: string, content: string, perm: number): boolean;
}

interface Mount {
  path: string;
  readOnly: boolean;
  /** Files by path relative to the mount ('' is the mount's root directory). */
  files: Map<string, SimFile>;
  writable: boolean;
}

const strip = (p: string) => p.replace(/\/+$/, '') || '/';

function securityOf(pod: KubeObject, container: JsonObject): { uid: number; gid: number; fsGroup?: number } {
  const podSc = isPlainObject(pod.spec) && isPlainObject(pod.spec.securityContext) ? pod.spec.securityContext : {};
  const sc = isPlainObject(container.securityContext) ? container.securityContext : {};
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return {
    uid: num(sc.runAsUser) ?? num(podSc.runAsUser) ?? 0,
    gid: num(sc.runAsGroup) ?? num(podSc.runAsGroup) ?? 0,
    fsGroup: num(podSc.fsGroup),
  };
}

/** `key="value"` lines sorted by key, as the downward API writes labels and annotations. */
function keyValueLines(m: unknown): string {
  const entries = isPlainObject(m) ? Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : [];
  return entries.map(([k, v]) => `${k}=${JSON.stringify(String(v))}`).join('\n');
}

async function downwardValue(pod: KubeObject, container: JsonObject, item: JsonObject, lookup: ObjectLookup): Promise<string | undefined> {
  const meta = pod.metadata ?? {};
  if (isPlainObject(item.fieldRef)) {
    // A volume may also hold all labels or annotations, one `key="value"` line each; the rest is the env vars' value.
    const path = String(item.fieldRef.fieldPath ?? '');
    if (path === 'metadata.labels') return keyValueLines(meta.labels);
    if (path === 'metadata.annotations') return keyValueLines(meta.annotations);
    return fieldRefValue(pod, path);
  }
  if (isPlainObject(item.resourceFieldRef)) return resourceFieldValue(pod, container, item.resourceFieldRef, lookup);
  return undefined;
}

/** The files of one volume source (configMap, secret, downwardAPI; a projected volume's sources each), by path. */
async function sourceFiles(pod: KubeObject, container: JsonObject, kind: string, src: JsonObject, defaultMode: number, owner: { uid: number; gid: number }, lookup: ObjectLookup): Promise<Map<string, SimFile> | undefined> {
  const ns = pod.metadata?.namespace ?? '';
  const files = new Map<string, SimFile>();
  const tmpfs = kind !== 'configMap';
  const add = (path: string, content: string, mode: unknown) => files.set(path, { dir: false, perm: typeof mode === 'number' ? mode : defaultMode, content, ...owner, tmpfs });
  const items = Array.isArray(src.items) ? src.items.filter(isPlainObject) : undefined;
  if (kind === 'configMap' || kind === 'secret') {
    const name = String(kind === 'secret' ? (src.secretName ?? src.name ?? '') : (src.name ?? ''));
    const obj = await lookup(kind === 'secret' ? 'secrets' : 'configmaps', ns, name);
    if (!obj) return src.optional === true ? files : undefined;
    const data: Record<string, string> = {};
    for (const [k, v] of Object.entries(isPlainObject(obj.data) ? obj.data : {})) if (typeof v === 'string') data[k] = kind === 'secret' ? Buffer.from(v, 'base64').toString('utf8') : v;
    if (kind === 'configMap') for (const [k, v] of Object.entries(isPlainObject(obj.binaryData) ? obj.binaryData : {})) if (typeof v === 'string') data[k] = Buffer.from(v, 'base64').toString('latin1');
    if (items) {
      for (const it of items) if (String(it.key) in data) add(String(it.path), data[String(it.key)]!, it.mode);
    } else for (const [k, v] of Object.entries(data)) add(k, v, undefined);
    return files;
  }
  if (kind === 'downwardAPI') {
    for (const it of items ?? []) {
      const v = await downwardValue(pod, container, it, lookup);
      if (v !== undefined) add(String(it.path), v, it.mode);
    }
    return files;
  }
  return undefined;
}

/** Adds the parent directories of every file (mode 0777 as the atomic writer makes them). */
function withDirs(files: Map<string, SimFile>, owner: { uid: number; gid: number }, tmpfs: boolean): Map<string, SimFile> {
  for (const p of [...files.keys()]) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!files.has(dir)) files.set(dir, { dir: true, perm: 0o777, ...owner, tmpfs });
    }
  }
  return files;
}

/** The view of `container` in `pod`; volumes whose objects are missing (and not optional) are left out. */
export async function volumeView(pod: KubeObject, container: JsonObject, lookup: ObjectLookup): Promise<VolumeView> {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const volumes = new Map((Array.isArray(spec.volumes) ? spec.volumes.filter(isPlainObject) : []).map((v) => [String(v.name), v]));
  const sec = securityOf(pod, container);
  const kubeletOwner = { uid: 0, gid: sec.fsGroup ?? 0 };
  const mounts: Mount[] = [];
  for (const vm of Array.isArray(container.volumeMounts) ? container.volumeMounts.filter(isPlainObject) : []) {
    const vol = volumes.get(String(vm.name));
    if (!vol || typeof vm.mountPath !== 'string') continue;
    const readOnly = vm.readOnly === true;
    let files: Map<string, SimFile> | undefined;
    let writable = false;
    let tmpfs = true;
    if (isPlainObject(vol.emptyDir)) {
      tmpfs = vol.emptyDir.medium === 'Memory';
      files = new Map();
      writable = !readOnly;
    } else if (isPlainObject(vol.configMap) || isPlainObject(vol.secret) || isPlainObject(vol.downwardAPI)) {
      const kind = isPlainObject(vol.configMap) ? 'configMap' : isPlainObject(vol.secret) ? 'secret' : 'downwardAPI';
      const src = vol[kind] as JsonObject;
      tmpfs = kind !== 'configMap';
      files = await sourceFiles(pod, container, kind, src, typeof src.defaultMode === 'number' ? src.defaultMode : 0o644, kubeletOwner, lookup);
    } else if (isPlainObject(vol.projected)) {
      const defaultMode = typeof vol.projected.defaultMode === 'number' ? vol.projected.defaultMode : 0o644;
      files = new Map();
      for (const s of Array.isArray(vol.projected.sources) ? vol.projected.sources.filter(isPlainObject) : []) {
        const kind = ['configMap', 'secret', 'downwardAPI'].find((k) => isPlainObject(s[k]));
        if (!kind) continue;
        const part = await sourceFiles(pod, container, kind, { ...(s[kind] as JsonObject), ...(kind === 'secret' ? { secretName: (s[kind] as JsonObject).name } : {}) }, defaultMode, kubeletOwner, lookup);
        if (!part) {
          files = undefined;
          break;
        }
        for (const [p, f] of part) files.set(p, { ...f, tmpfs: true });
      }
    } else continue;
    if (!files) continue;
    // A subPath mounts one entry of the volume (a directory of an emptyDir is made on demand).
    const sub = typeof vm.subPath === 'string' ? vm.subPath.replace(/^\/+|\/+$/g, '') : '';
    if (sub) {
      const below = new Map<string, SimFile>();
      for (const [p, f] of files) if (p === sub || p.startsWith(`${sub}/`)) below.set(p === sub ? '' : p.slice(sub.length + 1), f);
      files = below;
    }
    withDirs(files, kubeletOwner, tmpfs);
    // The mount's own directory: world-writable as the kubelet makes an emptyDir (0777), setgid with an fsGroup.
    if (!files.has('')) files.set('', { dir: true, perm: 0o777, setgid: sec.fsGroup !== undefined, ...kubeletOwner, tmpfs });
    mounts.push({ path: strip(vm.mountPath), readOnly, files, writable });
  }
  // The deepest mount containing a path is the one it is in.
  const locate = (path: string): { mount: Mount; rel: string } | undefined => {
    const p = strip(path);
    let best: Mount | undefined;
    for (const m of mounts) if ((p === m.path || p.startsWith(`${m.path}/`) || m.path === '/') && (!best || m.path.length > best.path.length)) best = m;
    if (!best) return undefined;
    return { mount: best, rel: p === best.path ? '' : p.slice(best.path === '/' ? 1 : best.path.length + 1) };
  };
  return {
    stat(path) {
      const at = locate(path);
      return at ? at.mount.files.get(at.rel) : undefined;
    },
    write(path, content, perm) {
      const at = locate(path);
      if (!at || !at.mount.writable || !at.rel) return false;
      const parent = at.rel.includes('/') ? at.rel.slice(0, at.rel.lastIndexOf('/')) : '';
      const dir = at.mount.files.get(parent);
      if (!dir?.dir) return false;
      at.mount.files.set(at.rel, { dir: false, perm, content, uid: sec.uid, gid: dir.setgid && sec.fsGroup !== undefined ? sec.fsGroup : sec.gid, tmpfs: dir.tmpfs });
      return true;
    },
  };
}
