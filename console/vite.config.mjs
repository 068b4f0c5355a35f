// The web console's build (`npm run build`): Preact through esbuild's automatic JSX runtime, one small bundle with
// hashed names into dist/console/, which the server serves under /console/ (src/console/plugin.ts). No external
// fonts, icons or CDNs: everything the app shows is in the bundle.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  logLevel: 'warn',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  resolve: { alias: { react: 'preact/compat', 'react-dom': 'preact/compat' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console/', import.meta.url)),
    emptyOutDir: true,
    target: ['chrome115', 'firefox115', 'safari16'],
    assetsInlineLimit: 8192,
    sourcemap: false,
    reportCompressedSize: false,
  },
});
