/**
 * agnhost's `mounttest` (k8s.io/kubernetes test/images/agnhost/mounttest), the program upstream's volume conformance
 * specs run to report what a container sees: run against the container's simulated volumes (volume-view.ts) instead
 * of a filesystem, printing what it would print, in its order — the filesystem type, new files written and read back,
 * a path's mode, permissions and owner, a file's content; then, with `--file_content_in_loop`, a file's content every
 * 2 s for `--retry_time` seconds (until it is mount-tester's own content, unless `--break_on_expected_content=false`),
 * read anew each time, so updates of the ConfigMaps, Secrets and pod metadata behind it show (mounttestLoopStep).
 */
import type { JsonObject } from '../../apimachinery/object.js';
import type { SimFile, VolumeView } from './volume-view.js';

const FLAGS = ['fs_type', 'file_mode', 'file_perm', 'file_owner', 'new_file_0644', 'new_file_0666', 'new_file_0660', 'new_file_0777', 'file_content', 'file_content_in_loop', 'retry_time', 'break_on_expected_content'];

/** The mounttest flags of a container running it (agnhost's image, `mounttest` as its first argument), or undefined. */
export function mounttestFlags(container: JsonObject): Record<string, string> | undefined {
  if (typeof container.image !== 'string' || !/(^|\/)agnhost(:|@|$)/.test(container.image)) return undefined;
  const command = (Array.isArray(container.command) ? container.command : []).map(String);
  const args = (Array.isArray(container.args) ? container.args : []).map(String);
  // The image's entrypoint is /agnhost: args alone, or a command naming it.
  const words = command.length === 0 ? args : /(^|\/)agnhost$/.test(command[0]!) ? [...command.slice(1), ...args] : undefined;
  if (!words || words[0] !== 'mounttest') return undefined;
  const flags: Record<string, string> = {};
  for (let i = 1; i < words.length; i++) {
    const m = /^--?([a-z_0-9]+)(?:=(.*))?$/s.exec(words[i]!);
    if (!m || !FLAGS.includes(m[1]!)) return undefined;
    if (m[2] !== undefined) flags[m[1]!] = m[2];
    else if (m[1] === 'break_on_expected_content') flags[m[1]] = 'true';
    else if (i + 1 < words.length) flags[m[1]!] = words[++i]!;
    else return undefined;
  }
  return flags;
}

/** The loop of `--file_content_in_loop`: the file, how long (s) and whether it ends on mount-tester's own content. */
export function mounttestLoop(flags: Record<string, string>): { path: string; retrySeconds: number; breakOnExpected: boolean } | undefined {
  if (!flags.file_content_in_loop) return undefined;
  const retry = Number(flags.retry_time ?? 180);
  return { path: flags.file_content_in_loop, retrySeconds: Number.isFinite(retry) ? retry : 180, breakOnExpected: !/^(false|0|f|F|FALSE|False)$/.test(flags.break_on_expected_content ?? 'true') };
}

/** One pass of the loop against `view`: what it prints, and whether the loop ends there. */
export function mounttestLoopStep(loop: { path: string; breakOnExpected: boolean }, view: VolumeView): { lines: string[]; done: boolean } {
  const f = view.stat(loop.path);
  if (!f || f.dir) return { lines: [`Error reading file ${loop.path}: ${f ? `read ${loop.path}: is a directory` : `open ${loop.path}: no such file or directory`}, retrying`], done: false };
  const lines = `content of file ${quote(loop.path)}: ${f.content ?? ''}`.split('\n');
  if (!loop.breakOnExpected) return { lines, done: false };
  if (f.content !== INITIAL_CONTENT) return { lines: [...lines, ...`Unexpected content. Expected: ${INITIAL_CONTENT}. Retrying`.split('\n')], done: false };
  return { lines, done: true };
}

/** Go's os.FileMode.String(): the type and special bits (d, g, t) or `-`, then rwx for owner, group, others. */
export function goFileMode(f: Pick<SimFile, 'dir' | 'perm' | 'setgid'>, permOnly = false): string {
  let head = '';
  if (!permOnly) {
    if (f.dir) head += 'd';
    if (f.setgid) head += 'g';
  }
  const rwx = 'rwxrwxrwx';
  let bits = '';
  for (let i = 0; i < 9; i++) bits += f.perm & (1 << (8 - i)) ? rwx[i] : '-';
  return `${head || '-'}${bits}`;
}

const quote = (p: string) => JSON.stringify(p);
const INITIAL_CONTENT = 'mount-tester new file\n';
/** statfs's f_type of a disk filesystem (ext4), as mounttest prints it for anything not tmpfs. */
const EXT4_MAGIC = 0xef53;

/** Runs mounttest with `flags` against `view`: its output lines and exit code. */
export function runMounttest(flags: Record<string, string>, view: VolumeView): { lines: string[]; exitCode: number } {
  const out: string[] = [];
  let failed = false;
  const print = (text: string) => out.push(...text.split('\n'));
  const missing = (path: string) => `${path}: no such file or directory`;
  const stat = (path: string, what: (f: SimFile) => void, call = 'Stat') => {
    const f = view.stat(path);
    if (!f) {
      print(`error from ${call}(${quote(path)}): ${call.toLowerCase()} ${missing(path)}`);
      failed = true;
    } else what(f);
  };
  const readContent = (path: string) => {
    const f = view.stat(path);
    if (!f || f.dir) {
      print(`error reading file content for ${quote(path)}: ${f ? `read ${path}: is a directory` : `open ${missing(path)}`}`);
      failed = true;
    } else print(`content of file ${quote(path)}: ${f.content ?? ''}`);
  };
  if (flags.fs_type) {
    const path = flags.fs_type;
    const f = view.stat(path);
    if (!f) {
      print(`error from statfs(${quote(path)}): ${missing(path)}`);
      failed = true;
    } else print(`mount type of ${quote(path)}: ${f.tmpfs ? 'tmpfs' : EXT4_MAGIC}`);
  }
  for (const [flag, perm] of [['new_file_0644', 0o644], ['new_file_0666', 0o666], ['new_file_0660', 0o660], ['new_file_0777', 0o777]] as const) {
    const path = flags[flag];
    if (!path) continue;
    if (!view.write(path, INITIAL_CONTENT, perm)) {
      print(`error writing new file ${quote(path)}: open ${path}: ${view.stat(path.slice(0, path.lastIndexOf('/')) || '/') ? 'read-only file system' : 'no such file or directory'}`);
      failed = true;
    } else readContent(path);
  }
  if (flags.file_mode) stat(flags.file_mode, (f) => print(`mode of file ${quote(flags.file_mode!)}: ${goFileMode(f)}`));
  if (flags.file_perm) stat(flags.file_perm, (f) => print(`perms of file ${quote(flags.file_perm!)}: ${goFileMode(f, true)}`));
  if (flags.file_owner) {
    stat(flags.file_owner, (f) => {
      print(`owner UID of ${quote(flags.file_owner!)}: ${f.uid}`);
      print(`owner GID of ${quote(flags.file_owner!)}: ${f.gid}`);
    }, 'stat');
  }
  if (flags.file_content) readContent(flags.file_content);
  return { lines: out, exitCode: failed ? 1 : 0 };
}

