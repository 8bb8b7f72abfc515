// One build for the three bundles: esbuild for the Node-side code (main process, preload,
// browser host), Vite for the renderer.
import { build as esbuild } from 'esbuild';
import { build as viteBuild } from 'vite';

// `--production` (installers): development-only code, such as the built-in simulator, is left out.
const production = process.argv.includes('--production');
const common = { bundle: true, sourcemap: true, logLevel: 'warning', target: 'node24' };
// ESM bundles for Node: bundled CommonJS dependencies (undici, ws) `require` Node built-ins.
const nodeRequireBanner = {
  js: "import { createRequire as __deskCreateRequire } from 'node:module'; const require = __deskCreateRequire(import.meta.url);",
};

await Promise.all([
  esbuild({
    ...common,
    entryPoints: { index: 'main/shell/main.ts' },
    outdir: 'dist/main',
    platform: 'node',
    format: 'esm',
    outExtension: { '.js': '.js' },
    // Native modules load their binary relative to their own file: they stay in node_modules.
    external: ['electron', 'keytar', 'fs-native-extensions'],
    banner: nodeRequireBanner,
    define: { DESK_DEVELOPMENT_BUILD: production ? 'false' : 'true' },
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
  // The browser host (development and tests only): the main-process service in plain Node…
  esbuild({
    ...common,
    entryPoints: { index: 'main/browser-host/index.ts' },
    outdir: 'dist/browser-host',
    platform: 'node',
    format: 'esm',
    outExtension: { '.js': '.js' },
    external: ['keytar', 'fs-native-extensions'],
    banner: nodeRequireBanner,
  }),
  // …and the page-side bridge it injects into the renderer, defining window.desk.
  esbuild({
    ...common,
    entryPoints: { 'desk-bridge': 'renderer/browser-host-bridge.ts' },
    outdir: 'dist/browser-host',
    platform: 'browser',
    format: 'iife',
    target: 'chrome130',
  }),
  viteBuild({ configFile: 'vite.config.ts', logLevel: 'warn' }),
]);
console.log(
  `built dist/main, dist/preload, dist/browser-host, dist/renderer${production ? ' (production: no simulator)' : ''}`,
);
