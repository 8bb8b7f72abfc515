// One build for the three bundles: esbuild for the Node-side code (main process, preload,
// command line), Vite for the renderer.
import { build as esbuild } from 'esbuild';
import { build as viteBuild } from 'vite';

const common = { bundle: true, sourcemap: true, logLevel: 'warning', target: 'node24' };

await Promise.all([
  esbuild({
    ...common,
    entryPoints: { index: 'main/shell/main.ts' },
    outdir: 'dist/main',
    platform: 'node',
    format: 'esm',
    outExtension: { '.js': '.js' },
    external: ['electron', 'keytar'],
  }),
  // Sandboxed preloads must be CommonJS.
  esbuild({
    ...common,
    entryPoints: { index: 'preload/index.ts' },
    outdir: 'dist/preload',
    platform: 'node',
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    external: ['electron'],
  }),
  viteBuild({ configFile: 'vite.config.ts', logLevel: 'warn' }),
]);
console.log('built dist/main, dist/preload, dist/renderer');
