/**
 * The package as a user gets it: `npm pack` of the built repository, installed into an empty project, then a program
 * that imports `atrium` starts a server and creates a ConfigMap with the package's RestClient, a TypeScript file using
 * the package is type-checked against the shipped declarations, and the `atrium` bin runs.
 *
 * Needs the build (`npm run build`) and the npm cache `npm ci` filled. The install builds better-sqlite3 from source
 * (about a minute on two cores), so this suite is slow; it prints its progress on stderr.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const repoRoot = process.cwd();

function progress(line: string): void {
  process.stderr.write(`[npm-pack] ${line}\n`);
}

/** The environment of a user's shell: without what `npm test` sets for the repository's own package. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_(package|lifecycle)_/.test(k) && k !== 'INIT_CWD') env[k] = v;
  return env;
}

/** Runs a command to its end, echoing its output as progress; never throws on a non-zero exit. */
function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    progress(`$ ${[command, ...args].join(' ')}  (in ${cwd})`);
    const child = spawn(command, args, { cwd, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const echo = (chunk: Buffer) => {
      for (const l of chunk.toString().split('\n')) if (l.trim()) progress(`  ${l}`);
    };
    child.stdout.on('data', (d: Buffer) => ((stdout += d), echo(d)));
    child.stderr.on('data', (d: Buffer) => ((stderr += d), echo(d)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The program a user writes: only `from 'atrium'`. */
const program = `
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { startServer, RestClient, logger } from 'atrium';

logger.setLevel('warn');
const rootDir = mkdtempSync(join(tmpdir(), 'atrium-packed-server-'));
const server = await startServer({ rootDir, bindAddress: '127.0.0.1', securePort: 0 });
const client = new RestClient({ url: server.url, ca: server.caPem, token: server.adminToken });
try {
  const configmaps = { group: '', version: 'v1', resource: 'configmaps' };
  const created = await client.create(configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'packed' }, data: { hello: 'world' } }, { namespace: 'default' });
  const read = await client.get(configmaps, 'packed', { namespace: 'default' });
  const packageDir = join(createRequire(import.meta.url).resolve('atrium/package.json'), '..');
  console.log(JSON.stringify({
    created: created.metadata.name,
    data: read.data,
    sameUid: read.metadata.uid === created.metadata.uid,
    declarations: existsSync(join(packageDir, 'dist', 'src', 'index.d.ts')),
  }));
} finally {
  client.close();
  await server.stop();
  rmSync(rootDir, { recursive: true, force: true });
}
`;

/** A TypeScript user of the declarations: a resource with validation, a status subresource and printer columns. */
const typedProgram = `
import { defineBuiltin, field, printerForColumns, runControllers, startServer, statusOnly, type FieldError, type RunningServer, type ServerPlugin } from 'atrium';

const things = defineBuiltin({
  group: 'example.dev', version: 'v1', resource: 'things', kind: 'Thing', namespaced: true, definitionName: 'dev.example.v1.Thing',
  strategy: { validate: (o): FieldError[] => (typeof (o.spec as { n?: unknown } | undefined)?.n === 'number' ? [] : [field.required('spec.n')]) },
  subresources: [{ name: 'status', kind: 'Thing', verbs: ['get', 'patch', 'update'], strategy: statusOnly }],
  printer: printerForColumns([{ name: 'N', type: 'integer', jsonPath: '.spec.n' }]),
});
const plugin: ServerPlugin = {
  name: 'things',
  resources: [things],
  controllers: (server) => runControllers({ server, userAgent: 'things/v1', installers: [] }),
};
export const start = (rootDir: string): Promise<RunningServer> => startServer({ rootDir, bindAddress: '127.0.0.1', securePort: 0, plugins: [plugin] });
`;

describe('npm pack: the package installs and runs in an empty project', () => {
  let work: string;
  let app: string;
  let tarball: string;

  before(() => {
    assert.ok(existsSync(join(repoRoot, 'dist', 'src', 'index.js')), 'dist/ is missing: run `npm run build` first');
    work = mkdtempSync(join(tmpdir(), 'atrium-pack-'));
    app = join(work, 'app');
    mkdirSync(app);
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('npm pack ships dist/src (JavaScript and declarations), the console\'s assets, bin/ and README.md, and nothing of the tests', { timeout: 120_000 }, async () => {
    // --ignore-scripts: `prepare` would rebuild dist/ under the feet of the other suites; the build is already there.
    const r = await run(npm, ['pack', '--ignore-scripts', '--pack-destination', work, '--json'], repoRoot, 120_000);
    assert.equal(r.code, 0, r.stderr);
    const [packed] = JSON.parse(r.stdout) as { filename: string; files: { path: string }[] }[];
    tarball = join(work, packed!.filename);
    assert.ok(existsSync(tarball), tarball);
    const paths = packed!.files.map((f) => f.path);
    for (const p of ['package.json', 'README.md', 'bin/atrium', 'bin/kubectl-ws', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/cli/atrium.js', 'dist/src/server/server.d.ts']) {
      assert.ok(paths.includes(p), `${p} is not in the package`);
    }
    // The web console's built assets ship too (served under /console/ by the installed server).
    assert.ok(paths.includes('dist/console/index.html'), 'the console is not in the package');
    assert.deepEqual(paths.filter((p) => !p.startsWith('dist/src/') && !p.startsWith('dist/console/') && !p.startsWith('bin/') && !['package.json', 'README.md'].includes(p)), []);
    assert.deepEqual(paths.filter((p) => p.endsWith('.map') || p.endsWith('.ts') !== p.endsWith('.d.ts')), [], 'no source maps, no TypeScript sources');
    progress(`packed ${packed!.filename}: ${paths.length} files`);
  });

  it('npm install of the tarball into an empty project', { timeout: 600_000 }, async () => {
    assert.ok(tarball, 'the pack step failed');
    const rootPackage = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
    writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'atrium-pack-check', version: '0.0.0', private: true, type: 'module', allowScripts: rootPackage.allowScripts }, null, 2)}\n`);
    const started = Date.now();
    progress('installing; better-sqlite3 builds from source, which takes about a minute');
    const r = await run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], app, 590_000);
    progress(`npm install took ${Math.round((Date.now() - started) / 1000)} s`);
    assert.equal(r.code, 0, `npm install failed\n${r.stdout}\n${r.stderr}`);
    assert.ok(existsSync(join(app, 'node_modules', 'atrium', 'dist', 'src', 'index.d.ts')), 'the declarations are installed');
  });

  it("a program importing 'atrium' starts a server and creates a ConfigMap with the package's RestClient", { timeout: 120_000 }, async () => {
    assert.ok(existsSync(join(app, 'node_modules', 'atrium')), 'the install step failed');
    writeFileSync(join(app, 'check.mjs'), program);
    const r = await run(process.execPath, ['check.mjs'], app, 110_000);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.deepEqual(JSON.parse(r.stdout.trim().split('\n').pop()!), { created: 'packed', data: { hello: 'world' }, sameUid: true, declarations: true });
  });

  it('the shipped declarations type-check a TypeScript user of the package', { timeout: 120_000 }, async () => {
    assert.ok(existsSync(join(app, 'node_modules', 'atrium')), 'the install step failed');
    writeFileSync(join(app, 'check.ts'), typedProgram);
    // The project's own TypeScript and @types/node (the empty project has neither); skipLibCheck off checks the .d.ts.
    const tsconfig = {
      compilerOptions: {
        module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: false,
        types: ['node'], typeRoots: [join(repoRoot, 'node_modules', '@types')],
      },
      files: ['check.ts'],
    };
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    const r = await run(join(repoRoot, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], app, 110_000);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    // And a mistake is caught: the declarations are really read.
    writeFileSync(join(app, 'check.ts'), `${typedProgram}\nexport const wrong: number = start;\n`);
    const bad = await run(join(repoRoot, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], app, 110_000);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stdout, /check\.ts\(\d+,\d+\): error TS2322: Type '\(rootDir: string\) => Promise<RunningServer>' is not assignable to type 'number'/);
  });

  it('node_modules/.bin/atrium --help runs', { timeout: 60_000 }, async () => {
    assert.ok(existsSync(join(app, 'node_modules', '.bin', 'atrium')), 'the install step failed');
    const r = await run(join(app, 'node_modules', '.bin', 'atrium'), ['--help'], app, 50_000);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Usage: atrium \[options\] \[command\]/);
    assert.match(r.stdout, /start \[options\] +start the API server on embedded storage/);
  });
});
