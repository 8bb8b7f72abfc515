import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

/**
 * pdf.js's standard fonts (the 14 fonts a PDF may use without embedding them, such as
 * Helvetica) shipped with the renderer under `pdfjs/standard_fonts/`, so previews draw them
 * offline, from the app itself (renderer/src/pdf/pdfjs.ts points pdf.js there).
 */
function pdfjsStandardFonts(): Plugin {
  const folder = join(
    dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')),
    'standard_fonts',
  );
  return {
    name: 'desk-pdfjs-standard-fonts',
    apply: 'build',
    generateBundle() {
      for (const file of readdirSync(folder)) {
        this.emitFile({
          type: 'asset',
          fileName: `pdfjs/standard_fonts/${file}`,
          source: readFileSync(join(folder, file)),
        });
      }
    },
  };
}

/** Builds the renderer only; main and preload are bundled by esbuild (scripts/build.mjs). */
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [pdfjsStandardFonts()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'chrome130',
    // The app loads its pages from its own files, never over a network: a big chunk costs no
    // download, so the web's 500 kB advice does not apply (pdf.js alone is larger).
    chunkSizeWarningLimit: 4096,
    rolldownOptions: {
      onwarn(warning, warn) {
        // react-intl marks itself "use client" for React Server Components, which a desktop page
        // never uses: the directive is dropped on purpose. Every other warning is shown.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE' && warning.message.includes('"use client"')) return;
        warn(warning);
      },
    },
  },
});
