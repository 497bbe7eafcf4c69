import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Preact through the automatic JSX runtime of vite's transform (oxc): no plugin needed. The app is built to dist/app,
// which `raf studio` serves (`studioAssetsDir()`).
export default defineConfig({
  root: fileURLToPath(new URL('./app', import.meta.url)),
  base: './',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('./dist/app', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
  },
});
