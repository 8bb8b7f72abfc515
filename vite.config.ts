import { defineConfig } from 'vite';

/** Builds the renderer only; main and preload are bundled by esbuild (scripts/build.mjs). */
export default defineConfig({
  root: 'renderer',
  base: './',
  build: { outDir: '../dist/renderer', emptyOutDir: true, target: 'chrome130' },
});
