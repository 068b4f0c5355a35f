/**
 * atrium's layers, declared once: a module may import its own layer's folder and the layers listed under it, never
 * one above. `npm test` runs this check (test/unit/layering.test.ts); the README's architecture section draws the
 * same picture. Lowest first:
 *
 *   base          apimachinery (wire types, pure helpers), logging
 *   storage       the storage contract and its backends
 *   patch         JSON/merge/strategic patches, server-side apply
 *   client        the API client and informers controllers use
 *   registry      the generic store, strategies, the built-in resources (workload types included)
 *   controllers   the reconcile loop, the committer, the built-in controllers (API clients)
 *   apiserver     the host: filters, handlers, admission chain, discovery, OpenAPI, and the plugin contract
 *   features      auth; then tenancy and apiextensions; then apis (API sharing: it builds on both); then admission
 *                 webhooks (matchConditions use the CEL of CRDs); then multicluster (it builds on workspaces and CRDs);
 *                 then the console (serves the web app's files)
 *   server        the composition root
 *   programs      pcluster (the simulated cluster), demo, cli, and index.ts (the library's front door)
 *
 * Above them all, examples/ (programs that embed atrium) import src/ only through src/index.ts, as a program that
 * installed the package would.
 */
const layers = [
  { name: 'base', paths: ['apimachinery', 'logging'] },
  { name: 'storage', paths: ['storage'] },
  { name: 'patch', paths: ['patch'] },
  { name: 'client', paths: ['client'] },
  { name: 'registry', paths: ['registry'] },
  { name: 'controllers', paths: ['controllers'] },
  { name: 'apiserver', paths: ['apiserver'] },
  { name: 'auth', paths: ['auth'] },
  { name: 'tenancy-apiextensions', paths: ['tenancy', 'apiextensions'] },
  { name: 'apis', paths: ['apis'] },
  { name: 'admissionwebhooks', paths: ['admissionwebhooks'] },
  { name: 'admissionpolicy', paths: ['admissionpolicy'] },
  { name: 'multicluster', paths: ['multicluster'] },
  { name: 'console', paths: ['console'] },
  { name: 'server', paths: ['server'] },
  { name: 'pcluster', paths: ['pcluster'] },
  { name: 'programs', paths: ['demo', 'cli', 'index\\.ts$'] },
];

/**
 * What each layer may not import: every layer above it, and, within one layer of several folders, its siblings
 * (storage, patch and client are independent of one another; so are tenancy and apiextensions).
 */
const independentSiblings = new Set(['storage', 'patch', 'client']);
// Each entry names a folder (matched with its trailing slash, so `cli` is not `client`) or, with `$`, one file.
const folder = (p) => `^src/(${p.split('|').map((x) => (x.endsWith('$') ? x : `${x}/`)).join('|')})`;
const forbidden = [];
layers.forEach((layer, i) => {
  const above = layers.slice(i + 1).flatMap((l) => l.paths);
  if (above.length > 0) {
    forbidden.push({
      name: `${layer.name}-imports-upward`,
      comment: `${layer.name} is below ${layers.slice(i + 1).map((l) => l.name).join(', ')}: it may not import them`,
      severity: 'error',
      from: { path: folder(layer.paths.join('|')) },
      to: { path: folder(above.join('|')) },
    });
  }
  if (layer.paths.length > 1 && layer.name === 'tenancy-apiextensions') {
    forbidden.push(
      { name: 'tenancy-imports-apiextensions', severity: 'error', from: { path: folder('tenancy') }, to: { path: folder('apiextensions') } },
      { name: 'apiextensions-imports-tenancy', severity: 'error', from: { path: folder('apiextensions') }, to: { path: folder('tenancy') } },
    );
  }
});
// storage, patch and client sit side by side above base: none may import another.
const siblings = layers.filter((l) => independentSiblings.has(l.name));
for (const a of siblings) {
  for (const b of siblings) {
    if (a === b) continue;
    forbidden.push({ name: `${a.name}-imports-${b.name}`, severity: 'error', from: { path: folder(a.paths.join('|')) }, to: { path: folder(b.paths.join('|')) } });
  }
}
forbidden.push(
  {
    name: 'no-circular',
    comment: 'modules in an import cycle cannot be understood, tested or moved one at a time',
    severity: 'error',
    from: { path: '^src/' },
    to: { circular: true },
  },
  {
    // An example shows what a program that installed the package can write: it reaches src/ through the front door only.
    name: 'examples-import-around-the-front-door',
    comment: 'examples/ import atrium only from src/index.ts (the package\'s front door, `atrium` when installed)',
    severity: 'error',
    from: { path: '^examples/' },
    to: { path: '^src/', pathNot: '^src/index\\.ts$' },
  },
  {
    name: 'src-imports-tests',
    severity: 'error',
    from: { path: '^src/' },
    to: { path: '^(test|bench|examples)/' },
  },
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: 'node_modules' },
    // src/ and the examples, which may use src/ only through its front door (src/index.ts).
    includeOnly: '^(src|examples)/',
    // TypeScript 7 has no compiler API for dependency-cruiser to use; swc parses the sources, type-only imports too.
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
